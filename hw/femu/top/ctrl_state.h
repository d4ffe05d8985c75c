/* The controller's state machine (top/ctrl_state.c has the transition table). */
#ifndef HW_FEMU_CTRL_CTRL_STATE_H
#define HW_FEMU_CTRL_CTRL_STATE_H

#include "femu.h"

void femu_ctrl_cc_written(FemuCtrl *n, uint32_t old_cc, uint32_t cc);   /* BQL */
void femu_ctrl_machine_reset(FemuCtrl *n);  /* BQL: registers to reset values; waits */
bool femu_ctrl_poll(FemuCtrl *n);           /* poller: run what CC/reset asked for */
bool femu_ctrl_work_pending(FemuCtrl *n);   /* poller: a CC write or reset waits */
void femu_ctrl_fatal(FemuCtrl *n);          /* poller */
void femu_ctrl_power_cycle(FemuCtrl *n);    /* poller: after a power cut */
void femu_ctrl_shutdown_saved(FemuCtrl *n); /* poller: the current shutdown's save is done */
/* poller: a shutdown that found every request out starts its save once the reserved one
 * is back */
void femu_ctrl_shutdown_retry(FemuCtrl *n);

/* Poller: whether the controller fetches and completes commands. */
static inline bool femu_ctrl_serving(FemuCtrl *n)
{
    return n->state == FEMU_CTRL_READY || n->state == FEMU_CTRL_SHUTTING_DOWN;
}

#endif
