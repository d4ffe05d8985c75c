/*
 * The simulation loop. Closed loop: qd requests outstanding; simulated time jumps to the
 * next completion, where the next request is issued. Open loop (a version-2 trace): each
 * request arrives at its recorded time, however many are outstanding. The FTL engine
 * prices every request, so the run predicts IOPS and latency, and the same input gives
 * the same result.
 */
#ifndef FTL_SIM_SIM_H
#define FTL_SIM_SIM_H

#include <stdbool.h>
#include <stdint.h>

#include "femu_ftl/engine.h"
#include "femu_ftl/ftl.h"
#include "femu_ftl/trace.h"
#include "latency_hist.h"
#include "time_split.h"
#include "femu_ftl/stats.h"
#include "workload.h"

struct sim_limits {
    uint64_t io_bytes;      /* stop issuing after this many bytes (0: no limit) */
    uint64_t runtime_ns;    /* stop issuing after this much simulated time (0: no limit) */
    uint64_t check_every;   /* run the FTL invariant checker every N requests (0: never) */
    bool progress;          /* show simulated time on stderr now and then */
    bool open_loop;         /* issue at the trace's arrival times (qd is ignored) */
    /* closed loop: after every idle_every_bytes issued, wait for every outstanding
     * request, then leave the device idle for idle_ns (0: never) */
    uint64_t idle_every_bytes, idle_ns;
    /* --power-cut-at: the power goes at cut_ns after the phase's start: nothing arriving
     * then or later is issued, completions after it never come, and the phase ends
     * there (the caller cuts the FTL's power at its end_ns) */
    bool cut;
    uint64_t cut_ns;
};

struct sim_phase_result {
    uint64_t start_ns, end_ns;
    uint64_t reads, writes;         /* completed commands (zone reads, writes and appends
                                     * among them) */
    uint64_t read_bytes, write_bytes;
    uint64_t copies, zone_mgmts;    /* completed Copy and Zone Management commands */
    uint64_t zone_errors;           /* zone commands (and zoned copies) the zone rules
                                     * refused: counted, not served, the run goes on */
    uint64_t kv_refused;            /* replayed KV commands (without --kv) the store's
                                     * rules refused: counted, the run goes on */
    uint64_t ruh_updates;           /* completed Reclaim Unit Handle Updates */
    uint64_t power_cmds;            /* power management commands served (FTL_OP_POWER) */
    uint64_t power_refused;         /* replayed ones the engine refused (a state the drive
                                     * does not have): counted, the run goes on */
    /* placement=fdp: the FTL's events (femu_ftl/fdp.h) the loop took after each request,
     * by type (enum ftl_fdp_event_type), and those the FTL dropped before they were taken */
    uint64_t fdp_events[FTL_FDP_EVENT_RU_TIME_LIMIT + 1];
    uint64_t fdp_events_lost;
    struct ftl_counters before, after;
    uint64_t buf_pending_before, buf_pending_after;    /* ftl_gauges.buf_pending_pages */
    struct latency_hist latency;    /* every command */
    struct split_sums read_split, write_split;  /* reads', writes' time (time_split.h) */
    uint64_t cut_requests;          /* limits.cut: requests issued that had not completed
                                     * at the cut (never acknowledged) */
    bool recorded_end;              /* open loop: the trace's end record, at ... */
    uint64_t recorded_end_ns;       /* ... this simulated time */
};

/*
 * What the phases of one run share: one engine (and with it the statistics and the
 * recording of a trace) and the first statistics or trace failure, which ends the run.
 */
struct kv_account;

struct sim_run {
    struct ftl_engine *engine;
    struct kv_account *kv;      /* --kv: counts and logs the KV requests (kv_account.h) */
    bool failed;
    char failure[256];
};

#define SIM_E_WORKLOAD (-2)  /* the workload itself is bad (e.g. a malformed trace line) */

/* stats and trace (a recording of the run) may be NULL; both stay the caller's. */
int sim_run_init(struct sim_run *run, struct ftl *ftl, struct ftl_stats_writer *stats,
                 struct io_trace_writer *trace, char *err, size_t errlen);
void sim_run_destroy(struct sim_run *run);

/* A statistics phase starts at now_ns; -1 with the reason when writing failed. */
int sim_run_mark(struct sim_run *run, uint64_t now_ns, const char *phase, char *err,
                 size_t errlen);

/*
 * Run one phase from *now_ns until the limits are reached (or the trace ends) and every
 * issued request has completed; *now_ns becomes the last completion time. Returns 0,
 * SIM_E_WORKLOAD, or -1 (FTL, statistics or trace failure), with a reason in err.
 */
int sim_run_phase(struct sim_run *run, struct workload *w, unsigned qd,
                  const struct sim_limits *limits, uint64_t *now_ns,
                  struct sim_phase_result *out, char *err, size_t errlen);

#endif
