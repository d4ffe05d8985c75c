/*
 * The controller's cores: each command takes the core that is free first (the lowest
 * numbered among equals) for its cost, after the one before it in arrival order; with no
 * cores the controller costs nothing.
 */
#ifndef FTL_FRONT_CTRL_CORES_H
#define FTL_FRONT_CTRL_CORES_H

#include <stdbool.h>
#include <stdint.h>

#include "femu_ftl/ftl.h"

#define CTRL_MAX_CORES 64

struct ctrl_cores {
    uint32_t count;
    uint32_t last;              /* the core the last run took */
    uint64_t free_ns[CTRL_MAX_CORES];
};

void ctrl_cores_init(struct ctrl_cores *c, uint64_t count);

/* Run cost_ns of work on the first free core no earlier than at_ns; returns when it ends
 * (at_ns with no cores). */
uint64_t ctrl_cores_run(struct ctrl_cores *c, struct ftl_counters *ctr, uint64_t at_ns,
                        uint64_t cost_ns);

/* Extend the last run by more_ns on its core (mapping misses found while the command
 * ran: nothing else has run since); returns the new end of that run, given it ended at
 * end_ns (end_ns with no cores). */
uint64_t ctrl_cores_extend(struct ctrl_cores *c, struct ftl_counters *ctr, uint64_t end_ns,
                           uint64_t more_ns);

#endif
