/*
 * The drive in front of the flash: the PCIe link (pcie_link.h) and the controller's cores
 * (ctrl_cores.h) that every command passes through before and after the FTL prices it.
 * The engine calls front_before with a request's arrival, hands the FTL the time it
 * returns, and calls front_after with the FTL's completion. What each command moves
 * (front_moves.c): its SQE fetch (64 bytes), its PRP list when its data spans more than
 * two 4 KiB memory pages (host buffers page aligned), its data (in: write, store, DSM
 * ranges, Copy descriptors, admin data; out: read, retrieve, list, admin data), its CQE
 * (16 bytes) and MSI-X message (4 bytes). A store's creation and end are not commands of
 * their own (Namespace Management's admin record carries them). Off (pcie_gen and
 * ctrl_cores 0) nothing is charged and the FTL sees the arrival, as before the model.
 *
 * The FTL takes commands in arrival order: one reaches it no earlier than the one before
 * it did (its times never go backwards), however quickly its own transfers went.
 */
#ifndef FTL_FRONT_FRONT_H
#define FTL_FRONT_FRONT_H

#include <stdbool.h>
#include <stdint.h>

#include "femu_ftl/engine.h"
#include "front/ctrl_cores.h"
#include "front/pcie_link.h"

struct front {
    bool on;
    struct pcie_link link;
    struct ctrl_cores cores;
    bool started;
    uint64_t origin_ns;         /* the first arrival: link time is kept in ps after it */
    uint64_t last_ftl_ns;       /* when the FTL took the last command */
};

/* What a command moves over the link and the core time it takes (front_moves.c). */
struct front_moves {
    bool command;               /* an NVMe command: SQE, CQE and MSI-X (else nothing) */
    uint64_t data_in, data_out; /* host to device, device to host (payload bytes) */
    bool prp;                   /* its data goes through PRPs (a list past two pages) */
    uint64_t cost_ns;           /* core time before its misses */
};
void front_moves_of(const struct ftl_config *cfg, const struct ftl_request *r,
                    struct front_moves *m);

/* What one command passing through the front has cost so far. */
struct front_trip {
    uint64_t arrival_ns, ftl_ns;
    uint64_t link_ps;           /* its own transfers' time on the wire */
    uint64_t ctrl_ns;           /* its own core time */
    uint64_t core_end_ns;       /* when its core work ended (arrival with no cores) */
    struct front_moves moves;   /* what it moves (worked out once, at arrival) */
    uint64_t cmt_misses, kv_index_misses, kv_retrieve_bytes;   /* counters at the start */
};

void front_init(struct front *f, const struct ftl_config *cfg);

/* The time the FTL takes request r (its arrival when the front is off). */
uint64_t front_before(struct front *f, const struct ftl_config *cfg, struct ftl_counters *ctr,
                      const struct ftl_request *r, struct front_trip *trip);

/* The command's completion, its FTL work done at flash_done_ns; split (may be NULL) gets
 * where its time went. */
uint64_t front_after(struct front *f, const struct ftl_config *cfg, struct ftl_counters *ctr,
                     const struct ftl_request *r, struct front_trip *trip,
                     uint64_t flash_done_ns, struct ftl_time_split *split);

#endif
