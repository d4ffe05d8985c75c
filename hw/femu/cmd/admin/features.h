/* Get/Set Features (cmd/admin/features.c, poller): one table by FID. */
#ifndef HW_FEMU_CMD_FEATURES_H
#define HW_FEMU_CMD_FEATURES_H

#include "femu.h"

uint16_t femu_get_features(FemuCtrl *n, const NvmeCmd *cmd, FemuRequest *req);
uint16_t femu_set_features(FemuCtrl *n, const NvmeCmd *cmd, FemuRequest *req);
/* Power-on (realize): every feature at its default. */
void femu_features_init(FemuCtrl *n);
/* Controller reset: the defaults again, the FTL's write cache back on with WCE's. */
void femu_features_reset(FemuCtrl *n);
/* A namespace created or deleted: its namespace-specific features back to defaults. */
void femu_features_ns_reset(FemuCtrl *n, uint32_t nsid);

#endif
