/*
 * The per-LPN dump (backend/lpn_dump.c, poller): vendor C0h and a shutdown's save write
 * lpn_access_count.csv through the FTL thread, one dump at a time.
 */
#ifndef HW_FEMU_BACKEND_LPN_DUMP_H
#define HW_FEMU_BACKEND_LPN_DUMP_H

#include "femu.h"

void femu_lpn_dump_submit(FemuCtrl *n, FemuRequest *req);
/*
 * The FTL thread finished the dump in flight: answer it and its riders, start the next.
 * True when the current shutdown's save was among them: the caller then reports the
 * shutdown complete (femu_ctrl_shutdown_saved), so the dump stays below the state machine.
 */
bool femu_lpn_dump_returned(FemuCtrl *n, FemuRequest *done);
void femu_lpn_dump_drop_queued(FemuCtrl *n);

#endif
