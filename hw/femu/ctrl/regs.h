/*
 * The register file (BAR0 below the doorbells): CAP, VS, CC, CSTS, AQA, ASQ, ACQ, INTMS.
 * vCPUs store what the host writes (top/bar0.c); the state machine reads CC and writes
 * CSTS (top/ctrl_state.c). Every access is one atomic 32-bit word.
 */
#ifndef HW_FEMU_CTRL_REGS_H
#define HW_FEMU_CTRL_REGS_H

#include "femu.h"

uint32_t femu_reg_read32(FemuCtrl *n, unsigned offset);
uint64_t femu_reg_read64(FemuCtrl *n, unsigned offset);
void femu_reg_write32(FemuCtrl *n, unsigned offset, uint32_t value);
void femu_regs_init(FemuCtrl *n);       /* realize: CAP and VS */
void femu_regs_clear(FemuCtrl *n);      /* machine or function reset: reset values */

#endif
