/*
 * ftl-sim's power-state options (docs/ftl-sim.md, docs/energy.md): --power-state N, the
 * state the drive is set to at the start of the run, and --apst TABLE, the APST table
 * set then: off, linux[:US] (the table Linux's nvme driver would program with
 * default_ps_max_latency_us = US) or STATE:ITPT_MS:ITPS,... Both go to the engine as
 * FTL_OP_POWER requests (recorded with --trace-out), before any other request.
 */
#ifndef FTL_SIM_POWER_OPTIONS_H
#define FTL_SIM_POWER_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>

#include "femu_ftl/engine.h"

/* Linux's default_ps_max_latency_us: its default, what --apst linux means. */
#define LINUX_PS_MAX_LATENCY_US 100000u

enum apst_choice { APST_NONE, APST_OFF, APST_LINUX, APST_TABLE };

struct power_spec {
    bool state_given;           /* --power-state */
    uint32_t state;
    enum apst_choice apst;      /* --apst (APST_NONE: not given) */
    uint64_t linux_latency_us;  /* APST_LINUX */
    struct ftl_power_cmd table; /* --apst's table: given (APST_TABLE) or worked out from
                                 * the configuration (check_power_options) */
    bool entry_given[FTL_PS_MAX];   /* APST_TABLE: the states the option named */
};

struct options;
struct sim_run;

void option_power_state(struct options *o, const char *arg);    /* --power-state N */
void option_apst(struct options *o, const char *arg);           /* --apst TABLE */

/* Against the configuration's power states (a refusal exits 2, naming the option); the
 * table of --apst linux worked out. */
void check_power_options(struct options *o);

/* Whether the run sends power commands of its own (its recording needs version 8). */
bool power_options_given(const struct options *o);

/*
 * The table Linux's nvme driver (drivers/nvme/host/core.c, since 5.12, default module
 * parameters) programs for cfg's states with default_ps_max_latency_us = max_latency_us:
 * from the deepest state up, a non-operational state whose exit latency is within
 * max_latency_us becomes the target of every shallower state's entry, after 100 ms idle
 * when its entry plus exit latency is within 15 ms (the deepest such state only), else
 * 2000 ms when within 100 ms (the deepest such, only while no 100 ms target was taken).
 * max_latency_us 0: APST off, the table empty.
 */
void linux_apst_table(const struct ftl_config *cfg, uint64_t max_latency_us,
                      struct ftl_power_cmd *cmd);

/* Send --power-state and --apst to the engine at now_ns; -1 with a reason in err. */
int power_options_start(struct sim_run *run, const struct options *o, uint64_t now_ns,
                        char *err, size_t errlen);

#endif
