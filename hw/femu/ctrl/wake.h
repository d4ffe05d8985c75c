/*
 * Waking the device's two threads. Each sleeps on its eventfd with a flag saying so; a
 * waker publishes its work first and signals only a sleeping thread, so a busy one costs
 * no system call. Any thread may call these: the vCPUs (doorbells, CC), the poller (work
 * for the FTL thread) and the FTL thread (work done).
 */
#ifndef HW_FEMU_CTRL_WAKE_H
#define HW_FEMU_CTRL_WAKE_H

#include "femu.h"

void femu_poller_kick(FemuCtrl *n);
void femu_ftl_kick(FemuCtrl *n);

#endif
