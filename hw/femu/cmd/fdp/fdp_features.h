/*
 * Features 1Dh Flexible Data Placement and 1Eh FDP Events (cmd/fdp/fdp_features.c, poller),
 * rows of the features table (cmd/admin/features.c) with functions of their own: one is the
 * endurance group's, the other takes a data buffer, and both keep a saved value.
 */
#ifndef HW_FEMU_CMD_FDP_FEATURES_H
#define HW_FEMU_CMD_FDP_FEATURES_H

#include "femu.h"

#define FEMU_FEAT_FDP           0x1d
#define FEMU_FEAT_FDP_EVENTS    0x1e

/* Get Features with SEL 0 (current), 1 (default) or 2 (saved); Set Features with or
 * without SV (both features are saveable). */
uint16_t femu_fdp_get_feature(FemuCtrl *n, const NvmeCmd *cmd, unsigned sel,
                              FemuRequest *req);
uint16_t femu_fdp_set_feature(FemuCtrl *n, const NvmeCmd *cmd, FemuRequest *req);
uint16_t femu_fdp_get_events_feature(FemuCtrl *n, const NvmeCmd *cmd, unsigned sel,
                                     FemuRequest *req);
uint16_t femu_fdp_set_events_feature(FemuCtrl *n, const NvmeCmd *cmd, FemuRequest *req);

/* 1Dh and 1Eh take their saved values, 1Dh only while the group has no namespace (a
 * restored state, at realize, and a reset): true when that changed the configuration. */
bool femu_fdp_features_load_saved(FemuCtrl *n);
/* Controller reset: the saved values, and every handle's open RU closed (cmd/fdp/fdp.c). */
void femu_fdp_features_reset(FemuCtrl *n);

#endif
