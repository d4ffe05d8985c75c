/*
 * Saving and restoring an FTL's complete state in a state file (state_file.h): maps and
 * reverse maps, blocks and lines, the free queue, full list and victim heaps in their
 * order, write pointers, paced GC's line in progress, per-LPN write counts, wear, the
 * fault and GC generators, counters, and the DFTL, write buffer and zoned namespace state
 * when the configuration has them. Restoring then running the same requests gives the
 * same results, counter for counter, as never having saved.
 *
 * Times: the FTL's timestamps are the caller's clock, which a restore does not share
 * (ftl-sim's simulated time, a new QEMU's virtual clock). A save records them relative to
 * the now_ns it is given; a restore re-bases them on its own now_ns (a line closed 5 s
 * before the save was closed 5 s before the restore), and every LUN and channel is idle
 * at the restore.
 *
 * The configuration is recorded (section CONF, every ftl_config key as key=value) and a
 * restore refuses a different one, naming the first key that differs; only the keys
 * ftl_state_key_may_differ() names may change between save and restore: timings, fault
 * chances and the GC victim policy, GC thresholds and hot threshold (decisions made
 * afresh from state every configuration keeps).
 */
#ifndef FEMU_FTL_STATE_H
#define FEMU_FTL_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "femu_ftl/ftl.h"
#include "state_file.h"

#ifdef __cplusplus
extern "C" {
#endif

#define STATE_TAG_CONF STATE_TAG('C', 'O', 'N', 'F')   /* text: every ftl_config key */

/* Room ftl_state_limits needs: CONF, four core sections, paced GC's debt, FDP events, the
 * SLC cache, four maps, zones, DFTL, buffer, the aged hot/cold counts, the hybrid tables,
 * the key-value stores. */
#define FTL_STATE_MAX_SECTIONS 18

/*
 * The sections ftl's state can hold and the most bytes each can have, into out (room for
 * FTL_STATE_MAX_SECTIONS); returns how many. Give them to state_reader_open() (with the
 * caller's own sections) so that a file is held to this configuration before it is read.
 */
size_t ftl_state_limits(const struct ftl *ftl, struct state_section_limit *out);

/* Whether a restore accepts a different value of this config key. */
bool ftl_state_key_may_differ(const char *key);

/* Add the FTL's sections (CONF first) to w. now_ns: the caller's time now, at or after
 * every request the FTL served. Returns 0, or -1 with a reason. The FTL is not changed. */
int ftl_state_save(const struct ftl *ftl, struct state_writer *w, uint64_t now_ns,
                   char *err, size_t errlen);

/*
 * Check r's recorded configuration against cfg without restoring anything: 0, or -1 with
 * "PATH: recorded with KEY=V1, this device has KEY=V2" (the first key that differs), or a
 * reason the file has no usable CONF section.
 */
int ftl_state_check_config(struct state_reader *r, const struct ftl_config *cfg,
                           char *err, size_t errlen);

/*
 * Restore r's state into ftl, which ftl_create() just made from a configuration
 * ftl_state_check_config() accepts and which has served no request yet. Everything is
 * validated (sizes, ranges, and ftl_check() afterwards): a state that does not hold
 * together is refused with a reason, never restored halfway into a usable FTL: on -1 the
 * caller destroys ftl. now_ns: the caller's time now.
 */
int ftl_state_load(struct ftl *ftl, struct state_reader *r, uint64_t now_ns,
                   char *err, size_t errlen);

/*
 * The whole file for hosts without data of their own (ftl-sim): META (producer, "data=
 * absent") and the FTL's sections, written atomically to path.
 */
int ftl_state_save_file(const struct ftl *ftl, const char *path, const char *producer,
                        uint64_t now_ns, char *err, size_t errlen);

/* Open path, check its configuration against ftl's and restore it: one call for ftl-sim. */
int ftl_state_load_file(struct ftl *ftl, const char *path, uint64_t now_ns,
                        char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
