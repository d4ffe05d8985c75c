/*
 * Features 02h Power Management and 0Ch Autonomous Power State Transition
 * (cmd/admin/power_features.c, poller): rows of the features table (cmd/admin/features.c)
 * with functions of their own, over the FTL's power-state model behind the engine
 * (FTL_OP_POWER).
 */
#ifndef HW_FEMU_CMD_POWER_FEATURES_H
#define HW_FEMU_CMD_POWER_FEATURES_H

#include "femu.h"

#define FEMU_FEAT_APST          0x0c    /* Autonomous Power State Transition */
#define FEMU_APST_TABLE_BYTES   (8 * FTL_PS_MAX)

/* More than one power state: 02h and 0Ch reach the FTL (FTL_OP_POWER) and a recording
 * holds them (version 8); with one, the device answers 02h itself (PS0 is all there is). */
bool femu_power_model_on(FemuCtrl *n);

/* Get Features with SEL 0 (current), 1 (default) or 2 (saved); Set Features. */
uint16_t femu_power_get_feature(FemuCtrl *n, const NvmeCmd *cmd, unsigned sel,
                                FemuRequest *req);
uint16_t femu_power_set_feature(FemuCtrl *n, const NvmeCmd *cmd, FemuRequest *req);
uint16_t femu_apst_get_feature(FemuCtrl *n, const NvmeCmd *cmd, unsigned sel,
                               FemuRequest *req);
uint16_t femu_apst_set_feature(FemuCtrl *n, const NvmeCmd *cmd, FemuRequest *req);

/* Controller reset, the features as they were before it in *before: the FTL back to PS0
 * with APST off when the host set either feature since the last reset; false when no
 * request was free for it (then 0Ch keeps its values, which the FTL still follows). */
bool femu_power_reset(FemuCtrl *n, const FemuFeatures *before);

#endif
