/*
 * Features 1Dh (Flexible Data Placement) and 1Eh (FDP Events), poller thread. Both are
 * offered only with placement=fdp (else Invalid Field, as any unknown FID) and, like
 * every femu feature, none is saveable (SV set: Feature Identifier Not Saveable).
 *
 * 1Dh is the endurance group's: CDW11 bits 15:0 ENDGID (the group, 1, or Invalid Field);
 * the value, CDW12 of Set and DW0 of Get, has FDPE in bit 0 and FDPCIDX in bits 15:8.
 * FDP is on in configuration 0 at power-on, which is also its default. A Set that changes
 * the value while a namespace exists in the group is Command Sequence Error and changes
 * nothing (NVMe base specification 2.1; QEMU's hw/nvme answers the same); one that does
 * not change it succeeds at once. A change clears the FDP events, the statistics (log
 * 22h counts afresh) and every event enable. A controller reset keeps the value: it is
 * the group's, and its namespaces were made under it.
 *
 * 1Eh is a reclaim unit handle's, named by a namespace's placement handle: NSID (an
 * active namespace), CDW11 bits 15:0 PHNDL (one the namespace has, else Invalid Field),
 * bits 23:16 NOET. Set enables (CDW12 bit 0 FDPEE 1) or disables the NOET event types
 * of its data buffer, one byte each; one femu does not raise is Invalid Field and nothing
 * changes. Get returns up to NOET descriptors of the types femu raises, two bytes each
 * (type, bit 0 enabled), ascending, and their count in DW0. With FDP disabled both are
 * FDP Disabled. Namespaces sharing a handle share its enables; a controller reset keeps
 * them (the handle's, like 1Dh), a configuration change clears them.
 */
#include "qemu/osdep.h"

#include "cmd/cmd.h"
#include "cmd/fdp.h"
#include "cmd/fdp_events.h"
#include "cmd/fdp_features.h"
#include "cmd/ns_table.h"
#include "ctrl/dma.h"

#define FEMU_FDP_FEAT_FDPE          (1u << 0)
#define FEMU_FDP_FEAT_CIDX_SHIFT    8
#define FEMU_FDP_EVENTS_FDPEE       (1u << 0)
#define FEMU_FDP_EVENT_DESC_BYTES   2

static bool femu_fdp_endgid_ok(const NvmeCmd *cmd)
{
    return (femu_cdw(cmd, 11) & 0xffff) == FEMU_ENDGID;
}

uint16_t femu_fdp_get_feature(FemuCtrl *n, const NvmeCmd *cmd, unsigned sel,
                              FemuRequest *req)
{
    if (!femu_fdp_endgid_ok(cmd)) {
        return femu_dnr(NVME_INVALID_FIELD);
    }
    /* Configuration 0 (FDPCIDX 0) either way; the default is FDP on. */
    req->result = sel == 0 && !n->fdp.enabled ? 0 : FEMU_FDP_FEAT_FDPE;
    return NVME_SUCCESS;
}

/* A conventional namespace exists in the group (attached or not). */
static bool femu_fdp_group_has_namespaces(FemuCtrl *n)
{
    for (uint32_t nsid = 1; nsid <= FEMU_MAX_NAMESPACES; nsid++) {
        if (femu_fdp_in_group(&n->ns[nsid])) {
            return true;
        }
    }
    return false;
}

uint16_t femu_fdp_set_feature(FemuCtrl *n, const NvmeCmd *cmd, FemuRequest *req)
{
    uint32_t dw12 = femu_cdw(cmd, 12);
    bool enable = dw12 & FEMU_FDP_FEAT_FDPE;
    unsigned cidx = (dw12 >> FEMU_FDP_FEAT_CIDX_SHIFT) & 0xff;

    if (!femu_fdp_endgid_ok(cmd) || (enable && cidx != 0)) {
        return femu_dnr(NVME_INVALID_FIELD);       /* one group, one configuration */
    }
    if (enable == n->fdp.enabled) {
        return NVME_SUCCESS;
    }
    if (femu_fdp_group_has_namespaces(n)) {
        return femu_dnr(NVME_CMD_SEQ_ERROR);
    }
    femu_fdp_configured(n, enable);
    return NVME_SUCCESS;
}

/* 1Eh's target: the handle an active namespace's placement handle (CDW11[15:0]) names. */
static uint16_t femu_fdp_events_target(FemuCtrl *n, const NvmeCmd *cmd, uint32_t *ruh)
{
    FemuNamespace *ns;
    uint16_t status;

    if (!n->fdp.enabled) {
        return femu_dnr(NVME_FDP_DISABLED);
    }
    status = femu_ns_for_io(n, le32_to_cpu(cmd->nsid), &ns);
    if (status) {
        return status;
    }
    if (!femu_fdp_handle(ns, femu_cdw(cmd, 11) & 0xffff, ruh)) {
        return femu_dnr(NVME_INVALID_FIELD);
    }
    return NVME_SUCCESS;
}

uint16_t femu_fdp_get_events_feature(FemuCtrl *n, const NvmeCmd *cmd, unsigned sel,
                                     FemuRequest *req)
{
    unsigned noet = (femu_cdw(cmd, 11) >> 16) & 0xff, count = 0;
    uint8_t descs[FEMU_FDP_EVT_TYPES * FEMU_FDP_EVENT_DESC_BYTES];
    uint32_t ruh;
    uint16_t status = femu_fdp_events_target(n, cmd, &ruh);

    if (status) {
        return status;
    }
    for (uint8_t type = 0; type < FEMU_FDP_EVT_TYPES && count < noet; type++, count++) {
        descs[2 * count] = type;
        descs[2 * count + 1] = sel == 0 && femu_fdp_event_enabled(n, ruh, type);
    }
    if (count) {
        status = femu_dma_prp(n, cmd, descs, count * FEMU_FDP_EVENT_DESC_BYTES, UINT64_MAX,
                              FEMU_TO_GUEST);
        if (status) {
            return femu_dnr(status);
        }
    }
    req->result = count;
    return NVME_SUCCESS;
}

uint16_t femu_fdp_set_events_feature(FemuCtrl *n, const NvmeCmd *cmd, FemuRequest *req)
{
    unsigned noet = (femu_cdw(cmd, 11) >> 16) & 0xff;
    bool enable = femu_cdw(cmd, 12) & FEMU_FDP_EVENTS_FDPEE;
    uint8_t types[256];
    uint32_t ruh;
    uint16_t status = femu_fdp_events_target(n, cmd, &ruh);

    if (status || noet == 0) {
        return status;
    }
    status = femu_dma_prp(n, cmd, types, noet, UINT64_MAX, FEMU_FROM_GUEST);
    if (status) {
        return femu_dnr(status);
    }
    for (unsigned i = 0; i < noet; i++) {
        if (!femu_fdp_event_supported(types[i])) {
            return femu_dnr(NVME_INVALID_FIELD);
        }
    }
    for (unsigned i = 0; i < noet; i++) {
        femu_fdp_event_enable(n, ruh, types[i], enable);
    }
    return NVME_SUCCESS;
}
