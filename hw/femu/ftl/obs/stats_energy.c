/* stats.csv's and phases.csv's energy and power-state columns (STATS.md): joules from the
 * energy model, mean watts over the interval, ms in each power state and the exits from
 * non-operational states. */
#include "obs/stats_energy.h"

#include "femu_ftl/energy.h"

bool stats_energy_wanted(const struct ftl_config *cfg)
{
    return ftl_config_energy_on(cfg);
}

bool stats_ps_wanted(const struct ftl_config *cfg)
{
    return cfg->ps_count > 1;
}

/* The states a row lists: the configured ones (a table never holds more than
 * FTL_PS_MAX, the counters' size). */
static uint64_t ps_columns(const struct ftl_config *cfg)
{
    return cfg->ps_count < FTL_PS_MAX ? cfg->ps_count : FTL_PS_MAX;
}

void stats_energy_header(FILE *f, const struct ftl_config *cfg, bool with_power)
{
    if (stats_energy_wanted(cfg)) {
        fputs(with_power ? ",energy_j,power_w" : ",energy_j", f);
    }
    if (stats_ps_wanted(cfg)) {
        for (uint64_t i = 0; i < ps_columns(cfg); i++) {
            fprintf(f, ",ps%llu_ms", (unsigned long long)i);
        }
        fputs(",ps_exits", f);
    }
}

void stats_energy_values(FILE *f, const struct ftl_config *cfg, bool with_power,
                         const struct ftl_counters *a, const struct ftl_counters *b,
                         uint64_t elapsed_ns)
{
    if (stats_energy_wanted(cfg)) {
        struct ftl_energy e;
        ftl_energy_between(cfg, a, b, elapsed_ns, &e);
        fprintf(f, ",%.9f", e.total_j);
        if (with_power) {
            fprintf(f, ",%.6f", elapsed_ns ? e.total_j * 1e9 / (double)elapsed_ns : 0.0);
        }
    }
    if (stats_ps_wanted(cfg)) {
        for (uint64_t i = 0; i < ps_columns(cfg); i++) {
            uint64_t t = b->ps_time_ns[i] - a->ps_time_ns[i];
            fprintf(f, ",%.3f", (double)t / 1e6);
        }
        fprintf(f, ",%llu", (unsigned long long)(b->ps_exits - a->ps_exits));
    }
}
