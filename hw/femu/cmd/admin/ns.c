/*
 * Namespaces (poller thread): the namespaces given at realize, Namespace Management
 * (create, delete), Namespace Attachment (attach, detach), Format NVM, and the Changed
 * Namespace List log with its asynchronous event.
 *
 * Every namespace is a contiguous range of the FTL's logical sectors, whole flash pages,
 * so all namespaces share one FTL, its flash and its garbage collection, and the per-LPN
 * counts and statistics cover them all. A namespace's LBA is 512 B or 4 KiB (its LBA
 * format); an LBA is 2^lba_shift FTL sectors. Capacity is handed out first fit: a create
 * needs one free extent of its size (UNVMCAP is the sum of all free extents, so after
 * deletes a create can be refused with less than UNVMCAP asked; CONTROLLER.md says so).
 *
 * The FTL hears of a delete or a format as a deallocate or a format request, queued in
 * fetch order behind the I/O fetched before it; the data store and the poller's maps
 * change at once, as for every command.
 *
 * With zoned=on the FTL's zoned sectors are one more namespace (cmd/io/zns.c), made at
 * realize with the next NSID and placed after the conventional capacity. Its zones are
 * the FTL's, so it cannot be deleted, detached or formatted (Invalid Field); a broadcast
 * delete or format leaves it as it is. It is active only while CC.CSS selects all I/O
 * command sets.
 *
 * A Key Value namespace (CSI 01h, cmd/io/kv.c) is a range of the conventional sectors too,
 * holding the FTL's KV store of its NSID (ftl_kv_create) and the device's value bytes
 * (store/kv_values.h): kv_ns_mb makes one at realize, after the NVM namespaces' space (the
 * NSID after theirs), and Namespace Management creates others with CSI 01h. Like the zoned
 * one it is active only while CC.CSS selects all I/O command sets. Delete forgets its store
 * and deallocates its range; Format empties it (ftl_kv_clear now, the FTL's format of the
 * range in order behind the I/O before). KV namespaces' making and end: ns_kv.c; a range's
 * LBA format, first-fit extent and initialisation, shared with it: ns_space.c.
 */
#include "qemu/osdep.h"
#include "qemu/cutils.h"
#include "qapi/error.h"

#include "cmd/admin/features.h"
#include "cmd/admin/ns.h"
#include "cmd/admin/ns_kv.h"
#include "cmd/admin/ns_space.h"
#include "cmd/core/aer.h"
#include "cmd/core/cmd.h"
#include "cmd/core/cmd_set.h"
#include "cmd/core/ns_table.h"
#include "cmd/fdp/fdp.h"
#include "ctrl/dma.h"
#include "femu_ftl/kv.h"
#include "store/kv_values.h"

#define FEMU_NS_MGMT_CREATE     0
#define FEMU_NS_MGMT_DELETE     1
#define FEMU_NS_ATTACH          0
#define FEMU_NS_DETACH          1
#define FEMU_FORMAT_SES_NONE    0
#define FEMU_FORMAT_SES_USER    1   /* user data erase */
#define FEMU_AER_TYPE_NOTICE    2
#define FEMU_AER_NS_CHANGED     0   /* Notice: Namespace Attribute Changed */
#define FEMU_AEC_NS_NOTICES     (1u << 8)   /* Asynchronous Event Configuration bit */
#define FEMU_CHANGED_NS_MAX     1024        /* entries in the Changed Namespace List log */
/* Namespace Management status codes block/nvme.h does not name (NVMe base 2.0). */
#define FEMU_NS_THIN_PROV_UNSUPPORTED   0x011b

/* ---- Realize ---- */

static uint64_t femu_pages_to_sectors(FemuCtrl *n, uint64_t pages)
{
    return pages * n->ftl_config.secs_per_pg;
}

/* "a:b:c": namespace sizes in MiB, each rounded up to whole flash pages. */
static bool femu_ns_parse_sizes(FemuCtrl *n, const char *text, uint64_t *sizes,
                                unsigned *count, Error **errp)
{
    g_auto(GStrv) parts = g_strsplit(text, ":", -1);
    uint64_t page_bytes = n->geometry.page_bytes;

    *count = 0;
    for (unsigned i = 0; parts[i]; i++) {
        uint64_t mib;

        if (*count == FEMU_MAX_NAMESPACES) {
            error_setg(errp, "namespaces: more than %d namespaces", FEMU_MAX_NAMESPACES);
            return false;
        }
        if (qemu_strtou64(parts[i], NULL, 10, &mib) != 0 || mib == 0 ||
            mib > n->capacity_sectors * n->secsz >> 20) {
            error_setg(errp, "namespaces: '%s' is not a size in MiB between 1 and the "
                       "capacity (%" PRIu64 " MiB)", parts[i],
                       n->capacity_sectors * n->secsz >> 20);
            return false;
        }
        sizes[(*count)++] = femu_pages_to_sectors(n, DIV_ROUND_UP(mib << 20, page_bytes));
    }
    return true;
}

/* zoned=on: the zoned namespace, NSID nsid, over the sectors after the capacity. */
static bool femu_ns_realize_zoned(FemuCtrl *n, uint32_t nsid, Error **errp)
{
    if (n->zoned_sectors == 0) {
        return true;
    }
    if (!femu_nsid_valid(nsid)) {
        error_setg(errp, "namespaces: %d conventional namespaces leave no NSID for the "
                   "zoned namespace (zoned=on)", FEMU_MAX_NAMESPACES);
        return false;
    }
    femu_ns_init(n, &n->ns[nsid], nsid, n->capacity_sectors, n->zoned_sectors, 0);
    n->ns[nsid].zoned = true;
    femu_cmd_set_select(n, &n->ns[nsid]);
    n->ns[nsid].attached = true;
    return true;
}

bool femu_ns_realize(FemuCtrl *n, Error **errp)
{
    uint64_t sizes[FEMU_MAX_NAMESPACES];
    uint64_t kv_sectors, nvm_sectors;
    uint64_t capacity_pages;
    uint64_t base = 0, count64;
    unsigned count = 1;

    n->dmrsl = MIN(MIN(FEMU_DSM_MAX_BYTES / n->secsz, n->capacity_sectors), UINT32_MAX);
    if (!femu_ns_kv_sectors(n, &kv_sectors, errp)) {
        return false;
    }
    nvm_sectors = n->capacity_sectors - kv_sectors;  /* the KV namespace takes the end */
    capacity_pages = nvm_sectors / n->ftl_config.secs_per_pg;
    sizes[0] = nvm_sectors;                         /* default: one namespace, everything */
    if (n->namespaces && qemu_strtou64(n->namespaces, NULL, 10, &count64) == 0) {
        if (count64 > FEMU_MAX_NAMESPACES || count64 > capacity_pages) {
            error_setg(errp, "namespaces: %" PRIu64 " is out of range [0, %d]", count64,
                       (int)MIN(FEMU_MAX_NAMESPACES, capacity_pages));
            return false;
        }
        count = count64;   /* N namespaces of equal size; 0: all capacity unallocated */
        for (unsigned i = 0; i < count; i++) {
            sizes[i] = femu_pages_to_sectors(n, capacity_pages / count);
        }
    } else if (n->namespaces) {
        if (strchr(n->namespaces, ':') == NULL && !g_ascii_isdigit(n->namespaces[0])) {
            error_setg(errp, "namespaces: '%s' is neither a count nor MiB sizes 'a:b:...'",
                       n->namespaces);
            return false;
        }
        if (!femu_ns_parse_sizes(n, n->namespaces, sizes, &count, errp)) {
            return false;
        }
    }
    for (unsigned i = 0; i < count; i++) {
        if (base + sizes[i] > nvm_sectors) {
            error_setg(errp, "namespaces: '%s' needs more than the capacity (%" PRIu64
                       " MiB%s)", n->namespaces, nvm_sectors * n->secsz >> 20,
                       kv_sectors ? " beside the kv_ns_mb namespace" : "");
            return false;
        }
        femu_ns_init(n, &n->ns[i + 1], i + 1, base, sizes[i], 0);
        n->ns[i + 1].attached = true;
        base += sizes[i];
    }
    if (!femu_ns_realize_kv(n, count + 1, kv_sectors, errp)) {
        return false;
    }
    return femu_ns_realize_zoned(n, count + 1 + (kv_sectors > 0), errp);
}

/* ---- Namespace changed: the log and its event ---- */

static void femu_ns_changed(FemuCtrl *n, uint32_t nsid)
{
    n->ns_changed |= UINT64_C(1) << nsid;
    if (!n->ns_event_masked && (n->features.async_config & FEMU_AEC_NS_NOTICES)) {
        n->ns_event_masked = true;      /* until the host reads the log */
        femu_aer_post(n, FEMU_AER_TYPE_NOTICE, FEMU_AER_NS_CHANGED, NVME_LOG_CHANGED_NSLIST);
    }
}

size_t femu_ns_changed_log(FemuCtrl *n, uint8_t *buf, size_t len)
{
    size_t entries = 0;

    assert(len >= FEMU_CHANGED_NS_MAX * 4);
    for (uint32_t nsid = 1; nsid <= FEMU_MAX_NAMESPACES; nsid++) {
        if (n->ns_changed & (UINT64_C(1) << nsid)) {
            stl_le_p(buf + 4 * entries++, nsid);
        }
    }
    return FEMU_CHANGED_NS_MAX * 4;
}

void femu_ns_changed_log_read(FemuCtrl *n, bool rae)
{
    if (!rae) {
        n->ns_changed = 0;
        n->ns_event_masked = false;
    }
}

void femu_ns_reset(FemuCtrl *n)
{
    n->ns_event_masked = false;     /* a reset clears the event masks, not the log */
}

/* ---- Namespace Management ---- */

static uint16_t femu_ns_create(FemuCtrl *n, const NvmeCmd *cmd, FemuRequest *req)
{
    g_autofree NvmeIdNs *id = g_new0(NvmeIdNs, 1);
    uint64_t bytes[FEMU_MAX_LBAF], nsze, ncap, sectors, base;
    unsigned flbas, shift;
    FemuFdpHandles handles;
    uint32_t nsid;
    uint16_t status;

    QEMU_BUILD_BUG_ON(sizeof(NvmeIdNs) != NVME_IDENTIFY_DATA_SIZE);
    if ((femu_cdw(cmd, 11) >> 24) == FEMU_CSI_KV) {
        return femu_ns_create_kv(n, cmd, req);
    }
    if ((femu_cdw(cmd, 11) >> 24) != NVME_CSI_NVM) {
        return femu_dnr(NVME_INVALID_FIELD);       /* NVM and KV only */
    }
    status = femu_dma_prp(n, cmd, id, sizeof(*id), UINT64_MAX, FEMU_FROM_GUEST);
    if (status) {
        return femu_dnr(status);
    }
    nsze = le64_to_cpu(id->nsze);
    ncap = le64_to_cpu(id->ncap);
    flbas = (id->flbas & 0xf) | ((id->flbas >> 5) & 0x3) << 4;   /* bits 6:5 are the MSBs */
    if (id->flbas & 0x10 || id->dps || id->nmic) {
        return femu_dnr(NVME_INVALID_FIELD);       /* no metadata, PI or sharing */
    }
    if (flbas >= femu_lbafs(n, bytes)) {
        return femu_dnr(NVME_INVALID_FORMAT);
    }
    if (nsze == 0 || ncap == 0 || ncap > nsze) {
        return femu_dnr(NVME_INVALID_FIELD);
    }
    if (ncap != nsze) {
        return femu_dnr(FEMU_NS_THIN_PROV_UNSUPPORTED);
    }
    /* FDP: ENDGID and the placement handle list (cmd/fdp/fdp.c) */
    status = femu_fdp_ns_handles(n, (const uint8_t *)id, flbas, &handles);
    if (status) {
        return status;
    }
    shift = ctz64(bytes[flbas] / n->secsz);
    if (nsze > n->capacity_sectors >> shift) {
        return femu_dnr(FEMU_NS_INSUFFICIENT_CAPACITY);
    }
    sectors = ROUND_UP(nsze << shift, n->ftl_config.secs_per_pg);
    for (nsid = 1; nsid <= FEMU_MAX_NAMESPACES && n->ns[nsid].allocated; nsid++) {
    }
    if (nsid > FEMU_MAX_NAMESPACES) {
        return femu_dnr(FEMU_NS_ID_UNAVAILABLE);
    }
    if (!femu_ns_find_extent(n, sectors, &base)) {
        return femu_dnr(FEMU_NS_INSUFFICIENT_CAPACITY);
    }
    femu_ns_init(n, &n->ns[nsid], nsid, base, sectors, flbas);
    femu_fdp_ns_apply(&n->ns[nsid], &handles);
    n->ns[nsid].bytes = nsze * bytes[flbas];    /* as asked; the rest of its last page */
    femu_ns_set_format(n, &n->ns[nsid], flbas); /* is never addressed */
    femu_ns_forget_data(n, base, sectors);   /* a fresh namespace reads zeroes */
    req->result = nsid;
    return NVME_SUCCESS;
}

/* Detach ns (if attached) and tell the host its NSID changed. */
static void femu_ns_detach_one(FemuCtrl *n, FemuNamespace *ns)
{
    if (ns->attached) {
        ns->attached = false;
        femu_ns_changed(n, ns->nsid);
    }
}

static uint16_t femu_ns_delete(FemuCtrl *n, uint32_t nsid, FemuRequest *req)
{
    uint32_t first = nsid, last = nsid, nranges = 0;
    struct ftl_range *ranges;

    if (nsid == NVME_NSID_BROADCAST) {
        first = 1;
        last = FEMU_MAX_NAMESPACES;
    } else if (!femu_ns_allocated(n, nsid)) {
        return femu_dnr(femu_nsid_valid(nsid) ? NVME_INVALID_FIELD : NVME_INVALID_NSID);
    } else if (n->ns[nsid].zoned) {
        return femu_dnr(NVME_INVALID_FIELD);       /* the FTL's zones stay */
    }
    ranges = g_new(struct ftl_range, FEMU_MAX_NAMESPACES);
    req->ftl.ranges = ranges;      /* owned by the request: freed with it */
    for (uint32_t id = first; id <= last; id++) {
        FemuNamespace *ns = &n->ns[id];

        if (!ns->allocated || ns->zoned) {
            continue;
        }
        femu_ns_detach_one(n, ns);
        femu_ns_forget_data(n, ns->base_sector, ns->sectors);
        femu_ns_drop_kv(n, ns);
        ranges[nranges++] = (struct ftl_range){ ns->base_sector, ns->sectors };
        ns->allocated = false;
    }
    /* The FTL unmaps the space, in order behind the I/O fetched before. */
    if (nranges) {
        femu_req_ftl(req, FTL_OP_TRIM);
    }
    req->ftl.nranges = nranges;
    req->ftl.nsid = nsid == NVME_NSID_BROADCAST ? 0 : nsid;
    req->keep_on_reset = true;
    return NVME_SUCCESS;
}

uint16_t femu_ns_management(FemuCtrl *n, const NvmeCmd *cmd, FemuRequest *req)
{
    switch (femu_cdw(cmd, 10) & 0xf) {
    case FEMU_NS_MGMT_CREATE:
        return femu_ns_create(n, cmd, req);
    case FEMU_NS_MGMT_DELETE:
        return femu_ns_delete(n, le32_to_cpu(cmd->nsid), req);
    default:
        return femu_dnr(NVME_INVALID_FIELD);
    }
}

/* ---- Namespace Attachment ---- */

/* The controller list must name this controller, and only it. */
static uint16_t femu_ns_controller_list(FemuCtrl *n, const NvmeCmd *cmd)
{
    g_autofree uint8_t *list = g_malloc0(NVME_IDENTIFY_DATA_SIZE);
    uint16_t status = femu_dma_prp(n, cmd, list, NVME_IDENTIFY_DATA_SIZE, UINT64_MAX,
                                   FEMU_FROM_GUEST);

    if (status) {
        return femu_dnr(status);
    }
    if (lduw_le_p(list) != 1 || lduw_le_p(list + 2) != FEMU_CNTLID) {
        return femu_dnr(NVME_NS_CTRL_LIST_INVALID);
    }
    return NVME_SUCCESS;
}

uint16_t femu_ns_attachment(FemuCtrl *n, const NvmeCmd *cmd, FemuRequest *req)
{
    uint32_t nsid = le32_to_cpu(cmd->nsid);
    unsigned sel = femu_cdw(cmd, 10) & 0xf;
    FemuNamespace *ns;
    uint16_t status;

    if (sel != FEMU_NS_ATTACH && sel != FEMU_NS_DETACH) {
        return femu_dnr(NVME_INVALID_FIELD);
    }
    if (!femu_nsid_valid(nsid)) {
        return femu_dnr(NVME_INVALID_NSID);       /* 0, broadcast, beyond NN */
    }
    ns = femu_ns_allocated(n, nsid);
    if (!ns) {
        return femu_dnr(NVME_INVALID_FIELD);
    }
    status = femu_ns_controller_list(n, cmd);
    if (status) {
        return status;
    }
    if (sel == FEMU_NS_DETACH && ns->zoned) {
        return femu_dnr(NVME_INVALID_FIELD);       /* the zoned namespace stays attached */
    }
    if (sel == FEMU_NS_ATTACH) {
        if (ns->attached) {
            return femu_dnr(NVME_NS_ALREADY_ATTACHED);
        }
        ns->attached = true;
        femu_ns_changed(n, nsid);
    } else {
        if (!ns->attached) {
            return femu_dnr(NVME_NS_NOT_ATTACHED);
        }
        femu_ns_detach_one(n, ns);
    }
    return NVME_SUCCESS;
}

/* ---- Format NVM ---- */

uint16_t femu_format_nvm(FemuCtrl *n, const NvmeCmd *cmd, FemuRequest *req)
{
    uint32_t dw10 = femu_cdw(cmd, 10), nsid = le32_to_cpu(cmd->nsid);
    unsigned lbaf = (dw10 & 0xf) | ((dw10 >> 12) & 0x3) << 4;
    unsigned mset = (dw10 >> 4) & 1, pi = (dw10 >> 5) & 0x7, pil = (dw10 >> 8) & 1;
    unsigned ses = (dw10 >> 9) & 0x7;
    uint64_t bytes[FEMU_MAX_LBAF];
    uint32_t first = nsid, last = nsid, nranges = 0;
    struct ftl_range *ranges;

    if (nsid == NVME_NSID_BROADCAST) {
        first = 1;
        last = FEMU_MAX_NAMESPACES;
    } else if (!femu_nsid_valid(nsid)) {
        return femu_dnr(NVME_INVALID_NSID);
    } else if (!femu_ns_active(n, nsid) || n->ns[nsid].zoned) {
        return femu_dnr(NVME_INVALID_FIELD);      /* inactive, or zoned: zones, not format */
    }
    if (lbaf >= femu_lbafs(n, bytes) || pi || (pil && pi) || (mset && pi)) {
        return femu_dnr(NVME_INVALID_FORMAT);
    }
    if (ses > FEMU_FORMAT_SES_USER) {
        return femu_dnr(NVME_INVALID_FIELD);      /* no cryptographic erase */
    }
    /* Every namespace keeps at least one LBA in the new format, or none is formatted: a
     * namespace of NSZE 0 would be useless and no state file could hold it. */
    for (uint32_t id = first; id <= last; id++) {
        FemuNamespace *ns = femu_ns_active(n, id);

        if (ns && !ns->zoned && ns->bytes < bytes[lbaf]) {
            return femu_dnr(NVME_INVALID_FORMAT);
        }
    }
    ranges = g_new(struct ftl_range, FEMU_MAX_NAMESPACES);
    req->ftl.ranges = ranges;      /* owned by the request: freed with it */
    for (uint32_t id = first; id <= last; id++) {
        FemuNamespace *ns = femu_ns_active(n, id);
        unsigned old = ns ? ns->flbas : 0;

        if (!ns || ns->zoned) {
            continue;
        }
        femu_ns_forget_data(n, ns->base_sector, ns->sectors);
        if (ns->kv) {       /* every key gone now; the FTL's format empties its log */
            qemu_mutex_lock(&n->engine_lock);
            ftl_kv_clear(n->ftl, ns->nsid);
            qemu_mutex_unlock(&n->engine_lock);
            kv_values_clear(ns->kv_values);
        }
        femu_ns_set_format(n, ns, lbaf);
        ranges[nranges++] = (struct ftl_range){ ns->base_sector, ns->sectors };
        if (old != lbaf) {
            femu_ns_changed(n, id);         /* its LBA size changed */
        }
    }
    if (nranges) {
        femu_req_ftl(req, FTL_OP_FORMAT);
    }
    req->ftl.nranges = nranges;
    /* the stores' admission emptied above (ftl_kv_clear): the engine empties the rest */
    req->ftl.flags = (ses == FEMU_FORMAT_SES_USER ? FTL_REQ_ERASE : 0) | FTL_REQ_ADMITTED;
    return NVME_SUCCESS;
}
