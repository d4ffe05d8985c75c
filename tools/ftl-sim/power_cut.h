/*
 * --power-cut-at: the FTL's power cut at the end of the measured part (ftl_power_cut,
 * docs/ftl.md "Power loss"), the lost ranges sorted and merged for --lost-out, and what
 * the summary reports of it.
 */
#ifndef FTL_SIM_POWER_CUT_H
#define FTL_SIM_POWER_CUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "femu_ftl/ftl.h"

struct sim_power_cut {
    uint64_t at_ns;             /* the cut, simulated time */
    bool plp;                   /* the configuration's plp */
    uint64_t cut_requests;      /* issued, not completed at the cut */
    struct ftl_power_cut_result res;
    struct ftl_loss_list lost;  /* the device's sectors (LBAs of secsz bytes), merged */
};

/* Cut ftl's power at at_ns and collect what it lost. 0, or -1 with a reason. */
int sim_power_cut(struct ftl *ftl, uint64_t at_ns, bool plp, struct sim_power_cut *out,
                  char *err, size_t errlen);
/* The lost ranges as CSV: a header "kind,slba,nlb", then one line per range. 0 or -1. */
int sim_power_cut_write_csv(const struct sim_power_cut *pc, FILE *f);
/* The summary's "power_cut" object, and the text summary's line. */
void sim_power_cut_json(const struct sim_power_cut *pc, const char *lost_out, FILE *f);
void sim_power_cut_text(const struct sim_power_cut *pc, FILE *f);
void sim_power_cut_free(struct sim_power_cut *pc);

#endif
