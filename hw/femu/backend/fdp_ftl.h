/*
 * FDP's FTL side (backend/fdp_ftl.c): the events the FTL raised while serving a request,
 * into the device's FDP event list (FTL thread); a handle's status (poller).
 */
#ifndef HW_FEMU_BACKEND_FDP_FTL_H
#define HW_FEMU_BACKEND_FDP_FTL_H

#include "femu.h"

/* FTL thread (or the poller holding engine_lock), right after the FTL served req. */
void femu_fdp_ftl_events(FemuCtrl *n, const FemuRequest *req);
/* Poller: the handle's RU and room now (ftl_fdp_ruh_status under engine_lock). */
int femu_fdp_ftl_ruh_status(FemuCtrl *n, uint32_t ruh, struct ftl_ruh_status *out);

#endif
