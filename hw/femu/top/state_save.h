/*
 * When the device writes its state (top/state_save.c): at exit and unplug, on vendor
 * C2h, on QMP save-state. What a state file holds: top/state.h.
 */
#ifndef HW_FEMU_BACKEND_STATE_SAVE_H
#define HW_FEMU_BACKEND_STATE_SAVE_H

#include "femu.h"

bool femu_state_check_out(FemuCtrl *n, Error **errp);  /* realize: state_out's folder */
/* Poller: vendor C2h (the command's fields are not used: the guest names no path). */
uint16_t femu_state_vendor_save(FemuCtrl *n, const NvmeCmd *cmd, FemuRequest *req);
/* Poller, every pass: finish a save the worker wrote, start one QMP asked for. */
bool femu_state_poll(FemuCtrl *n);
/* Stopping the threads, the poller gone: wait for a save still being written. */
void femu_state_save_join(FemuCtrl *n);
void femu_state_save_final(FemuCtrl *n);                /* threads stopped */
void femu_state_instance_init(FemuCtrl *n);
void femu_state_instance_finalize(FemuCtrl *n);

#endif
