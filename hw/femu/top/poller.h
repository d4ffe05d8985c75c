/* The poller thread (top/poller.c), which starts and stops the FTL thread with it. */
#ifndef HW_FEMU_CTRL_POLLER_H
#define HW_FEMU_CTRL_POLLER_H

#include "femu.h"

bool femu_threads_start(FemuCtrl *n, Error **errp);
void femu_threads_stop(FemuCtrl *n);

#endif
