/*
 * The energy model (docs/energy.md): the joules a drive spent between two counter
 * snapshots, by component. Pure: it reads the configuration's figures and the counters'
 * differences, so any two snapshots (a statistics row, a phase, a whole run, a replay)
 * price alike, and the energy of consecutive intervals adds up to their span's.
 */
#ifndef FEMU_FTL_ENERGY_H
#define FEMU_FTL_ENERGY_H

#include <stdint.h>

#include "femu_ftl/config.h"
#include "femu_ftl/ftl.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The components, in the order the summary lists them. */
enum ftl_energy_part {
    FTL_ENERGY_NAND_READ,       /* VCC x ICC1 x the LUNs' sense time */
    FTL_ENERGY_NAND_PROGRAM,    /* VCC x ICC2 x their program time */
    FTL_ENERGY_NAND_ERASE,      /* VCC x ICC3 x their erase time */
    FTL_ENERGY_CHANNEL,         /* channel bus bytes x nand_io_pj_per_byte */
    FTL_ENERGY_LINK,            /* PCIe bytes both ways x 8 x pcie_fj_per_bit */
    FTL_ENERGY_CONTROLLER,      /* cores' busy time x ctrl_active_mw */
    FTL_ENERGY_DRAM,            /* time in operational power states x dram_active_mw */
    FTL_ENERGY_STATIC,          /* each power state's time x its idle_mw */
    FTL_ENERGY_PARTS
};

struct ftl_energy {
    double part_j[FTL_ENERGY_PARTS];
    double total_j;             /* the parts' sum */
};

/*
 * The energy spent from snapshot a to snapshot b, elapsed_ns apart, priced with cfg's
 * figures (whether or not cfg->energy is on). The power-state parts read
 * ps_time_ns[0, ps_count) as given; the DRAM's time is elapsed_ns less the time in
 * non-operational states (never below 0).
 */
void ftl_energy_between(const struct ftl_config *cfg, const struct ftl_counters *a,
                        const struct ftl_counters *b, uint64_t elapsed_ns,
                        struct ftl_energy *out);

/* A component's name as the summary writes it ("nand_read", ..., "static"). */
const char *ftl_energy_part_name(enum ftl_energy_part part);

#ifdef __cplusplus
}
#endif

#endif
