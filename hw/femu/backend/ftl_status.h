/*
 * The NVMe status of an FTL result (backend/ftl_status.c), one map for whoever met it: the
 * poller when the FTL admits a zoned command or a Copy, the FTL thread when it serves one.
 */
#ifndef HW_FEMU_BACKEND_FTL_STATUS_H
#define HW_FEMU_BACKEND_FTL_STATUS_H

#include "femu.h"

uint16_t femu_ftl_status(int rc);

#endif
