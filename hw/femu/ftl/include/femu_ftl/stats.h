/*
 * CSV statistics from the FTL's counters (see STATS.md): the lab's 1 s and 10 s files,
 * a per-second stats.csv with every counter, the ZNS+ figures (nand.csv every second,
 * ch_util.csv every 0.1 s, zones.csv at the end), phase markers and per-LPN write counts.
 * Time is passed in, so the same writer serves simulated and real time.
 */
#ifndef FEMU_STATS_WRITER_H
#define FEMU_STATS_WRITER_H

#include <stddef.h>
#include <stdint.h>

#include "femu_ftl/ftl.h"

#ifdef __cplusplus
extern "C" {
#endif

struct ftl_stats_writer;

/*
 * Create the files in dir (which must exist); intervals start at start_ns. The writer is
 * the FTL's one caller of ftl_lun_busy_ns (which forgets the past): it asks at start_ns,
 * then at each 0.1 s boundary, at phase markers and at close, never going back.
 */
struct ftl_stats_writer *ftl_stats_open(const char *dir, struct ftl *ftl, uint64_t start_ns,
                                        char *err, size_t errlen);

/*
 * The counters a row reads at t_ns, from c = ftl_get_counters(): a hook brings up to t_ns
 * what grows with time alone (the engine's power states: ps_time_ns), so every row is
 * exact, not only those that end at a request. Times only go forward.
 */
typedef void (*ftl_stats_counters_fn)(void *opaque, uint64_t t_ns, struct ftl_counters *c);
void ftl_stats_counters_hook(struct ftl_stats_writer *w, ftl_stats_counters_fn fn,
                             void *opaque);

/*
 * Write a row for every interval that ended at or before now_ns. Call it before handing
 * the FTL work stamped now_ns, so each row holds exactly the work of its interval.
 * Returns 0, or -1 with a reason (e.g. disk full) in err; later calls keep trying.
 */
int ftl_stats_advance(struct ftl_stats_writer *w, uint64_t now_ns, char *err, size_t errlen);

/*
 * Record that a phase (e.g. "precondition", "workload", "end") starts at now_ns, with a
 * snapshot of the counters since start_ns at that instant (phases.csv, STATS.md): a
 * phase's figures are the difference of its row and the next, exact to the request.
 * Writes the rows due by now_ns first.
 */
int ftl_stats_phase(struct ftl_stats_writer *w, uint64_t now_ns, const char *phase,
                    char *err, size_t errlen);

/* Write the rows up to now_ns, including a last partial interval, and close the files.
 * When phases were marked and the last was not "end", an "end" row at now_ns closes the
 * last phase. */
int ftl_stats_close(struct ftl_stats_writer *w, uint64_t now_ns, char *err, size_t errlen);

/* Write LPN,Access_Count for LPN 0 up to the highest LPN ever written. */
int ftl_stats_write_lpn_counts(const struct ftl *ftl, const char *path, char *err,
                               size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
