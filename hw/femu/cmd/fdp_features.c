/*
 * Features 1Dh (Flexible Data Placement) and 1Eh (FDP Events), poller thread. Both are
 * offered only with placement=fdp (else Invalid Field, as any unknown FID), and both are
 * saveable (NVMe base specification 2.1: "This Feature shall be saveable"): Set Features
 * with SV sets the current and the saved value, without it the current value only; Get
 * Features SEL 2 returns the saved value (the default until one is saved), SEL 3 says
 * saveable and changeable (1Eh also namespace specific).
 *
 * 1Dh is the endurance group's: CDW11 bits 15:0 ENDGID (the group, 1, or Invalid Field);
 * the value, CDW12 of Set and DW0 of Get, has FDPE in bit 0 and FDPCIDX in bits 15:8.
 * FDP is on in configuration 0 at power-on, which is also its default. A Set that changes
 * the current value while a namespace exists in the group is Command Sequence Error and
 * changes nothing, the saved value neither (NVMe base specification 2.1; QEMU's hw/nvme
 * answers the same); one that does not change it succeeds at once (and saves with SV). A
 * change clears the FDP events, the statistics (log 22h counts afresh) and every current
 * event enable; the saved enables stay (one configuration: a saved enable names the same
 * handle whenever FDP is on).
 *
 * 1Eh is a reclaim unit handle's, named by a namespace's placement handle: NSID (an
 * active namespace), CDW11 bits 15:0 PHNDL (one the namespace has, else Invalid Field),
 * bits 23:16 NOET. Set enables (CDW12 bit 0 FDPEE 1) or disables the NOET event types
 * of its data buffer, one byte each, in the current enables and with SV in the saved ones
 * too (the types not listed keep theirs); one femu does not raise is Invalid Field and
 * nothing changes. Get returns up to NOET descriptors of the types femu raises, two bytes
 * each (type, bit 0 enabled), ascending, and their count in DW0. With FDP disabled both
 * are FDP Disabled. Namespaces sharing a handle share its enables.
 *
 * Resets. femu is an NVM subsystem of one controller, so after a Controller Level Reset
 * a saveable feature's current value is its saved value (NVMe base specification 2.1,
 * Feature Values). For 1Eh that is plain: every handle's enables become the saved ones
 * (none while FDP is off). 1Dh's value may change only while no namespace exists in the
 * group, so a reset applies a saved 1Dh that differs from the current one only when the
 * group is empty, as a configuration change like a Set's; while namespaces exist they
 * keep the configuration they were made under, and the saved value waits for a reset (or
 * a restored state, a power-on: cmd/fdp_state.c keeps both values) that finds the group
 * empty. femu never changes a configuration under its namespaces.
 *
 * A reset also closes every open RU (cmd/fdp.c). Its Controller Level Reset events are
 * recorded on the handles that had that type enabled when the reset came, so a host that
 * enabled them without saving still learns what the reset did; none when the reset
 * changed the configuration (the new one's events start empty).
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
#define FEMU_FEAT_SEL_CURRENT       0
#define FEMU_FEAT_SEL_SAVED         2

static bool femu_fdp_endgid_ok(const NvmeCmd *cmd)
{
    return (femu_cdw(cmd, 11) & 0xffff) == FEMU_ENDGID;
}

/* Set Features' SV (CDW10 bit 31): the saved value too. */
static bool femu_fdp_save(const NvmeCmd *cmd)
{
    return femu_cdw(cmd, 10) >> 31;
}

uint16_t femu_fdp_get_feature(FemuCtrl *n, const NvmeCmd *cmd, unsigned sel,
                              FemuRequest *req)
{
    bool enabled = true;        /* the default (SEL 1) is FDP on */

    if (!femu_fdp_endgid_ok(cmd)) {
        return femu_dnr(NVME_INVALID_FIELD);
    }
    if (sel == FEMU_FEAT_SEL_CURRENT) {
        enabled = n->fdp.enabled;
    } else if (sel == FEMU_FEAT_SEL_SAVED) {
        enabled = n->fdp.saved_enabled;
    }
    req->result = enabled ? FEMU_FDP_FEAT_FDPE : 0;     /* FDPCIDX 0: one configuration */
    return NVME_SUCCESS;
}

uint16_t femu_fdp_set_feature(FemuCtrl *n, const NvmeCmd *cmd, FemuRequest *req)
{
    uint32_t dw12 = femu_cdw(cmd, 12);
    bool enable = dw12 & FEMU_FDP_FEAT_FDPE;
    unsigned cidx = (dw12 >> FEMU_FDP_FEAT_CIDX_SHIFT) & 0xff;

    if (!femu_fdp_endgid_ok(cmd) || (enable && cidx != 0)) {
        return femu_dnr(NVME_INVALID_FIELD);       /* one group, one configuration */
    }
    if (enable != n->fdp.enabled) {
        if (femu_fdp_group_has_namespaces(n)) {
            return femu_dnr(NVME_CMD_SEQ_ERROR);
        }
        femu_fdp_configured(n, enable);
    }
    if (femu_fdp_save(cmd)) {
        n->fdp.saved_enabled = enable;
    }
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

/* Whether type is enabled on ruh in the value SEL picks (the default: none). */
static bool femu_fdp_event_selected(FemuCtrl *n, uint32_t ruh, uint8_t type, unsigned sel)
{
    if (sel == FEMU_FEAT_SEL_CURRENT) {
        return femu_fdp_event_enabled(n, ruh, type);
    }
    return sel == FEMU_FEAT_SEL_SAVED && (n->fdp.saved_event_enable[ruh] >> type & 1);
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
        descs[2 * count + 1] = femu_fdp_event_selected(n, ruh, type, sel);
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
    bool save = femu_fdp_save(cmd);
    uint8_t types[256];
    uint32_t ruh, *saved;
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
    saved = &n->fdp.saved_event_enable[ruh];
    for (unsigned i = 0; i < noet; i++) {
        femu_fdp_event_enable(n, ruh, types[i], enable);
        if (save) {
            *saved = enable ? *saved | 1u << types[i] : *saved & ~(1u << types[i]);
        }
    }
    return NVME_SUCCESS;
}

bool femu_fdp_features_load_saved(FemuCtrl *n)
{
    bool changed = n->fdp.saved_enabled != n->fdp.enabled &&
                   !femu_fdp_group_has_namespaces(n);

    if (changed) {
        femu_fdp_configured(n, n->fdp.saved_enabled);
    }
    for (uint32_t ruh = 0; ruh < n->fdp.ruhs; ruh++) {
        femu_fdp_event_enables_set(n, ruh,
                                   n->fdp.enabled ? n->fdp.saved_event_enable[ruh] : 0);
    }
    return changed;
}

void femu_fdp_features_reset(FemuCtrl *n)
{
    uint32_t report = femu_fdp_event_handles(n, FEMU_FDP_EVT_CTRL_RESET);
    bool was_enabled = n->fdp.enabled;

    femu_fdp_events_reset_clock(n);
    if (femu_fdp_features_load_saved(n)) {
        report = 0;
    }
    if (was_enabled) {
        femu_fdp_reset_handles(n, report);
    }
}
