/*
 * Features 02h Power Management and 0Ch Autonomous Power State Transition (poller), rows
 * of the features table (cmd/admin/features.c) with functions of their own. The power
 * state belongs to the FTL's model behind the engine (FTL_OP_POWER): it moves on its own
 * (APST, and back to the last operational state when a command comes), so Set and Get of
 * 02h are requests the FTL thread serves in fetch order, like Volatile Write Cache's, and
 * a recording holds them.
 *
 * 02h: Set takes PS (CDW11 bits 4:0; above NPSS: Invalid Field) and WH (bits 7:5, the
 * workload hint, kept as given and returned by Get; it changes nothing). Get (current)
 * returns the state the model is in when the FTL serves it (ftl_served.power_state) with
 * the WH the host set; default and saved (not saveable) are PS 0, WH 0. With one power
 * state (the default) the device answers both itself: PS0 is all there is, and a
 * recording stays the version it was without power commands.
 *
 * 0Ch (offered only when some state is non-operational, else an unknown FID): Set takes
 * APSTE (CDW11 bit 0) and the 256-byte table from the host (entry N, 64 bits, for state
 * N: ITPS bits 7:3, ITPT bits 31:8 in ms; the other bits reserved and dropped). An entry
 * of a state that exists, with ITPT non-zero, must name a state that exists and is
 * non-operational (NVMe: ITPS is a non-operational state): else Invalid Field, and
 * nothing changes. Entries past NPSS are ignored and read back as zeroes, as NVMe has a
 * controller report unused entries. Get returns APSTE in DW0 and the table as set;
 * default and saved: APSTE 0 and an empty table.
 *
 * A controller reset brings both defaults back: APST off, then PS0, in the FTL too, as
 * internal requests behind what was fetched before it (the way Volatile Write Cache's
 * comes back: no lock, so a reset never waits for a save holding the engine). When every
 * request is in flight (the guest holds them all in full CQs) there are none to send: the
 * FTL keeps its table and 0Ch's Get keeps saying so; 02h's Get always asks the FTL.
 */
#include "qemu/osdep.h"

#include "cmd/admin/power_features.h"
#include "cmd/core/cmd.h"
#include "ctrl/dma.h"
#include "ctrl/request.h"
#include "ctrl/wake.h"

#define FEMU_PM_PS_MASK         0x1fu
#define FEMU_PM_WH_MASK         0xe0u
#define FEMU_APST_APSTE         (1u << 0)
#define FEMU_APST_ITPS_SHIFT    3
#define FEMU_APST_ITPS_MASK     0x1fu
#define FEMU_APST_ITPT_SHIFT    8
#define FEMU_APST_ITPT_MASK     0xffffffu
#define FEMU_FEAT_SEL_CURRENT   0

static unsigned femu_power_states(FemuCtrl *n)
{
    return MIN(MAX(n->ftl_config.ps_count, 1), FTL_PS_MAX);
}

bool femu_power_model_on(FemuCtrl *n)
{
    return femu_power_states(n) > 1;
}

/* The FTL request for cmd (owned by req: femu_req_free frees it). */
static struct ftl_power_cmd *femu_power_request(FemuRequest *req,
                                                enum ftl_power_action action)
{
    struct ftl_power_cmd *power = g_new0(struct ftl_power_cmd, 1);

    power->action = action;
    req->ftl.power = power;
    femu_req_ftl(req, FTL_OP_POWER);
    return power;
}

uint16_t femu_power_get_feature(FemuCtrl *n, const NvmeCmd *cmd, unsigned sel,
                                FemuRequest *req)
{
    if (sel != FEMU_FEAT_SEL_CURRENT) {
        req->result = 0;        /* PS0, no workload hint */
        return NVME_SUCCESS;
    }
    /* the FTL thread adds the state (backend/ftl_thread.c); with one state it is PS0 */
    req->result = n->features.power_mgmt & FEMU_PM_WH_MASK;
    if (femu_power_model_on(n)) {
        femu_power_request(req, FTL_POWER_GET_STATE);
    }
    return NVME_SUCCESS;
}

uint16_t femu_power_set_feature(FemuCtrl *n, const NvmeCmd *cmd, FemuRequest *req)
{
    uint32_t dw11 = femu_cdw(cmd, 11);
    uint32_t ps = dw11 & FEMU_PM_PS_MASK;

    if (ps >= femu_power_states(n)) {
        return femu_dnr(NVME_INVALID_FIELD);
    }
    n->features.power_mgmt = dw11 & (FEMU_PM_PS_MASK | FEMU_PM_WH_MASK);
    if (femu_power_model_on(n)) {   /* one state: PS0 stays, nothing for the FTL */
        n->features.power_changed = true;
        femu_power_request(req, FTL_POWER_SET_STATE)->ps = ps;
    }
    return NVME_SUCCESS;
}

uint16_t femu_apst_get_feature(FemuCtrl *n, const NvmeCmd *cmd, unsigned sel,
                               FemuRequest *req)
{
    uint8_t table[FEMU_APST_TABLE_BYTES] = { 0 };
    bool current = sel == FEMU_FEAT_SEL_CURRENT;
    uint16_t status;

    for (unsigned i = 0; current && i < FTL_PS_MAX; i++) {
        stq_le_p(table + 8 * i, n->features.apst_table[i]);
    }
    status = femu_dma_prp(n, cmd, table, sizeof(table), UINT64_MAX, FEMU_TO_GUEST);
    if (status) {
        return femu_dnr(status);
    }
    req->result = current ? n->features.apst_enable : 0;
    return NVME_SUCCESS;
}

/* Entry i of the host's table, checked: false for a transition femu cannot make. */
static bool femu_apst_entry(FemuCtrl *n, uint64_t raw, uint64_t *kept,
                            struct ftl_apst_entry *entry)
{
    uint32_t itps = (raw >> FEMU_APST_ITPS_SHIFT) & FEMU_APST_ITPS_MASK;
    uint32_t itpt = (raw >> FEMU_APST_ITPT_SHIFT) & FEMU_APST_ITPT_MASK;

    if (itpt && (itps >= femu_power_states(n) || !n->ftl_config.ps[itps].nonop)) {
        return false;
    }
    *kept = (uint64_t)itps << FEMU_APST_ITPS_SHIFT | (uint64_t)itpt << FEMU_APST_ITPT_SHIFT;
    entry->itps = itps;
    entry->itpt_ms = itpt;
    return true;
}

uint16_t femu_apst_set_feature(FemuCtrl *n, const NvmeCmd *cmd, FemuRequest *req)
{
    uint8_t table[FEMU_APST_TABLE_BYTES];
    uint64_t kept[FTL_PS_MAX] = { 0 };
    struct ftl_power_cmd *power;
    uint16_t status;
    unsigned states = femu_power_states(n);
    bool enable = femu_cdw(cmd, 11) & FEMU_APST_APSTE;

    status = femu_dma_prp(n, cmd, table, sizeof(table), UINT64_MAX, FEMU_FROM_GUEST);
    if (status) {
        return femu_dnr(status);
    }
    power = femu_power_request(req, FTL_POWER_SET_APST);
    power->apst_enabled = enable;
    for (unsigned i = 0; i < states; i++) {
        if (!femu_apst_entry(n, ldq_le_p(table + 8 * i), &kept[i], &power->apst[i])) {
            return femu_dnr(NVME_INVALID_FIELD);    /* femu_req_free frees power */
        }
    }
    memcpy(n->features.apst_table, kept, sizeof(kept));
    n->features.apst_enable = enable;
    n->features.power_changed = true;
    return NVME_SUCCESS;
}

/* An internal request of the reset (no CQE), in the ring behind what was fetched. */
static void femu_power_reset_request(FemuCtrl *n, FemuRequest *req,
                                     enum ftl_power_action action)
{
    memset(req, 0, offsetof(FemuRequest, list_next));
    req->internal = true;
    req->epoch = n->epoch;
    req->keep_on_reset = true;
    req->ftl.arrival_ns = femu_now_ns();
    femu_power_request(req, action);    /* zeroes: APST off, an empty table; PS0 */
    spsc_ring_push(n->to_ftl, req);     /* the ring holds the whole pool */
}

bool femu_power_reset(FemuCtrl *n, const FemuFeatures *before)
{
    FemuRequest *apst, *ps0;

    if (!before->power_changed) {
        return true;
    }
    apst = femu_req_alloc(n);
    ps0 = apst ? femu_req_alloc(n) : NULL;
    if (!ps0) {
        if (apst) {
            femu_req_free(n, apst);
        }
        return false;
    }
    femu_power_reset_request(n, apst, FTL_POWER_SET_APST);  /* first: nothing moves after */
    femu_power_reset_request(n, ps0, FTL_POWER_SET_STATE);
    femu_ftl_kick(n);
    return true;
}
