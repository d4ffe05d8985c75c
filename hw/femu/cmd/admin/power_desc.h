/*
 * The power state descriptors of Identify Controller (cmd/admin/power_desc.c, poller): the
 * FTL's power-state table (ftl_config.ps, ps_count states) as NVMe reports it.
 */
#ifndef HW_FEMU_CMD_POWER_DESC_H
#define HW_FEMU_CMD_POWER_DESC_H

#include "femu.h"

/* Some state is non-operational: Identify's APSTA, and feature 0Ch is offered. */
bool femu_power_apst_offered(FemuCtrl *n);

/* Identify Controller: NPSS, APSTA and one descriptor per power state. */
void femu_power_identify(FemuCtrl *n, NvmeIdCtrl *id);

#endif
