/* The summary's key-value part (summary_kv.h). */
#include "summary_kv.h"

#include "json_out.h"
#include "kv_run.h"

#define DELTA(p, field) ((p)->after.field - (p)->before.field)

static double seconds_of(const struct sim_phase_result *p)
{
    return (double)(p->end_ns - p->start_ns) / 1e9;
}

/* Operations of a phase: the mix's (an rmw once), the load's inserts, the file's. */
static uint64_t operations(const struct kv_phase_stats *s)
{
    uint64_t n = 0;
    for (int k = 0; k < KV_KINDS; k++) {
        n += k == KV_KIND_RMW_STORE ? 0 : s->kinds[k];
    }
    return n;
}

static double per_second(uint64_t n, const struct sim_phase_result *p)
{
    double s = seconds_of(p);
    return s > 0 ? (double)n / s : 0.0;
}

/* Flash bytes programmed / value bytes stored over the phase; false when none stored. */
static bool kv_waf(const struct ftl *ftl, const struct sim_phase_result *p, double *waf)
{
    uint64_t stored = DELTA(p, kv_store_bytes);
    uint64_t programs = ftl_nand_programs(&p->after) - ftl_nand_programs(&p->before);
    if (stored == 0) {
        return false;
    }
    *waf = (double)programs * (double)ftl_geometry_of(ftl)->page_bytes / (double)stored;
    return true;
}

static bool hit_rate(const struct sim_phase_result *p, double *rate)
{
    uint64_t hits = DELTA(p, kv_index_hits), misses = DELTA(p, kv_index_misses);
    if (hits + misses == 0) {
        return false;
    }
    *rate = (double)hits / (double)(hits + misses);
    return true;
}

static void json_statuses(FILE *f, const struct kv_phase_stats *s)
{
    fputs("{", f);
    for (int c = 0; c < KV_COMMANDS; c++) {
        fprintf(f, "%s\"%s\": {", c ? ", " : "", kv_command_names[c]);
        for (int i = 0; i < KV_STATUSES; i++) {
            fprintf(f, "%s\"%s\": %llu", i ? ", " : "", kv_status_names[i],
                    (unsigned long long)s->status[c][i]);
        }
        fputs("}", f);
    }
    fputs("}", f);
}

static void json_latency(FILE *f, const struct kv_phase_stats *s)
{
    fputs("{", f);
    for (int c = 0; c < KV_COMMANDS; c++) {
        const struct latency_hist *h = &s->latency[c];
        fprintf(f, "%s\"%s\": {\"count\": %llu, \"mean\": %.3f, \"p50\": %.3f, "
                "\"p99\": %.3f, \"max\": %.3f}", c ? ", " : "", kv_command_names[c],
                (unsigned long long)latency_hist_count(h), latency_hist_mean_ns(h) / 1e3,
                (double)latency_hist_percentile_ns(h, 50) / 1e3,
                (double)latency_hist_percentile_ns(h, 99) / 1e3,
                (double)latency_hist_max_ns(h) / 1e3);
    }
    fputs("}", f);
}

static void json_counters(FILE *f, const struct sim_phase_result *m)
{
#define COUNTER(name) fprintf(f, "    \"" #name "\": %llu,\n", \
                              (unsigned long long)DELTA(m, name))
    COUNTER(kv_stores); COUNTER(kv_retrieves); COUNTER(kv_deletes); COUNTER(kv_exists);
    COUNTER(kv_lists); COUNTER(kv_store_bytes); COUNTER(kv_retrieve_bytes);
    COUNTER(kv_index_hits); COUNTER(kv_index_misses); COUNTER(kv_index_page_reads);
    COUNTER(kv_index_page_writes); COUNTER(kv_compactions); COUNTER(kv_compaction_pages);
#undef COUNTER
}

static void json_load(FILE *f, const struct ftl *ftl, const struct kv_run *kv)
{
    const struct sim_phase_result *p = kv->load;
    double waf = 0;
    if (!p) {
        fputs("    \"load\": null\n", f);
        return;
    }
    uint64_t ops = operations(kv->load_stats);
    fprintf(f, "    \"load\": {\"ops\": %llu, \"seconds\": %.6f, \"ops_per_s\": %.1f, "
            "\"waf\": ", (unsigned long long)ops, seconds_of(p), per_second(ops, p));
    bool have_waf = kv_waf(ftl, p, &waf);
    json_number_or_null(f, have_waf, waf, "");
    fputs(", \"status\": ", f);
    json_statuses(f, kv->load_stats);
    fputs("}\n", f);
}

static void json_spec(FILE *f, const struct kv_run *kv)
{
    const struct kv_spec *s = kv->spec;
    fprintf(f, "    \"mix\": \"%s\",\n    \"dist\": ", s->ops_file ? "file"
                                                             : kv_mix_names[s->mix]);
    json_string_or_null(f, s->ops_file ? NULL : kv_dist_names[kv_gen_dist(kv->gen)]);
    fprintf(f, ",\n    \"keys_loaded\": %llu,\n    \"value_min\": %llu,\n"
            "    \"value_max\": %llu,\n    \"ops_file\": ",
            (unsigned long long)(s->ops_file ? 0 : s->keys), (unsigned long long)s->value_min,
            (unsigned long long)s->value_max);
    json_string_or_null(f, s->ops_file);
    fprintf(f, ",\n    \"capacity_bytes\": %llu,\n    \"max_keys\": %llu,\n"
            "    \"max_value_bytes\": %u,\n", (unsigned long long)kv->info.capacity_bytes,
            (unsigned long long)kv->info.max_keys, kv->info.max_value_bytes);
}

void summary_json_kv(FILE *f, const struct ftl *ftl, const struct kv_run *kv,
                     const struct sim_phase_result *m)
{
    if (!kv || !kv->gen) {
        return;
    }
    const struct kv_phase_stats *s = kv->stats;
    static const char *const mix_kinds[] = { "read", "update", "insert", "scan", "rmw" };
    uint64_t ops = operations(s);
    struct ftl_gauges g;
    double waf = 0, rate = 0;
    ftl_get_gauges(ftl, &g);
    fputs("  \"kv\": {\n", f);
    json_spec(f, kv);
    fprintf(f, "    \"ops\": %llu,\n    \"seconds\": %.6f,\n    \"ops_per_s\": %.1f,\n"
            "    \"mix_ops\": {", (unsigned long long)ops, seconds_of(m), per_second(ops, m));
    for (int k = 0; k <= KV_KIND_RMW; k++) {
        fprintf(f, "%s\"%s\": %llu", k ? ", " : "", mix_kinds[k],
                (unsigned long long)s->kinds[k]);
    }
    fputs("},\n    \"latency_us\": ", f);
    json_latency(f, s);
    fputs(",\n    \"status\": ", f);
    json_statuses(f, s);
    bool have_rate = hit_rate(m, &rate), have_waf = kv_waf(ftl, m, &waf);
    fputs(",\n    \"index_hit_rate\": ", f);
    json_number_or_null(f, have_rate, rate, "");
    fputs(",\n    \"waf\": ", f);
    json_number_or_null(f, have_waf, waf, "");
    fputs(",\n", f);
    json_counters(f, m);
    fprintf(f, "    \"kv_keys\": %llu,\n    \"kv_live_bytes\": %llu,\n",
            (unsigned long long)g.kv_keys, (unsigned long long)g.kv_live_bytes);
    json_load(f, ftl, kv);
    fputs("  },\n", f);
}

/* The failures of a phase, "" when none: "store capacity 3, retrieve no_key 1". */
static void print_failures(FILE *f, const struct kv_phase_stats *s)
{
    bool any = false;
    for (int c = 0; c < KV_COMMANDS; c++) {
        for (int i = 1; i < KV_STATUSES; i++) {
            if (s->status[c][i]) {
                fprintf(f, "%s%s %s %llu", any ? ", " : "KV failures: ", kv_command_names[c],
                        kv_status_names[i], (unsigned long long)s->status[c][i]);
                any = true;
            }
        }
    }
    if (any) {
        fputc('\n', f);
    }
}

static void print_value(FILE *f, const char *label, bool have, double v)
{
    if (have) {
        fprintf(f, "%s %.4f", label, v);
    } else {
        fprintf(f, "%s n/a", label);
    }
}

void summary_print_kv(FILE *f, const struct ftl *ftl, const struct kv_run *kv,
                      const struct sim_phase_result *m)
{
    if (m && m->kv_refused) {   /* a replay without --kv */
        fprintf(f, "key-value: %llu replayed commands refused by the store's rules\n",
                (unsigned long long)m->kv_refused);
    }
    if (!kv || !kv->gen) {
        return;
    }
    const struct kv_phase_stats *s = kv->stats;
    double waf = 0, rate = 0;
    if (kv->load) {
        fprintf(f, "KV load: %llu inserts in %.3f s (%.0f ops/s)\n",
                (unsigned long long)operations(kv->load_stats), seconds_of(kv->load),
                per_second(operations(kv->load_stats), kv->load));
        print_failures(f, kv->load_stats);
    }
    fprintf(f, "KV %s: %llu ops in %.3f s: %.0f ops/s\n",
            kv->spec->ops_file ? "ops file" : kv_mix_names[kv->spec->mix],
            (unsigned long long)operations(s), seconds_of(m), per_second(operations(s), m));
    for (int c = 0; c < KV_COMMANDS; c++) {
        const struct latency_hist *h = &s->latency[c];
        if (latency_hist_count(h)) {
            fprintf(f, "KV %-8s %llu served, latency p50 %.1f us, p99 %.1f us\n",
                    kv_command_names[c], (unsigned long long)latency_hist_count(h),
                    (double)latency_hist_percentile_ns(h, 50) / 1e3,
                    (double)latency_hist_percentile_ns(h, 99) / 1e3);
        }
    }
    print_failures(f, s);
    bool have_rate = hit_rate(m, &rate), have_waf = kv_waf(ftl, m, &waf);
    print_value(f, "KV index hit rate", have_rate, rate);
    print_value(f, ", KV WAF", have_waf, waf);
    fprintf(f, ", %llu compactions (%llu pages)\n", (unsigned long long)DELTA(m, kv_compactions),
            (unsigned long long)DELTA(m, kv_compaction_pages));
}
