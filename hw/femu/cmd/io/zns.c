/*
 * The zoned namespace (poller thread): the Zoned Namespace command set's I/O commands on
 * the namespace made of the FTL's zones (zoned=on; cmd/admin/ns.c creates it, cmd/admin/identify.c
 * describes it), one function each, listed in the Zoned command set's table
 * (top/cmd_tables.c) with the NVM command set's Flush and Copy. Write Uncorrectable is not
 * in it.
 *
 * The FTL decides every zone rule (ftl_zone_admit_*, femu_ftl/zns.h): states, write
 * pointers, the open and active limits, the status of each violation. The poller asks it
 * when it fetches a command, holding engine_lock (the FTL thread holds it while serving),
 * and before any data moves, so a refused command changes nothing and commands are
 * admitted in fetch order. An admitted command then moves its data between guest memory
 * and the data store and goes to the FTL thread marked FTL_REQ_ADMITTED, which does only
 * the flash work (programs at the write pointer, erases on reset, senses on read). Work
 * that changed a zone is kept across a controller reset (keep_on_reset): the flash record
 * follows the zone states the poller already changed.
 *
 * Addresses: the namespace's LBAs are zoned sectors << lba_shift for the FTL, and zoned
 * sectors + base_sector in the data store and the poller's maps.
 */
#include "qemu/osdep.h"

#include "backend/ftl_status.h"
#include "cmd/core/cmd.h"
#include "cmd/core/cmd_set.h"
#include "cmd/health/media.h"
#include "cmd/health/smart.h"
#include "cmd/io/nvm.h"
#include "cmd/io/zns.h"
#include "ctrl/dma.h"

#define FEMU_ZNS_SELECT_ALL     (1u << 8)   /* Zone Management Send CDW13: Select All */
#define FEMU_ZNS_ZRWA_ALLOC     (1u << 9)   /* ... Zone Random Write Area allocation */
#define FEMU_ZNS_PARTIAL        (1u << 16)  /* Zone Management Receive CDW13: Partial */
#define FEMU_ZNS_REPORT_HEADER  64
#define FEMU_ZNS_DESCRIPTOR     64

/* The FTL's zoned sector of a namespace LBA, and back. */
static uint64_t femu_zns_sector(const FemuNamespace *ns, uint64_t lba)
{
    return lba << ns->lba_shift;
}

static uint64_t femu_zns_lba(const FemuNamespace *ns, uint64_t sector)
{
    return sector >> ns->lba_shift;
}

static bool femu_zns_range_ok(const FemuNamespace *ns, uint64_t slba, uint64_t nlb)
{
    return slba < ns->nsze && nlb <= ns->nsze - slba;
}

/* A reset or offline zone's data: gone from the store and the poller's maps. */
static void femu_zns_forget(FemuCtrl *n, const FemuNamespace *ns, uint64_t zone_sector,
                            uint64_t sectors)
{
    uint64_t first = ns->base_sector + zone_sector;

    data_store_discard(n->store, first * n->secsz, sectors * n->secsz);
    lba_bitmap_clear(&n->written, first, sectors);
    femu_media_clear(n, first, sectors);
}

/*
 * Write (at the write pointer), Zone Append (append: CDW10-11 is the zone's start and the
 * FTL assigns the LBAs) and Write Zeroes (zeroes: a write of zeroes, no data transfer).
 * The PRPs are checked before admission, so a bad PRP changes no zone.
 */
static uint16_t femu_zns_write_at(FemuCtrl *n, FemuNamespace *ns, const NvmeCmd *cmd,
                                  FemuRequest *req, bool append, bool zeroes)
{
    uint64_t slba = femu_cmd_slba(cmd);
    uint32_t nlb = femu_cmd_nlb(cmd);
    uint64_t bytes = nlb * ns->lba_bytes, sectors = (uint64_t)nlb << ns->lba_shift;
    uint64_t assigned, first;
    uint16_t status;
    int rc;

    if (!femu_zns_range_ok(ns, slba, nlb)) {
        return femu_dnr(NVME_LBA_RANGE);
    }
    if (!zeroes) {
        /* ZASL 0: an append's limit is MDTS, like a write's (Invalid Field beyond it) */
        status = femu_dma_prp_check(n, cmd, bytes, femu_max_transfer(n), FEMU_FROM_GUEST);
        if (status) {
            return femu_dnr(status);
        }
    }
    qemu_mutex_lock(&n->engine_lock);
    rc = ftl_zone_admit_write(n->ftl, femu_zns_sector(ns, slba), sectors, append, &assigned);
    qemu_mutex_unlock(&n->engine_lock);
    if (rc != FTL_OK) {
        return femu_ftl_status(rc);
    }
    first = ns->base_sector + assigned;
    if (zeroes) {
        data_store_discard(n->store, first * n->secsz, bytes);
    } else {
        status = femu_dma_prp(n, cmd, data_store_at(n->store, first * n->secsz), bytes,
                              UINT64_MAX, FEMU_FROM_GUEST);
        if (status) {
            /* The guest changed its memory since the check. The zone has moved on all
             * the same: the flash work goes ahead and the command reports the transfer. */
            data_store_discard(n->store, first * n->secsz, bytes);
            req->status_on_done = femu_dnr(status);
            req->error_lba = femu_zns_lba(ns, assigned);
        }
        femu_smart_write(n, ns, bytes);
    }
    lba_bitmap_set(&n->written, first, sectors);
    femu_media_clear(n, first, sectors);
    req->ftl.slba = append ? femu_zns_sector(ns, slba) : assigned;
    req->ftl.nlb = sectors;
    req->ftl.assigned = assigned;
    req->ftl.nsid = ns->nsid;
    femu_req_ftl(req, FTL_OP_ZONE_WRITE);
    req->ftl.flags = FTL_REQ_ADMITTED | (append ? FTL_REQ_APPEND : 0);
    req->keep_on_reset = true;
    if (append) {
        uint64_t lba = femu_zns_lba(ns, assigned);

        req->result = (uint32_t)lba;        /* CQE DW0 and DW1: the LBA written first */
        req->result_hi = lba >> 32;
    }
    return NVME_SUCCESS;
}

uint16_t femu_zns_write(FemuCtrl *n, FemuNamespace *ns, const NvmeCmd *cmd, FemuRequest *req)
{
    return femu_zns_write_at(n, ns, cmd, req, false, false);
}

uint16_t femu_zns_append(FemuCtrl *n, FemuNamespace *ns, const NvmeCmd *cmd, FemuRequest *req)
{
    return femu_zns_write_at(n, ns, cmd, req, true, false);
}

uint16_t femu_zns_write_zeroes(FemuCtrl *n, FemuNamespace *ns, const NvmeCmd *cmd,
                               FemuRequest *req)
{
    return femu_zns_write_at(n, ns, cmd, req, false, true);
}

/*
 * Read, Compare, Verify: the zone rules first (an offline zone cannot be read), then the
 * NVM command set's command (nvm_cmd) checks and moves the data; the flash work is the
 * zones'.
 */
static uint16_t femu_zns_read_as(FemuCtrl *n, FemuNamespace *ns, const NvmeCmd *cmd,
                                 FemuRequest *req, FemuIoFn *nvm_cmd)
{
    uint64_t slba = femu_cmd_slba(cmd);
    uint32_t nlb = femu_cmd_nlb(cmd);
    uint16_t status;
    int rc;

    if (!femu_zns_range_ok(ns, slba, nlb)) {
        return femu_dnr(NVME_LBA_RANGE);
    }
    qemu_mutex_lock(&n->engine_lock);
    rc = ftl_zone_admit_read(n->ftl, femu_zns_sector(ns, slba),
                             (uint64_t)nlb << ns->lba_shift);
    qemu_mutex_unlock(&n->engine_lock);
    if (rc != FTL_OK) {
        return femu_ftl_status(rc);
    }
    status = nvm_cmd(n, ns, cmd, req);
    if (status == NVME_SUCCESS && req->work != FEMU_WORK_NONE) {
        femu_req_ftl(req, FTL_OP_ZONE_READ);
        req->ftl.slba -= ns->base_sector;
        req->ftl.flags = FTL_REQ_ADMITTED;
    }
    return status;
}

uint16_t femu_zns_read(FemuCtrl *n, FemuNamespace *ns, const NvmeCmd *cmd, FemuRequest *req)
{
    return femu_zns_read_as(n, ns, cmd, req, femu_nvm_read);
}

uint16_t femu_zns_compare(FemuCtrl *n, FemuNamespace *ns, const NvmeCmd *cmd,
                          FemuRequest *req)
{
    return femu_zns_read_as(n, ns, cmd, req, femu_nvm_compare);
}

uint16_t femu_zns_verify(FemuCtrl *n, FemuNamespace *ns, const NvmeCmd *cmd,
                         FemuRequest *req)
{
    return femu_zns_read_as(n, ns, cmd, req, femu_nvm_verify);
}

/* Dataset Management: the zones' data stays until a zone reset, so it has no effect. */
uint16_t femu_zns_dsm(FemuCtrl *n, FemuNamespace *ns, const NvmeCmd *cmd, FemuRequest *req)
{
    return NVME_SUCCESS;
}

/*
 * Zone Management Send's action for the FTL: ZSA with ZSASO's ZRWA allocation (Open
 * only) or Flush Explicit ZRWA Range; 0 for an action femu does not take (Set Zone
 * Descriptor Extension: ZDES 0, no extensions) or an unknown one: Invalid Field. A ZRWA
 * action on a namespace without ZRWAs (OZCS.ZRWASUP clear) is an Invalid Zone Operation
 * Request instead, as QEMU's hw/nvme answers it (*unsupported).
 */
static uint32_t femu_zns_action(FemuCtrl *n, uint32_t dw13, bool *unsupported)
{
    uint32_t zsa = dw13 & 0xff;
    bool alloc = dw13 & FEMU_ZNS_ZRWA_ALLOC;
    struct ftl_zrwa_geometry zrwa;
    bool zrwa_on = ftl_zrwa_geometry(n->ftl, &zrwa);

    *unsupported = false;
    switch (zsa) {
    case FTL_ZONE_ACTION_OPEN:
        *unsupported = alloc && !zrwa_on;
        return alloc ? FTL_ZONE_ACTION_OPEN_ZRWA : zsa;
    case FTL_ZONE_ACTION_CLOSE:
    case FTL_ZONE_ACTION_FINISH:
    case FTL_ZONE_ACTION_RESET:
    case FTL_ZONE_ACTION_OFFLINE:
        return alloc ? 0 : zsa;
    case FTL_ZONE_ACTION_ZRWA_FLUSH:
        *unsupported = !zrwa_on;
        return alloc ? 0 : zsa;
    default:
        return 0;
    }
}

/*
 * Zone Management Send: CDW13 ZSA, Select All and ZSASO, CDW10-11 the zone's start, or
 * for Flush Explicit ZRWA Range the last LBA to commit (the FTL takes the last sector of
 * that LBA: it commits slba - wp + 1 sectors). Reset and Offline drop the zones' data;
 * a flush only commits what the data store already holds.
 */
uint16_t femu_zns_mgmt_send(FemuCtrl *n, FemuNamespace *ns, const NvmeCmd *cmd,
                            FemuRequest *req)
{
    uint32_t dw13 = femu_cdw(cmd, 13);
    bool unsupported;
    uint32_t zsa = femu_zns_action(n, dw13, &unsupported);
    bool all = dw13 & FEMU_ZNS_SELECT_ALL;
    uint64_t slba = femu_cmd_slba(cmd), zone_sectors = ftl_zone_size_sectors(n->ftl);
    uint64_t sector;
    g_autofree uint64_t *changed = NULL;
    struct ftl_range *zones;
    size_t count = 0;
    int rc;

    if (unsupported) {
        return femu_dnr(NVME_INVALID_ZONE_OP);
    }
    if (!zsa) {
        return femu_dnr(NVME_INVALID_FIELD);
    }
    if (!all && slba >= ns->nsze) {
        return femu_dnr(NVME_LBA_RANGE);
    }
    sector = all ? 0 : femu_zns_sector(ns, slba);
    if (zsa == FTL_ZONE_ACTION_ZRWA_FLUSH && !all) {
        sector = femu_zns_sector(ns, slba + 1) - 1;
    }
    changed = g_new(uint64_t, ftl_zone_count(n->ftl));
    qemu_mutex_lock(&n->engine_lock);
    rc = ftl_zone_admit_mgmt(n->ftl, sector, zsa, all, changed, &count);
    qemu_mutex_unlock(&n->engine_lock);
    if (rc != FTL_OK) {
        return femu_ftl_status(rc);
    }
    /* The FTL thread hears of every action, changes or not, so a recording replays. */
    zones = g_new(struct ftl_range, MAX(count, 1));
    req->ftl.ranges = zones;       /* owned by the request: freed with it */
    for (size_t i = 0; i < count; i++) {
        uint64_t start = changed[i] * zone_sectors;

        zones[i] = (struct ftl_range){ .slba = start, .nlb = zone_sectors };
        if (zsa == FTL_ZONE_ACTION_RESET || zsa == FTL_ZONE_ACTION_OFFLINE) {
            femu_zns_forget(n, ns, start, zone_sectors);
        }
    }
    req->ftl.nranges = count;
    req->ftl.zone_action = zsa;
    req->ftl.slba = sector;
    req->ftl.nlb = zone_sectors;
    req->ftl.nsid = ns->nsid;
    femu_req_ftl(req, FTL_OP_ZONE_MGMT);
    req->ftl.flags = FTL_REQ_ADMITTED | (all ? FTL_REQ_ZONE_ALL : 0);
    req->keep_on_reset = true;
    return NVME_SUCCESS;
}

/* Zone Receive Action Specific Field: the state a report is filtered on (0: all). */
static bool femu_zns_report_wants(uint32_t zrasf, uint8_t state)
{
    static const uint8_t filter_state[] = {
        [NVME_ZONE_REPORT_EMPTY] = FTL_ZONE_EMPTY,
        [NVME_ZONE_REPORT_IMPLICITLY_OPEN] = FTL_ZONE_IMPLICIT_OPEN,
        [NVME_ZONE_REPORT_EXPLICITLY_OPEN] = FTL_ZONE_EXPLICIT_OPEN,
        [NVME_ZONE_REPORT_CLOSED] = FTL_ZONE_CLOSED,
        [NVME_ZONE_REPORT_FULL] = FTL_ZONE_FULL,
        [NVME_ZONE_REPORT_READ_ONLY] = FTL_ZONE_READ_ONLY,
        [NVME_ZONE_REPORT_OFFLINE] = FTL_ZONE_OFFLINE,
    };

    return zrasf == NVME_ZONE_REPORT_ALL || filter_state[zrasf] == state;
}

static void femu_zns_descriptor(const FemuNamespace *ns, const struct ftl_zone_info *zone,
                                uint8_t *desc)
{
    desc[0] = NVME_ZONE_TYPE_SEQ_WRITE;             /* ZT */
    desc[1] = zone->state << 4;                     /* ZS, bits 7:4 */
    desc[2] = zone->zrwa ? NVME_ZA_ZRWA_VALID : 0;  /* ZA; WP below: the committed one */
    stq_le_p(desc + 8, femu_zns_lba(ns, zone->cap));
    stq_le_p(desc + 16, femu_zns_lba(ns, zone->start));
    stq_le_p(desc + 24, femu_zns_lba(ns, zone->wp));
}

/*
 * Zone Management Receive, Report Zones: from the zone holding SLBA (CDW10-11) upward,
 * the zones in the state ZRASF selects, into NUMD + 1 dwords (CDW12, within MDTS): a
 * 64-byte header whose Number of Zones counts every matching zone, or with Partial Report
 * (CDW13 bit 16) the descriptors returned, then one 64-byte descriptor per zone that
 * fits. Extended reports are Invalid Field: there are no descriptor extensions.
 */
uint16_t femu_zns_mgmt_recv(FemuCtrl *n, FemuNamespace *ns, const NvmeCmd *cmd,
                            FemuRequest *req)
{
    uint64_t slba = femu_cmd_slba(cmd), len = ((uint64_t)femu_cdw(cmd, 12) + 1) * 4;
    uint32_t dw13 = femu_cdw(cmd, 13);
    uint32_t zra = dw13 & 0xff, zrasf = (dw13 >> 8) & 0xff;
    bool partial = dw13 & FEMU_ZNS_PARTIAL;
    uint64_t zones = ftl_zone_count(n->ftl), zone, room, matched = 0, returned = 0;
    g_autofree uint8_t *buf = NULL;
    uint16_t status;

    if (zra != NVME_ZONE_REPORT || zrasf > NVME_ZONE_REPORT_OFFLINE) {
        return femu_dnr(NVME_INVALID_FIELD);
    }
    if (slba >= ns->nsze) {
        return femu_dnr(NVME_LBA_RANGE);
    }
    status = femu_dma_prp_check(n, cmd, len, femu_max_transfer(n), FEMU_TO_GUEST);
    if (status) {
        return femu_dnr(status);
    }
    zone = femu_zns_sector(ns, slba) / ftl_zone_size_sectors(n->ftl);
    room = MIN(len > FEMU_ZNS_REPORT_HEADER ?
               (len - FEMU_ZNS_REPORT_HEADER) / FEMU_ZNS_DESCRIPTOR : 0, zones - zone);
    buf = g_malloc0(FEMU_ZNS_REPORT_HEADER + room * FEMU_ZNS_DESCRIPTOR);
    qemu_mutex_lock(&n->engine_lock);
    for (; zone < zones && !(partial && returned == room); zone++) {
        struct ftl_zone_info info;

        ftl_zone_get(n->ftl, zone, &info);
        if (!femu_zns_report_wants(zrasf, info.state)) {
            continue;
        }
        matched++;
        if (returned < room) {
            femu_zns_descriptor(ns, &info, buf + FEMU_ZNS_REPORT_HEADER +
                                returned++ * FEMU_ZNS_DESCRIPTOR);
        }
    }
    qemu_mutex_unlock(&n->engine_lock);
    stq_le_p(buf, partial ? returned : matched);
    /* Only the bytes built move, but the PRPs name NUMD's buffer (PRP2 a list or not). */
    status = femu_dma_prp_part(n, cmd, buf, MIN(len, FEMU_ZNS_REPORT_HEADER +
                                                     returned * FEMU_ZNS_DESCRIPTOR),
                               len, femu_max_transfer(n), FEMU_TO_GUEST);
    return status ? femu_dnr(status) : NVME_SUCCESS;
}
