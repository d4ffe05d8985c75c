/* The energy and power-state figures of the measured phase (summary_energy.h). */
#include "summary_energy.h"

#include "femu_ftl/energy.h"
#include "json_out.h"

#define GIB (1024.0 * 1024.0 * 1024.0)

static uint64_t phase_ns(const struct sim_phase_result *m)
{
    return m->end_ns > m->start_ns ? m->end_ns - m->start_ns : 0;
}

/* The states the figures list: the configured ones, FTL_PS_MAX at most. */
static uint64_t states_of(const struct ftl_config *cfg)
{
    return cfg->ps_count < FTL_PS_MAX ? cfg->ps_count : FTL_PS_MAX;
}

static void json_energy(FILE *f, const struct ftl_config *cfg,
                        const struct sim_phase_result *m)
{
    struct ftl_energy e;
    uint64_t ns = phase_ns(m);
    ftl_energy_between(cfg, &m->before, &m->after, ns, &e);
    fprintf(f, "  \"energy_j\": %.9f,\n  \"mean_power_w\": %.6f,\n  \"energy_split_j\": {",
            e.total_j, ns ? e.total_j * 1e9 / (double)ns : 0.0);
    for (int i = 0; i < FTL_ENERGY_PARTS; i++) {
        fprintf(f, "%s\"%s\": %.9f", i ? ", " : "", ftl_energy_part_name(i), e.part_j[i]);
    }
    fputs("},\n  \"j_per_gib_written\": ", f);
    /* undefined without host writes: null, as WAF */
    if (m->write_bytes) {
        fprintf(f, "%.9f,\n", e.total_j / ((double)m->write_bytes / GIB));
    } else {
        fputs("null,\n", f);
    }
}

static void json_power_states(FILE *f, const struct ftl_config *cfg,
                              const struct sim_phase_result *m)
{
    fputs("  \"ps_time_s\": [", f);
    for (uint64_t i = 0; i < states_of(cfg); i++) {
        fprintf(f, "%s%.9f", i ? ", " : "",
                (double)(m->after.ps_time_ns[i] - m->before.ps_time_ns[i]) / 1e9);
    }
    uint64_t exits = m->after.ps_exits - m->before.ps_exits;
    uint64_t wait = m->after.ps_exit_wait_ns - m->before.ps_exit_wait_ns;
    /* every command an exit held counts its wait: one exit may hold a whole burst */
    fprintf(f, "],\n  \"ps_exits\": %llu,\n  \"ps_exit_wait_us\": %.3f,\n"
            "  \"ps_exit_wait_us_per_exit\": ", (unsigned long long)exits, (double)wait / 1e3);
    json_number_or_null(f, exits > 0, exits ? (double)wait / (double)exits / 1e3 : 0.0,
                        ",\n");
}

void summary_json_energy(FILE *f, const struct ftl *ftl, const struct sim_phase_result *m)
{
    const struct ftl_config *cfg = ftl_config_of(ftl);
    if (ftl_config_energy_on(cfg)) {
        json_energy(f, cfg, m);
    }
    if (cfg->ps_count > 1) {
        json_power_states(f, cfg, m);
    }
}

static const char *const part_labels[FTL_ENERGY_PARTS] = {
    "NAND read", "program", "erase", "channel", "link", "controller", "DRAM", "static",
};

void summary_print_energy(FILE *f, const struct ftl *ftl, const struct sim_phase_result *m)
{
    const struct ftl_config *cfg = ftl_config_of(ftl);
    if (ftl_config_energy_on(cfg)) {
        struct ftl_energy e;
        uint64_t ns = phase_ns(m);
        ftl_energy_between(cfg, &m->before, &m->after, ns, &e);
        fprintf(f, "energy: %.6f J, mean %.4f W (", e.total_j,
                ns ? e.total_j * 1e9 / (double)ns : 0.0);
        for (int i = 0; i < FTL_ENERGY_PARTS; i++) {
            fprintf(f, "%s%s %.6f", i ? ", " : "", part_labels[i], e.part_j[i]);
        }
        fputs(" J)", f);
        if (m->write_bytes) {
            fprintf(f, "; %.6f J per GiB written", e.total_j / ((double)m->write_bytes / GIB));
        }
        fputc('\n', f);
    }
    if (cfg->ps_count > 1) {
        fputs("power states:", f);
        for (uint64_t i = 0; i < states_of(cfg); i++) {
            fprintf(f, " PS%llu %.3f s%s", (unsigned long long)i,
                    (double)(m->after.ps_time_ns[i] - m->before.ps_time_ns[i]) / 1e9,
                    i + 1 < states_of(cfg) ? "," : ";");
        }
        uint64_t exits = m->after.ps_exits - m->before.ps_exits;
        uint64_t wait = m->after.ps_exit_wait_ns - m->before.ps_exit_wait_ns;
        fprintf(f, " %llu exits from non-operational states", (unsigned long long)exits);
        if (exits) {
            fprintf(f, "; commands waited %.3f us for them, %.3f us per exit",
                    (double)wait / 1e3, (double)wait / (double)exits / 1e3);
        }
        fputc('\n', f);
    }
}
