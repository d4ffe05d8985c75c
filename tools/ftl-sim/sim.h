/*
 * The closed-loop simulation: qd requests outstanding; simulated time jumps to the next
 * completion, where the next request is issued. The FTL prices every request, so the run
 * predicts IOPS and latency, and the same seed gives the same result.
 */
#ifndef FTL_SIM_SIM_H
#define FTL_SIM_SIM_H

#include <stdbool.h>
#include <stdint.h>

#include "ftl.h"
#include "latency_hist.h"
#include "stats_writer.h"
#include "workload.h"

struct sim_limits {
    uint64_t io_bytes;      /* stop issuing after this many bytes (0: no limit) */
    uint64_t runtime_ns;    /* stop issuing after this much simulated time (0: no limit) */
    uint64_t check_every;   /* run the FTL invariant checker every N requests (0: never) */
    bool progress;          /* show simulated time on stderr now and then */
};

struct sim_phase_result {
    uint64_t start_ns, end_ns;
    uint64_t reads, writes;         /* completed commands */
    uint64_t read_bytes, write_bytes;
    struct ftl_counters before, after;
    struct latency_hist latency;    /* every command */
};

#define SIM_E_WORKLOAD (-2)  /* the workload itself is bad (e.g. a malformed trace line) */

/*
 * Run one phase from *now_ns until the limits are reached (or the trace ends) and every
 * issued request has completed; *now_ns becomes the last completion time. stats may be
 * NULL. Returns 0, SIM_E_WORKLOAD, or -1 (FTL or statistics failure), with a reason in err.
 */
int sim_run_phase(struct ftl *ftl, struct workload *w, unsigned qd,
                  const struct sim_limits *limits, struct ftl_stats_writer *stats,
                  uint64_t *now_ns, struct sim_phase_result *out, char *err, size_t errlen);

#endif
