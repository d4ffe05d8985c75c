/*
 * ftl-sim --kv's part of a run (main.c calls these): the store over the whole
 * conventional space, the generator and the accounting, the load phase before the
 * measured part, and --kv-dump at the end.
 */
#ifndef FTL_SIM_KV_RUN_H
#define FTL_SIM_KV_RUN_H

#include <stdbool.h>
#include <stddef.h>

#include "femu_ftl/kv.h"
#include "kv_account.h"
#include "kv_gen.h"
#include "run_options.h"
#include "sim.h"

struct kv_run {
    const struct kv_spec *spec;
    struct kv_gen *gen;
    struct kv_account *account;
    struct kv_phase_stats *load_stats, *stats;  /* the load phase's, the measured part's */
    struct sim_phase_result *load;              /* the load phase (NULL: none ran) */
    struct ftl_kv_info info;                    /* the store, as created */
    bool made;                                  /* kv_run_open made it (no state file) */
};

/*
 * The store (namespace KV_NSID over every conventional sector, with the capacity they
 * hold; a restored device's own store when it has one), the generator and --kv-log.
 * 0, or -1 with one line in err.
 */
int kv_run_open(struct kv_run *k, const struct options *o, struct ftl *ftl, char *err,
                size_t errlen);
/* The store kv_run_open made, into the recording (--trace-out's KC record, through the
 * engine), then the load phase ("load" in phases.csv): --kv-keys inserts, then the
 * measured part's generator and counts are set. 0, or sim_run_phase's failure. */
int kv_run_load(struct kv_run *k, struct sim_run *run, struct workload *w, unsigned qd,
                uint64_t *now_ns, char *err, size_t errlen);
/* --kv-log closed and --kv-dump written: 0, or -1 with one line in err. */
int kv_run_finish(struct kv_run *k, const struct ftl *ftl, char *err, size_t errlen);
void kv_run_free(struct kv_run *k);

#endif
