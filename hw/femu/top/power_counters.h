/*
 * The FTL's power-state counters as QOM property power-counters (top/power_counters.c):
 * what a test or a lab reads of the model while the guest runs, without statistics.
 */
#ifndef HW_FEMU_TOP_POWER_COUNTERS_H
#define HW_FEMU_TOP_POWER_COUNTERS_H

#include "femu.h"

void femu_power_counters_instance_init(FemuCtrl *n);

#endif
