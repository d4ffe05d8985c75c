/*
 * The NVMe power-state model (docs/energy.md, "Power states"): the state the drive is in
 * and since when, the host's APST table, and the counters of time per state, transitions
 * and exits (struct ftl_counters' ps_* fields). No clock and no timer: the engine brings
 * the model up to each time it is given (an arrival, an idle advance, a statistics row),
 * and what APST would have done by then is worked out at that moment.
 *
 * Rules (each a choice; docs/energy.md says why):
 *  - idle means no host command outstanding: from the latest completion the engine
 *    handed out (or the latest Set Features of a state or table). The FTL's background
 *    GC and SLC folding do not hold the drive awake;
 *  - with APST on, in state s with entry apst[s] = {itpt_ms != 0, itps}, the drive moves
 *    to itps itpt_ms after it became idle or entered s, whichever is later, and so on
 *    through the table;
 *  - entering a non-operational state takes its enlat_us; a command arriving in one (or
 *    while entering it) starts at max(arrival, entry end) + exlat_us, and the drive is
 *    back in its most recent operational state from the arrival (the exit's time counts
 *    there); commands arriving while an exit is under way wait for its end too;
 *  - moving between operational states is instant (their latencies are reported only);
 *  - time counts from the first time the engine is given (its hosts give it their
 *    statistics' origin first: the device's realize, ftl-sim's 0).
 */
#ifndef FTL_POWER_POWER_STATE_H
#define FTL_POWER_POWER_STATE_H

#include <stdbool.h>
#include <stdint.h>

#include "femu_ftl/engine.h"

/* The APST entry's Idle Time Prior to Transition is 24 bits of ms. */
#define POWER_ITPT_MAX_MS 0xffffffu

struct power_model {
    const struct ftl_ps_desc *ps;   /* the configuration's descriptors */
    uint32_t count;                 /* ps_count */
    bool started;                   /* a time was given: the counters run from it */
    uint32_t cur;                   /* the state now */
    uint32_t last_op;               /* the most recent operational state */
    uint64_t since_ns;              /* when cur was entered (a non-op entry starts then) */
    uint64_t counted_ns;            /* ps_time_ns holds the time up to here */
    uint64_t idle_from_ns;          /* no command outstanding from here on */
    uint64_t ready_ns;              /* an exit under way ends here */
    bool apst_enabled;
    struct ftl_apst_entry apst[FTL_PS_MAX];
};

void power_init(struct power_model *m, const struct ftl_config *cfg);

/* Bring the model up to t_ns (APST's transitions due by then, the time in each state);
 * a time before the last one given changes nothing. */
void power_advance(struct power_model *m, struct ftl_counters *ctr, uint64_t t_ns);

/* c (a copy of the FTL's counters) as they will be at t_ns if nothing arrives before:
 * the model itself is not moved. */
void power_counters_at(const struct power_model *m, uint64_t t_ns, struct ftl_counters *c);

/* A command arriving at t_ns (after power_advance(t_ns)): when it may start. From a
 * non-operational state the drive returns to its most recent operational one. */
uint64_t power_wake(struct power_model *m, struct ftl_counters *ctr, uint64_t t_ns);

/* A command the drive answered at done_ns: it is busy until then. */
void power_busy_until(struct power_model *m, uint64_t done_ns);

/* The flash speed of the state now, in percent (100 in a non-operational state: no
 * command runs there; the FTL's background work keeps its configured speed). */
uint32_t power_perf_pcent(const struct power_model *m);

/* FTL_OP_POWER at t_ns (after power_advance(t_ns)): FTL_OK, or FTL_E_INVAL for a state
 * that does not exist or a table naming one that does not, or an operational one. */
int power_command(struct power_model *m, struct ftl_counters *ctr, uint64_t t_ns,
                  const struct ftl_power_cmd *cmd);

/* Whether power_command takes an APST table for the count states ps: every entry with an
 * idle time names a non-operational state that exists, from one that exists, within the
 * 24 bits of ms the NVMe entry has. */
bool power_apst_valid(const struct ftl_ps_desc *ps, uint32_t count,
                      const struct ftl_apst_entry *apst);

#endif
