/*
 * Device state files (top/state.c): what one holds, the restore at realize, and the
 * write that top/state_save.c (when one is written: exit, vendor C2h, QMP
 * save-state) calls.
 *
 * The poller owns the namespace table, SMART counters, the per-sector maps and every
 * write to the data store. A save at a point in time therefore runs on the poller: it
 * takes engine_lock, serves what still waits for the FTL thread (so the FTL has seen
 * every command fetched before the save), and writes the file while nothing moves.
 * The exit save runs once both threads have stopped.
 */
#ifndef HW_FEMU_BACKEND_STATE_H
#define HW_FEMU_BACKEND_STATE_H

#include "femu.h"

#define FEMU_STATE_PRODUCER "femu device"
#define FEMU_STATE_ERR_LEN  512

/* What the poller owns, copied at the instant of a save. */
typedef struct FemuStateSnapshot {
    uint64_t sectors;           /* bits in each map: the data store's sectors */
    uint8_t *written;           /* packed: bit (i % 8) of byte i / 8 is sector i */
    uint8_t *uncorrectable;
    uint8_t *table;             /* the namespace table section, encoded */
    size_t table_len;
    uint8_t *fdp;               /* with FDP: its section up to the events, encoded */
    size_t fdp_len;
} FemuStateSnapshot;

/* Realize: restore state_in (after the namespaces, before the threads start). */
bool femu_state_restore(FemuCtrl *n, Error **errp);

/* Copy the poller's part (call on the thread that owns it). False when out of memory. */
bool femu_state_snapshot(FemuCtrl *n, FemuStateSnapshot *s);
void femu_state_snapshot_free(FemuStateSnapshot *s);

/* Write the whole file to path, with the FTL and the poller's state still: engine_lock
 * held by the poller with nothing left for the FTL thread, or both threads stopped.
 * 0, or -1 with "PATH: reason" in err. */
int femu_state_write(FemuCtrl *n, const char *path, const FemuStateSnapshot *s,
                     uint64_t now_ns, char *err, size_t errlen);

#endif
