/*
 * Key Value namespaces (CSI 01h) in the namespace table (poller thread): kv_ns_mb's at
 * realize, Namespace Management's create with CSI 01h, and the end of one (delete,
 * unrealize). A KV namespace is a range of the conventional sectors holding the FTL's KV
 * store of its NSID (ftl_kv_create) and the device's value bytes (store/kv_values.h).
 */
#include "qemu/osdep.h"
#include "qapi/error.h"

#include "backend/ftl_thread.h"
#include "cmd/admin/ns_kv.h"
#include "cmd/admin/ns_space.h"
#include "cmd/core/cmd.h"
#include "cmd/core/cmd_set.h"
#include "cmd/core/ns_table.h"
#include "ctrl/dma.h"
#include "femu_ftl/kv.h"
#include "store/kv_values.h"

/* Make ns (initialised over its range) a KV namespace of capacity_bytes: false, with err. */
static bool femu_ns_make_kv(FemuCtrl *n, FemuNamespace *ns, uint64_t capacity_bytes,
                            char *err, size_t errlen)
{
    int rc;

    ns->kv_values = kv_values_create();
    if (!ns->kv_values) {
        snprintf(err, errlen, "out of memory");
        return false;
    }
    if (n->engine_lock_init) {     /* not yet at realize: no other thread then */
        qemu_mutex_lock(&n->engine_lock);
    }
    rc = ftl_kv_create(n->ftl, ns->nsid, ns->base_sector, ns->sectors, capacity_bytes, err,
                       errlen);
    if (rc == 0) {
        femu_ftl_kv_life(n, ns->nsid, true, femu_now_ns());     /* into the recording */
    }
    if (n->engine_lock_init) {
        qemu_mutex_unlock(&n->engine_lock);
    }
    if (rc != 0) {
        kv_values_destroy(ns->kv_values);
        ns->kv_values = NULL;
        return false;
    }
    ns->kv = true;
    femu_cmd_set_select(n, ns);
    return true;
}

/* A KV namespace's end: the FTL's store and the value bytes (the range is the caller's). */
void femu_ns_drop_kv(FemuCtrl *n, FemuNamespace *ns)
{
    if (!ns->kv) {
        return;
    }
    qemu_mutex_lock(&n->engine_lock);
    femu_ftl_kv_life(n, ns->nsid, false, femu_now_ns());    /* after what was fetched */
    qemu_mutex_unlock(&n->engine_lock);
    kv_values_destroy(ns->kv_values);
    ns->kv_values = NULL;
    ns->kv = false;
}

void femu_ns_release(FemuCtrl *n)
{
    for (uint32_t nsid = 1; nsid <= FEMU_MAX_NAMESPACES; nsid++) {
        kv_values_destroy(n->ns[nsid].kv_values);
        n->ns[nsid].kv_values = NULL;
    }
}

/*
 * kv_ns_mb: the FTL sectors the KV namespace needs at the end of the conventional space
 * (0: none), or false with one line naming kv_ns_mb.
 */
bool femu_ns_kv_sectors(FemuCtrl *n, uint64_t *sectors, Error **errp)
{
    uint64_t bytes = (uint64_t)n->kv_ns_mb << 20;

    *sectors = 0;
    n->kv_offered = n->kv_ns_mb > 0;
    if (!n->kv_offered) {
        return true;
    }
    if (n->ftl_config.placement == FTL_PLACEMENT_FDP) {
        error_setg(errp, "kv_ns_mb: a Key Value namespace cannot be placed by FDP "
                   "(placement=fdp); use another placement");
        return false;
    }
    *sectors = ftl_kv_region_sectors(n->ftl, bytes);
    if (*sectors == 0 || *sectors >= n->capacity_sectors) {
        error_setg(errp, "kv_ns_mb: a KV namespace of %u MiB (with its index and "
                   "over-provisioning) does not fit beside an NVM namespace in the FTL's "
                   "%" PRIu64 " MiB", n->kv_ns_mb, n->capacity_sectors * n->secsz >> 20);
        return false;
    }
    return true;
}

bool femu_ns_realize_kv(FemuCtrl *n, uint32_t nsid, uint64_t sectors, Error **errp)
{
    char err[256];

    if (sectors == 0) {
        return true;
    }
    if (!femu_nsid_valid(nsid)) {
        error_setg(errp, "kv_ns_mb: %d namespaces leave no NSID for the KV namespace",
                   FEMU_MAX_NAMESPACES);
        return false;
    }
    femu_ns_init(n, &n->ns[nsid], nsid, n->capacity_sectors - sectors, sectors, 0);
    if (!femu_ns_make_kv(n, &n->ns[nsid], (uint64_t)n->kv_ns_mb << 20, err, sizeof(err))) {
        error_setg(errp, "kv_ns_mb: %s", err);
        n->ns[nsid].allocated = false;
        return false;
    }
    n->ns[nsid].attached = true;
    return true;
}

/*
 * Create with CSI 01h: a KV namespace. The host's data structure is the KV Identify
 * Namespace one (KV Command Set 1.0): NSZE, bytes 7:0, its capacity in value bytes; the
 * rest femu does not take (one KV format). The FTL sizes the range (values, their
 * over-provisioning, the index pages: ftl_kv_region_sectors).
 */
uint16_t femu_ns_create_kv(FemuCtrl *n, const NvmeCmd *cmd, FemuRequest *req)
{
    g_autofree uint8_t *id = g_malloc0(NVME_IDENTIFY_DATA_SIZE);
    uint64_t capacity, sectors, base;
    char err[256];
    uint32_t nsid;
    uint16_t status;

    if (!femu_kv_offered(n)) {
        return femu_dnr(NVME_INVALID_FIELD);       /* no KV command set without kv_ns_mb */
    }
    status = femu_dma_prp(n, cmd, id, NVME_IDENTIFY_DATA_SIZE, UINT64_MAX, FEMU_FROM_GUEST);
    if (status) {
        return femu_dnr(status);
    }
    capacity = ldq_le_p(id);
    if (capacity == 0) {
        return femu_dnr(NVME_INVALID_FIELD);
    }
    sectors = ftl_kv_region_sectors(n->ftl, capacity);
    if (sectors == 0) {
        return femu_dnr(FEMU_NS_INSUFFICIENT_CAPACITY);
    }
    nsid = femu_ns_free_nsid(n);
    if (nsid == 0) {
        return femu_dnr(FEMU_NS_ID_UNAVAILABLE);
    }
    if (!femu_ns_find_extent(n, sectors, &base)) {
        return femu_dnr(FEMU_NS_INSUFFICIENT_CAPACITY);
    }
    femu_ns_init(n, &n->ns[nsid], nsid, base, sectors, 0);
    femu_ns_forget_data(n, base, sectors);
    if (!femu_ns_make_kv(n, &n->ns[nsid], capacity, err, sizeof(err))) {
        n->ns[nsid].allocated = false;
        return NVME_INTERNAL_DEV_ERROR;
    }
    req->result = nsid;
    return NVME_SUCCESS;
}
