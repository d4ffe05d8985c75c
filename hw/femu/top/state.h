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
#include "state_codec.h"

#define FEMU_STATE_PRODUCER "femu device"
#define FEMU_STATE_ERR_LEN  512
#define FEMU_STATE_MAX_PARTS 4

/*
 * A part of the device that keeps its own section (the namespace table, FDP: their codecs
 * lie beside their commands). The top lists them in order (top/state_parts.c) and
 * the state file walks the list: it knows no part's fields.
 */
typedef struct FemuStatePart {
    uint32_t tag;
    /* Written after the sector maps and restored after the FTL (its checks read the
     * FTL's restored counters); else written and restored before the maps, which are
     * checked against it. */
    bool after_ftl;
    uint64_t (*max_bytes)(FemuCtrl *n);     /* its section's bound; 0: this device has none */
    void (*encode)(FemuCtrl *n, struct state_buf *b);       /* the poller, at the instant */
    /* Optional: appended when the file is written (what the FTL adds meanwhile). */
    void (*encode_at_write)(FemuCtrl *n, struct state_buf *b);
    /* Instead of encode: the section's payload written straight from the device when the
     * file is written (no copy of a large part; nothing it reads changes during a save).
     * -1 with one line in err, or with err untouched when the writer failed. */
    int (*write)(FemuCtrl *n, struct state_writer *w, char *err, size_t errlen);
    /* A file with the section (at most max_bytes): checked whole, then in place. */
    bool (*restore)(FemuCtrl *n, struct state_cursor *c, char *err, size_t errlen);
    /* Instead of restore: the section's len bytes read in pieces (state_reader_read, the
     * reader at its payload), never held whole. */
    bool (*load)(FemuCtrl *n, struct state_reader *r, uint64_t len, char *err,
                 size_t errlen);
    /* A file without it (data=present): true to go on as realize left the part. */
    bool (*absent)(FemuCtrl *n, char *err, size_t errlen);
    /* Optional: a state without the device's sections (ftl-sim's), its FTL restored:
     * false to refuse it. */
    bool (*ftl_only)(FemuCtrl *n, char *err, size_t errlen);
    void (*loaded)(FemuCtrl *n);    /* optional: a restore is complete, the FTL's view out */
} FemuStatePart;

/* What the poller owns, copied at the instant of a save. */
typedef struct FemuStateSnapshot {
    const FemuStatePart *const *parts;
    uint64_t sectors;           /* bits in each map: the data store's sectors */
    uint8_t *written;           /* packed: bit (i % 8) of byte i / 8 is sector i */
    uint8_t *uncorrectable;
    struct state_buf part[FEMU_STATE_MAX_PARTS];    /* each part's encode (len 0: none) */
} FemuStateSnapshot;

/* The parts are in file order, NULL-terminated (at most FEMU_STATE_MAX_PARTS). */

/* Realize: restore state_in (after the namespaces, before the threads start). */
bool femu_state_restore(FemuCtrl *n, const FemuStatePart *const *parts, Error **errp);

/* Copy the poller's part (call on the thread that owns it). False when out of memory. */
bool femu_state_snapshot(FemuCtrl *n, const FemuStatePart *const *parts,
                         FemuStateSnapshot *s);
void femu_state_snapshot_free(FemuStateSnapshot *s);

/* Write the whole file to path, with the FTL and the poller's state still: engine_lock
 * held by the poller with nothing left for the FTL thread, or both threads stopped.
 * 0, or -1 with "PATH: reason" in err. */
int femu_state_write(FemuCtrl *n, const char *path, const FemuStateSnapshot *s,
                     uint64_t now_ns, char *err, size_t errlen);

#endif
