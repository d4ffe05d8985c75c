/* Summary of the measured phase, as JSON and as text. */
#include "summary.h"

#include <string.h>

static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            fprintf(f, "\\%c", c);
        } else if (c < 0x20) {
            fprintf(f, "\\u%04x", c);
        } else {
            fputc(c, f);
        }
    }
    fputc('"', f);
}

static double phase_seconds(const struct sim_phase_result *m)
{
    return (double)(m->end_ns - m->start_ns) / 1e9;
}

/* 0 when the phase wrote nothing (the summary's convention for "undefined"). */
static double phase_waf(const struct sim_phase_result *m)
{
    double waf = 0.0;
    ftl_waf(&m->before, &m->after, &waf);
    return waf;
}

static double per_second(double count, double seconds)
{
    return seconds > 0 ? count / seconds : 0.0;
}

static void json_config(FILE *f, const struct ftl *ftl)
{
    const struct ftl_config *cfg = ftl_config_of(ftl);
    fputs("  \"config\": {", f);
    for (size_t i = 0; ftl_config_key(i); i++) {
        const char *key = ftl_config_key(i);
        char value[64];
        ftl_config_get(cfg, key, value, sizeof(value));
        fprintf(f, "%s\n    \"%s\": ", i ? "," : "", key);
        if (value[0] < '0' || value[0] > '9') {   /* a named value: placement, gc_mode */
            json_string(f, value);
        } else {
            fputs(value, f);
        }
    }
    fputs("\n  },\n", f);
}

/* The average erase count over good blocks (0 when every block is bad: cannot be). */
static double erase_average(const struct ftl_wear *w)
{
    uint64_t good = w->blocks - w->bad_blocks;
    return good ? (double)w->erase_sum / (double)good : 0.0;
}

/* Wear at the end of the run (not a difference: the device's state). */
static void json_wear(FILE *f, const struct ftl *ftl)
{
    struct ftl_wear w;
    ftl_get_wear(ftl, &w);
    fprintf(f, "  \"wear\": {\"blocks\": %llu, \"bad_blocks\": %llu, \"spare_blocks\": %llu, "
            "\"spare_blocks_total\": %llu, \"erase_min\": %u, \"erase_avg\": %.3f, "
            "\"erase_max\": %u, \"pe_cycles\": %llu},\n", (unsigned long long)w.blocks,
            (unsigned long long)w.bad_blocks, (unsigned long long)w.spare_blocks,
            (unsigned long long)w.spare_blocks_total, w.erase_min, erase_average(&w),
            w.erase_max, (unsigned long long)w.pe_cycles);
}

int summary_write_json(FILE *f, const struct ftl *ftl, const struct run_description *run,
                       const struct sim_phase_result *m)
{
    const struct ftl_geometry *g = ftl_geometry_of(ftl);
    const struct workload_spec *w = run->workload;
    double secs = phase_seconds(m);
    uint64_t host_writes = m->after.host_write_pages - m->before.host_write_pages;
    char dist[64];
    dist_name(&w->dist, dist, sizeof(dist));

    fputs("{\n  \"tool\": \"ftl-sim\",\n  \"config_file\": ", f);
    if (run->config_path) {
        json_string(f, run->config_path);
    } else {
        fputs("null", f);
    }
    fputs(",\n", f);
    json_config(f, ftl);
    fprintf(f, "  \"geometry\": {\"page_bytes\": %llu, \"raw_bytes\": %llu, "
            "\"logical_bytes\": %llu, \"lines\": %llu, \"pages_per_line\": %llu, "
            "\"write_pointers\": %llu, \"over_provisioning\": %.4f},\n",
            (unsigned long long)g->page_bytes,
            (unsigned long long)(g->phys_pages * g->page_bytes),
            (unsigned long long)(g->logical_pages * g->page_bytes),
            (unsigned long long)g->lines, (unsigned long long)g->pgs_per_line,
            (unsigned long long)g->write_pointers,
            (double)g->phys_pages / (double)g->logical_pages - 1.0);
    fputs("  \"workload\": {\"rw\": ", f);
    json_string(f, w->trace_path ? "trace" : rw_mode_name(w->rw));
    fprintf(f, ", \"rwmixread\": %u, \"dist\": ", w->rwmixread);
    json_string(f, dist);
    fprintf(f, ", \"bs\": %llu, \"size\": %llu, \"qd\": %u, \"precondition\": ",
            (unsigned long long)w->bs, (unsigned long long)w->region_bytes, run->qd);
    json_string(f, run->precondition);
    fprintf(f, ", \"io_size\": %llu, \"runtime_s\": %.3f, \"seed\": %llu, \"trace\": ",
            (unsigned long long)run->io_bytes, run->runtime_s, (unsigned long long)w->seed);
    if (w->trace_path) {
        json_string(f, w->trace_path);
    } else {
        fputs("null", f);
    }
    fputs("},\n", f);

#define DELTA(field) (unsigned long long)(m->after.field - m->before.field)
    fprintf(f, "  \"precondition_sim_time_s\": %.6f,\n", run->precondition_s);
    fprintf(f, "  \"sim_time_s\": %.6f,\n", secs);
    fprintf(f, "  \"ops\": %llu,\n  \"reads\": %llu,\n  \"writes\": %llu,\n",
            (unsigned long long)(m->reads + m->writes), (unsigned long long)m->reads,
            (unsigned long long)m->writes);
    fprintf(f, "  \"iops\": %.2f,\n  \"read_iops\": %.2f,\n  \"write_iops\": %.2f,\n",
            per_second((double)(m->reads + m->writes), secs),
            per_second((double)m->reads, secs), per_second((double)m->writes, secs));
    fprintf(f, "  \"read_mib_s\": %.4f,\n  \"write_mib_s\": %.4f,\n",
            per_second((double)m->read_bytes / 1048576.0, secs),
            per_second((double)m->write_bytes / 1048576.0, secs));
    fprintf(f, "  \"mean_latency_us\": %.3f,\n  \"p50_latency_us\": %.3f,\n"
            "  \"p99_latency_us\": %.3f,\n  \"max_latency_us\": %.3f,\n",
            latency_hist_mean_ns(&m->latency) / 1e3,
            (double)latency_hist_percentile_ns(&m->latency, 50) / 1e3,
            (double)latency_hist_percentile_ns(&m->latency, 99) / 1e3,
            (double)latency_hist_max_ns(&m->latency) / 1e3);
    fprintf(f, "  \"host_write_pages\": %llu,\n  \"host_read_pages\": %llu,\n"
            "  \"host_trim_pages\": %llu,\n  \"gc_write_pages\": %llu,\n"
            "  \"gc_read_pages\": %llu,\n  \"erased_blocks\": %llu,\n  \"gc_runs\": %llu,\n",
            DELTA(host_write_pages), DELTA(host_read_pages), DELTA(host_trim_pages),
            DELTA(nand_gc_programs), DELTA(nand_gc_reads), DELTA(gc_erased_blocks),
            DELTA(gc_runs));
    fprintf(f, "  \"verify_cmds\": %llu,\n  \"read_errors\": %llu,\n  \"format_cmds\": %llu,\n"
            "  \"format_erased_blocks\": %llu,\n", DELTA(host_verify_cmds), DELTA(read_errors),
            DELTA(format_cmds), DELTA(format_erased_blocks));
    json_wear(f, ftl);
    fputs("  \"write_pointers\": [", f);
    for (unsigned i = 0; i < ftl_write_pointer_count(ftl); i++) {
        fprintf(f, "%s{\"host_pages\": %llu, \"gc_pages\": %llu}", i ? ", " : "",
                DELTA(wp_host_pages[i]), DELTA(wp_gc_pages[i]));
    }
#undef DELTA
    fputs("],\n  \"waf\": ", f);
    if (host_writes) {
        fprintf(f, "%.4f\n}\n", phase_waf(m));
    } else {
        fputs("null\n}\n", f);
    }
    return ferror(f) ? -1 : 0;
}

void summary_print_text(FILE *f, const struct ftl *ftl, const struct sim_phase_result *m)
{
    double secs = phase_seconds(m);
    struct ftl_wear w;
    ftl_get_wear(ftl, &w);
    fprintf(f, "simulated %.3f s: %llu reads, %llu writes, %.0f IOPS, %.1f MiB/s\n", secs,
            (unsigned long long)m->reads, (unsigned long long)m->writes,
            per_second((double)(m->reads + m->writes), secs),
            per_second((double)(m->read_bytes + m->write_bytes) / 1048576.0, secs));
    fprintf(f, "latency: mean %.1f us, p99 %.1f us, max %.1f us\n",
            latency_hist_mean_ns(&m->latency) / 1e3,
            (double)latency_hist_percentile_ns(&m->latency, 99) / 1e3,
            (double)latency_hist_max_ns(&m->latency) / 1e3);
    fprintf(f, "GC: %llu runs, %llu pages moved, %llu blocks erased; WAF %.3f (%s victims)\n",
            (unsigned long long)(m->after.gc_runs - m->before.gc_runs),
            (unsigned long long)(m->after.nand_gc_programs - m->before.nand_gc_programs),
            (unsigned long long)(m->after.gc_erased_blocks - m->before.gc_erased_blocks),
            phase_waf(m), ftl_gc_policy_name(ftl_config_of(ftl)->gc_policy));
    fprintf(f, "flash: %llu read errors, %llu formats (%llu blocks erased), %llu bad blocks; "
            "erase counts min %u, avg %.2f, max %u of %llu P/E cycles\n",
            (unsigned long long)(m->after.read_errors - m->before.read_errors),
            (unsigned long long)(m->after.format_cmds - m->before.format_cmds),
            (unsigned long long)(m->after.format_erased_blocks -
                                 m->before.format_erased_blocks),
            (unsigned long long)w.bad_blocks, w.erase_min, erase_average(&w), w.erase_max,
            (unsigned long long)w.pe_cycles);
}
