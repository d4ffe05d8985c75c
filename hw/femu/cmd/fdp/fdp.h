/*
 * Flexible Data Placement's endurance group (cmd/fdp/fdp.c, poller): whether FDP is on, the
 * namespaces' placement handle lists, where a write goes, a controller reset's update.
 */
#ifndef HW_FEMU_CMD_FDP_H
#define HW_FEMU_CMD_FDP_H

#include "femu.h"

/* Status codes block/nvme.h does not name (NVMe base specification 2.1). */
#define FEMU_INVALID_PLACEMENT_HANDLE_LIST  0x002a

/* Reclaim Unit Handle Attributes (log 21h). */
#define FEMU_RUHA_UNUSED        0
#define FEMU_RUHA_HOST          1       /* named by a namespace's placement handle list */
#define FEMU_RUHA_CONTROLLER    2       /* chosen by the controller for a namespace */

/* Realize, once namespaces= made the namespaces (before state_in is restored): FDP on
 * with placement=fdp, configuration 0 (also as saved), every conventional namespace given
 * every handle (femu_fdp_handles_every: also for a state file without FDP's section). */
void femu_fdp_realize(FemuCtrl *n);
void femu_fdp_handles_every(FemuCtrl *n);
void femu_fdp_release(FemuCtrl *n);

/* Whether the controller offers FDP at all (CTRATT.FDPS): gates commands, logs, features. */
bool femu_fdp_offered(FemuCtrl *n);
/* A namespace of the endurance group: allocated and conventional. */
bool femu_fdp_in_group(const FemuNamespace *ns);
/* The group has one (attached or not): 1Dh's value cannot change. */
bool femu_fdp_group_has_namespaces(FemuCtrl *n);
uint8_t femu_fdp_ruh_usage(FemuCtrl *n, uint32_t ruh);
/* The handle a namespace's placement handle names; false for one it does not have. */
bool femu_fdp_handle(const FemuNamespace *ns, uint32_t phndl, uint32_t *ruh);

/* Namespace Management create: the placement handle list of the host's data structure. */
typedef struct FemuFdpHandles {
    uint8_t nphndls;
    uint8_t ruh[FEMU_FDP_MAX_RUHS];
    bool chosen;                /* NPHNDLS 0: the controller's choice */
} FemuFdpHandles;
uint16_t femu_fdp_ns_handles(FemuCtrl *n, const uint8_t *host_data, uint8_t flbas,
                             FemuFdpHandles *out);
void femu_fdp_ns_apply(FemuNamespace *ns, const FemuFdpHandles *handles);

/* A write's placement: checked first (no effect), applied once the data has moved. */
typedef struct FemuFdpPlacement {
    uint32_t ruh;
    uint16_t phndl;
    bool named;                 /* through a placement handle of the namespace */
    bool invalid_pid;           /* DTYPE 2 with a PID the namespace lacks: pid */
    uint16_t pid;
} FemuFdpPlacement;
uint16_t femu_fdp_place(FemuCtrl *n, const FemuNamespace *ns, const NvmeCmd *cmd,
                        FemuFdpPlacement *out);
void femu_fdp_placed(FemuCtrl *n, const FemuNamespace *ns, const FemuFdpPlacement *place,
                     FemuRequest *req);

/* Flash pages programmed, as the FTL's WAF counts them (log 22h's MBMW): every program
 * ftl_nand_programs counts and Copy's copybacks, which program a page too. */
uint64_t femu_fdp_media_pages(const struct ftl_counters *ctr);

/* Set Features 1Dh took effect: events and statistics start afresh. */
void femu_fdp_configured(FemuCtrl *n, bool enable);
/* Controller reset with FDP on: every handle's open RU is closed through the FTL, the
 * handles of report (bit 1 << RUH) reporting it (cmd/fdp/fdp_features.c decides). */
void femu_fdp_reset_handles(FemuCtrl *n, uint32_t report);

#endif
