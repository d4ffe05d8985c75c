/*
 * Flexible Data Placement's endurance group (poller thread), NVMe base specification 2.1
 * and NVM command set 1.1 (TP4146).
 *
 * With placement=fdp the device offers FDP (CTRATT.FDPS) in one endurance group, ENDGID
 * 1, holding every conventional namespace (the zoned namespace, whose zones are no
 * reclaim units, is in none: ENDGID 0). It has one FDP configuration: one reclaim group
 * (NRG 1, RGIF 0, so a placement identifier is a placement handle), and the FTL's
 * reclaim unit handles, fdp_ruhs of them. FDP is enabled in that configuration at
 * power-on; feature 1Dh turns it off and on while the group has no namespace.
 *
 * A namespace maps its placement handles to handles: PHNDL i -> phndl_ruh[i]. The
 * namespaces made at realize (or restored from a state file) get every handle, PHNDL i
 * -> RUH i. Namespace Management create takes the host's list (NPHNDLS, the list at byte
 * 512); without one the controller chooses one handle for PHNDL 0, the same for every
 * such namespace (the spec's rule). A write names its placement handle with DTYPE 2 and
 * DSPEC; without DTYPE it goes to PHNDL 0.
 */
#include "qemu/osdep.h"

#include "backend/fdp_events.h"
#include "backend/ftl_view.h"
#include "cmd/fdp/fdp.h"
#include "ctrl/request.h"
#include "ctrl/wake.h"

#define FEMU_DTYPE_PLACEMENT            2       /* Data Placement directive */
/* The host's data structure of a Namespace Management create (NVM command set). */
#define FEMU_NS_MGMT_ENDGID             102     /* 2 bytes */
#define FEMU_NS_MGMT_NPHNDLS            392     /* 2 bytes */
#define FEMU_NS_MGMT_PHNDL_LIST         512     /* 2 bytes per RUH identifier */
#define FEMU_FDP_MAX_PHNDLS             128     /* NPHNDLS at most (and at most NRUH) */

void femu_fdp_realize(FemuCtrl *n)
{
    FemuFdp *fdp = &n->fdp;

    fdp->ruhs = ftl_fdp_ruhs(n->ftl);
    fdp->ru_bytes = ftl_fdp_ru_pages(n->ftl) * n->geometry.page_bytes;
    fdp->supported = fdp->ruhs > 0;
    fdp->enabled = fdp->saved_enabled = fdp->supported;
    femu_fdp_events_init(n);
    femu_fdp_handles_every(n);
}

void femu_fdp_handles_every(FemuCtrl *n)
{
    FemuFdpHandles all = { .nphndls = n->fdp.ruhs };

    for (uint32_t ruh = 0; ruh < n->fdp.ruhs; ruh++) {
        all.ruh[ruh] = ruh;
    }
    for (uint32_t nsid = 1; nsid <= FEMU_MAX_NAMESPACES; nsid++) {
        FemuNamespace *ns = &n->ns[nsid];

        femu_fdp_ns_apply(ns, femu_fdp_in_group(ns) && n->fdp.enabled ? &all : NULL);
    }
}

void femu_fdp_release(FemuCtrl *n)
{
    femu_fdp_events_destroy(n);
}

bool femu_fdp_offered(FemuCtrl *n)
{
    return n->fdp.supported;
}

bool femu_fdp_in_group(const FemuNamespace *ns)
{
    return ns->allocated && !ns->zoned;
}

bool femu_fdp_group_has_namespaces(FemuCtrl *n)
{
    for (uint32_t nsid = 1; nsid <= FEMU_MAX_NAMESPACES; nsid++) {
        if (femu_fdp_in_group(&n->ns[nsid])) {
            return true;
        }
    }
    return false;
}

bool femu_fdp_handle(const FemuNamespace *ns, uint32_t phndl, uint32_t *ruh)
{
    if (phndl >= ns->nphndls) {
        return false;
    }
    *ruh = ns->phndl_ruh[phndl];
    return true;
}

static bool femu_fdp_ns_lists(const FemuNamespace *ns, uint32_t ruh)
{
    for (unsigned i = 0; i < ns->nphndls; i++) {
        if (ns->phndl_ruh[i] == ruh) {
            return true;
        }
    }
    return false;
}

uint8_t femu_fdp_ruh_usage(FemuCtrl *n, uint32_t ruh)
{
    uint8_t usage = FEMU_RUHA_UNUSED;

    for (uint32_t nsid = 1; nsid <= FEMU_MAX_NAMESPACES; nsid++) {
        const FemuNamespace *ns = &n->ns[nsid];

        if (femu_fdp_in_group(ns) && femu_fdp_ns_lists(ns, ruh)) {
            usage = ns->phndl_chosen ? FEMU_RUHA_CONTROLLER : FEMU_RUHA_HOST;
        }
    }
    return usage;
}

/* The handle every namespace created without a list shares: the one already chosen,
 * else the lowest no namespace uses. False when every handle is the host's. */
static bool femu_fdp_choose(FemuCtrl *n, uint32_t *chosen)
{
    for (uint32_t ruh = 0; ruh < n->fdp.ruhs; ruh++) {
        if (femu_fdp_ruh_usage(n, ruh) == FEMU_RUHA_CONTROLLER) {
            *chosen = ruh;
            return true;
        }
    }
    for (uint32_t ruh = 0; ruh < n->fdp.ruhs; ruh++) {
        if (femu_fdp_ruh_usage(n, ruh) == FEMU_RUHA_UNUSED) {
            *chosen = ruh;
            return true;
        }
    }
    return false;
}

/* Namespaces sharing a handle have one LBA format (else Invalid Format). */
static bool femu_fdp_format_shared(FemuCtrl *n, uint32_t ruh, uint8_t flbas)
{
    for (uint32_t nsid = 1; nsid <= FEMU_MAX_NAMESPACES; nsid++) {
        const FemuNamespace *ns = &n->ns[nsid];

        if (femu_fdp_in_group(ns) && femu_fdp_ns_lists(ns, ruh) && ns->flbas != flbas) {
            return false;
        }
    }
    return true;
}

/*
 * The placement handle list of a create: with FDP enabled, NPHNDLS handles listed from
 * byte 512 (each below NRUH, none twice, none the controller chose for namespaces
 * without a list; NPHNDLS at most NRUH and 128), else Invalid Placement Handle List; or
 * NPHNDLS 0: the controller's handle. ENDGID must be 0 or the group's. With FDP disabled
 * the fields are reserved and the namespace gets no handle.
 */
uint16_t femu_fdp_ns_handles(FemuCtrl *n, const uint8_t *host_data, uint8_t flbas,
                             FemuFdpHandles *out)
{
    uint16_t endgid = lduw_le_p(host_data + FEMU_NS_MGMT_ENDGID);
    uint16_t count = lduw_le_p(host_data + FEMU_NS_MGMT_NPHNDLS);
    uint32_t seen = 0;

    memset(out, 0, sizeof(*out));
    if (!n->fdp.supported) {
        return NVME_SUCCESS;
    }
    if (endgid != 0 && endgid != FEMU_ENDGID) {
        return femu_dnr(NVME_INVALID_FIELD);
    }
    if (!n->fdp.enabled) {
        return NVME_SUCCESS;
    }
    if (count == 0) {
        uint32_t chosen;

        if (!femu_fdp_choose(n, &chosen)) {
            return femu_dnr(FEMU_INVALID_PLACEMENT_HANDLE_LIST);
        }
        if (!femu_fdp_format_shared(n, chosen, flbas)) {
            return femu_dnr(NVME_INVALID_FORMAT);
        }
        *out = (FemuFdpHandles){ .nphndls = 1, .ruh = { chosen }, .chosen = true };
        return NVME_SUCCESS;
    }
    if (count > n->fdp.ruhs || count > FEMU_FDP_MAX_PHNDLS) {
        return femu_dnr(FEMU_INVALID_PLACEMENT_HANDLE_LIST);
    }
    for (unsigned i = 0; i < count; i++) {
        uint16_t ruh = lduw_le_p(host_data + FEMU_NS_MGMT_PHNDL_LIST + 2 * i);

        if (ruh >= n->fdp.ruhs || (seen >> ruh & 1) ||
            femu_fdp_ruh_usage(n, ruh) == FEMU_RUHA_CONTROLLER) {
            return femu_dnr(FEMU_INVALID_PLACEMENT_HANDLE_LIST);
        }
        seen |= 1u << ruh;
        out->ruh[i] = ruh;
    }
    for (unsigned i = 0; i < count; i++) {
        if (!femu_fdp_format_shared(n, out->ruh[i], flbas)) {
            return femu_dnr(NVME_INVALID_FORMAT);
        }
    }
    out->nphndls = count;
    return NVME_SUCCESS;
}

/* handles NULL: none (not in the group, or FDP off). */
void femu_fdp_ns_apply(FemuNamespace *ns, const FemuFdpHandles *handles)
{
    ns->nphndls = handles ? handles->nphndls : 0;
    ns->phndl_chosen = handles && handles->chosen;
    memset(ns->phndl_ruh, 0, sizeof(ns->phndl_ruh));
    if (handles) {
        memcpy(ns->phndl_ruh, handles->ruh, handles->nphndls);
    }
}

/*
 * Where a Write (or a Write Zeroes that writes) goes, from CDW12 DTYPE (bits 23:20) and
 * CDW13 DSPEC (bits 31:16). FDP enabled: DTYPE 2 names placement identifier DSPEC, which
 * is the placement handle (RGIF 0); DTYPE 0 is placement handle 0; another DTYPE is
 * Invalid Field (no other directive is enabled). A placement handle the namespace lacks
 * does not fail the write: it goes to placement handle 0 and an Invalid Placement
 * Identifier event is recorded (NVMe base specification 2.1, Flexible Data Placement:
 * the controller chooses a reclaim unit handle the namespace may use). FDP disabled, or
 * not offered at all: DTYPE 2 is Invalid Field (no Data Placement directive to apply) and
 * the write goes where it would without FDP (with placement=fdp, the FTL's handle 0).
 */
uint16_t femu_fdp_place(FemuCtrl *n, const FemuNamespace *ns, const NvmeCmd *cmd,
                        FemuFdpPlacement *out)
{
    uint32_t dtype = (le32_to_cpu(cmd->cdw12) >> 20) & 0xf;
    uint16_t dspec = le32_to_cpu(cmd->cdw13) >> 16;

    memset(out, 0, sizeof(*out));
    if (!n->fdp.enabled) {
        return dtype == FEMU_DTYPE_PLACEMENT ? femu_dnr(NVME_INVALID_FIELD) : NVME_SUCCESS;
    }
    if (dtype != 0 && dtype != FEMU_DTYPE_PLACEMENT) {
        return femu_dnr(NVME_INVALID_FIELD);
    }
    out->named = true;
    if (dtype == FEMU_DTYPE_PLACEMENT && femu_fdp_handle(ns, dspec, &out->ruh)) {
        out->phndl = dspec;
        return NVME_SUCCESS;
    }
    if (dtype == FEMU_DTYPE_PLACEMENT) {
        out->invalid_pid = true;
        out->pid = dspec;
    }
    out->phndl = 0;
    if (!femu_fdp_handle(ns, 0, &out->ruh)) {
        out->ruh = 0;           /* not in the group: no handle of its own */
        out->named = false;
    }
    return NVME_SUCCESS;
}

void femu_fdp_placed(FemuCtrl *n, const FemuNamespace *ns, const FemuFdpPlacement *place,
                     FemuRequest *req)
{
    if (!n->fdp.supported) {
        return;
    }
    req->ftl.stream = place->ruh;
    if (place->named) {
        req->fdp_named |= 1u << place->ruh;
        req->fdp_phndl[place->ruh] = place->phndl;
    }
    if (place->invalid_pid) {
        FemuFdpEventInfo ev = {
            .type = FEMU_FDP_EVT_INVALID_PID, .ruh = place->ruh, .nsid = ns->nsid,
            .pid_valid = true, .pid = place->pid, .time_ns = req->ftl.arrival_ns,
            .ru = UINT32_MAX,
        };

        femu_fdp_event_add(n, &ev);
    }
}

uint64_t femu_fdp_media_pages(const struct ftl_counters *ctr)
{
    return ftl_nand_programs(ctr) + ctr->nand_copybacks;
}

/* A new configuration (or none): no event, no statistic of the old one survives, and no
 * event type stays enabled. */
void femu_fdp_configured(FemuCtrl *n, bool enable)
{
    FemuFtlView view;

    femu_ftl_view_get(n, &view);
    n->fdp.enabled = enable;
    n->fdp.base_host_bytes = view.ctr.host_write_bytes;
    n->fdp.base_copy_pages = view.ctr.copy_pages;
    n->fdp.base_programs = femu_fdp_media_pages(&view.ctr);
    n->fdp.base_erases = view.ctr.nand_erases;
    femu_fdp_events_clear(n);
    femu_fdp_events_disable_all(n);
}

/*
 * Controller reset with FDP on (femu's model: NVMe lets a controller level reset modify
 * reclaim unit handles): every handle's open RU is closed as it is, through an
 * FTL_OP_RUH_UPDATE of every handle, served after the work queued before the reset. The
 * FTL reports each closed RU, recorded as Controller Level Reset Modified Reclaim Unit
 * Handles on the handles of report (backend/fdp_ftl.c). The request is internal: no
 * completion. When every request is in flight (the guest holds them all in full CQs)
 * there is none to send and the RUs stay open.
 */
void femu_fdp_reset_handles(FemuCtrl *n, uint32_t report)
{
    FemuRequest *req = femu_req_alloc(n);

    if (!req) {
        return;
    }
    memset(req, 0, offsetof(FemuRequest, list_next));
    req->internal = true;
    req->epoch = n->epoch;
    req->keep_on_reset = true;
    req->ftl.arrival_ns = femu_now_ns();
    femu_req_ftl(req, FTL_OP_RUH_UPDATE);
    req->ruh_update = (uint32_t)((UINT64_C(1) << n->fdp.ruhs) - 1);
    req->fdp_reset_report = report;
    spsc_ring_push(n->to_ftl, req);     /* the ring holds the whole pool */
    femu_ftl_kick(n);
}
