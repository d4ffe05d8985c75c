/* The energy model (femu_ftl/energy.h): each component is a count of work (ns, bytes)
 * times a figure, in doubles so that no figure in its key's range overflows over any
 * length of run (a month of 1000 LUNs sensing is 2.6e18 ns: past uint64_t once priced). */
#include "femu_ftl/energy.h"

static const char *const part_names[FTL_ENERGY_PARTS] = {
    "nand_read", "nand_program", "nand_erase", "channel", "link", "controller", "dram",
    "static",
};

const char *ftl_energy_part_name(enum ftl_energy_part part)
{
    return (unsigned)part < FTL_ENERGY_PARTS ? part_names[part] : "?";
}

/* b - a, or 0 if b is the older snapshot (a caller's mistake, never a huge count) */
static double diff(uint64_t a, uint64_t b)
{
    return b > a ? (double)(b - a) : 0.0;
}

/* Units: mV x uA x ns = 1e-18 J; mW x ns, pJ = 1e-12 J; fJ = 1e-15 J. */
#define AJ 1e-18
#define PJ 1e-12
#define FJ 1e-15

void ftl_energy_between(const struct ftl_config *cfg, const struct ftl_counters *a,
                        const struct ftl_counters *b, uint64_t elapsed_ns,
                        struct ftl_energy *out)
{
    double vcc = (double)cfg->nand_vcc_mv;
    double *j = out->part_j;

    j[FTL_ENERGY_NAND_READ] = diff(a->nand_sense_ns, b->nand_sense_ns) * vcc *
                              (double)cfg->nand_icc_read_ua * AJ;
    j[FTL_ENERGY_NAND_PROGRAM] = diff(a->nand_program_ns, b->nand_program_ns) * vcc *
                                 (double)cfg->nand_icc_prog_ua * AJ;
    j[FTL_ENERGY_NAND_ERASE] = diff(a->nand_erase_ns, b->nand_erase_ns) * vcc *
                               (double)cfg->nand_icc_erase_ua * AJ;
    j[FTL_ENERGY_CHANNEL] = diff(a->ch_bytes, b->ch_bytes) *
                            (double)cfg->nand_io_pj_per_byte * PJ;
    j[FTL_ENERGY_LINK] = (diff(a->link_up_bytes, b->link_up_bytes) +
                          diff(a->link_down_bytes, b->link_down_bytes)) * 8.0 *
                         (double)cfg->pcie_fj_per_bit * FJ;
    j[FTL_ENERGY_CONTROLLER] = diff(a->ctrl_busy_ns, b->ctrl_busy_ns) *
                               (double)cfg->ctrl_active_mw * PJ;

    /* Static: every state's share of the time at its idle power. The DRAM is powered in
     * operational states only (a non-operational state's idle_mw covers what it keeps). */
    uint64_t states = cfg->ps_count < FTL_PS_MAX ? cfg->ps_count : FTL_PS_MAX;
    double idle = 0.0, nonop_ns = 0.0;
    for (uint64_t i = 0; i < states; i++) {
        double t = diff(a->ps_time_ns[i], b->ps_time_ns[i]);
        idle += t * (double)cfg->ps[i].idle_mw;
        if (cfg->ps[i].nonop) {
            nonop_ns += t;
        }
    }
    double operational_ns = (double)elapsed_ns > nonop_ns ? (double)elapsed_ns - nonop_ns
                                                          : 0.0;
    j[FTL_ENERGY_DRAM] = operational_ns * (double)cfg->dram_active_mw * PJ;
    j[FTL_ENERGY_STATIC] = idle * PJ;

    out->total_j = 0.0;
    for (int i = 0; i < FTL_ENERGY_PARTS; i++) {
        out->total_j += j[i];
    }
}
