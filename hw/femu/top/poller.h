/* The poller thread (top/poller.c), which starts and stops the FTL thread with it. */
#ifndef HW_FEMU_CTRL_POLLER_H
#define HW_FEMU_CTRL_POLLER_H

#include "femu.h"

bool femu_threads_start(FemuCtrl *n, Error **errp);
void femu_threads_stop(FemuCtrl *n);
/* Whether the poller has something to do now (the busy-waits of top/poll_window.c ask). */
bool femu_poller_has_work(FemuCtrl *n);

#endif
