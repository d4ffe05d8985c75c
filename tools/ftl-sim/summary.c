/* Summary of the measured phase, as JSON and as text. */
#include "summary.h"

#include <string.h>

#include "json_out.h"
#include "summary_cache.h"
#include "summary_energy.h"
#include "summary_front.h"
#include "summary_hybrid.h"
#include "summary_kv.h"
#include "summary_placement.h"
#include "unit_log.h"

/* What the trace reader saw: format, records, bad lines skipped, the LBA map's work. */
static void json_trace_input(FILE *f, const struct trace_input_summary *t,
                             const char *filters)
{
    const struct tin_counts *c = &t->counts;
    fputs("  \"trace_input\": {\"format\": ", f);
    json_string(f, t->format);
    fprintf(f, ", \"records\": %llu, \"skipped_bad\": %llu, \"zero_length\": %llu, "
            "\"filtered\": %llu, \"remapped\": %llu, \"dropped\": %llu, \"lba_map\": ",
            (unsigned long long)c->records, (unsigned long long)c->bad,
            (unsigned long long)c->zero_length, (unsigned long long)c->filtered,
            (unsigned long long)t->remapped, (unsigned long long)t->dropped);
    json_string_or_null(f, t->lba_map);
    fprintf(f, ", \"sector_size\": %llu, \"filters\": ", (unsigned long long)t->sector_size);
    json_string(f, filters);
    fputs("},\n", f);
}

static double phase_seconds(const struct sim_phase_result *m)
{
    return (double)(m->end_ns - m->start_ns) / 1e9;
}

/* The phase's WAF (ftl_waf, the one definition): false when undefined, which the JSON
 * says as null and the text as n/a. */
static bool phase_waf(const struct sim_phase_result *m, double *waf)
{
    return ftl_waf(&m->before, &m->after, waf);
}

/* Why the WAF is undefined: zone writes count in neither its host pages nor its programs,
 * so a zoned run may have written much and still have no WAF. */
static const char *no_waf_reason(const struct sim_phase_result *m)
{
    return m->after.zone_programs > m->before.zone_programs
               ? "zone writes count in neither its host pages nor its programs, and no "
                 "other page was written"
               : "the host wrote no page";
}

/* ftl_waf's parts, as femu_analysis/waf.py names them in JSON and in text. */
static const char *const waf_part_names[FTL_WAF_PARTS] = { "host", "gc", "fold", "map",
                                                            "copy" };
static const char *const waf_part_labels[FTL_WAF_PARTS] = { "host", "GC", "fold", "map",
                                                             "copy" };

/* Each part's programs / host pages (ftl_waf's host pages), all 0 when the host wrote none. */
static void phase_waf_parts(const struct sim_phase_result *m, double out[FTL_WAF_PARTS])
{
    uint64_t programs[FTL_WAF_PARTS];
    uint64_t host = ftl_waf_programs(&m->before, &m->after, programs);
    for (int i = 0; i < FTL_WAF_PARTS; i++) {
        out[i] = host > 0 ? (double)programs[i] / (double)host : 0.0;
    }
}

static double per_second(double count, double seconds)
{
    return seconds > 0 ? count / seconds : 0.0;
}

/* hits / lookups of the phase; false when there was no lookup */
static bool cmt_hit_rate(const struct sim_phase_result *m, double *rate)
{
    uint64_t hits = m->after.cmt_hits - m->before.cmt_hits;
    uint64_t lookups = hits + m->after.cmt_misses - m->before.cmt_misses;
    if (lookups == 0) {
        return false;
    }
    *rate = (double)hits / (double)lookups;
    return true;
}

/* sum / runs, 0 without a run */
static double mean_of(uint64_t sum, uint64_t runs)
{
    return runs ? (double)sum / (double)runs : 0.0;
}

/* [[valid, victims], ...] over the counts that occurred (the whole run's histogram) */
static void json_victims(FILE *f, const struct ftl *ftl, bool map)
{
    size_t n;
    const uint64_t *h = ftl_victim_histogram(ftl, map, &n);
    bool first = true;
    fputc('[', f);
    for (size_t v = 0; v < n; v++) {
        if (h[v]) {
            fprintf(f, "%s[%zu, %llu]", first ? "" : ", ", v, (unsigned long long)h[v]);
            first = false;
        }
    }
    fputc(']', f);
}

/* The SLC cache's counters of the phase and its size at the end (slc_cache=on only). */
static void print_slc_counters(FILE *f, const struct ftl *ftl, const struct sim_phase_result *m)
{
#define DELTA(field) (unsigned long long)(m->after.field - m->before.field)
    struct ftl_gauges g;
    if (!ftl_config_of(ftl)->slc_cache) {
        return;
    }
    ftl_get_gauges(ftl, &g);
    fprintf(f, "SLC cache: %llu host pages absorbed, %llu written direct (cache full), "
            "%llu folded (%llu blocks erased, %llu units folded in the foreground)\n",
            DELTA(slc_host_pages), DELTA(slc_direct_pages), DELTA(slc_folded_pages),
            DELTA(slc_fold_erases), DELTA(slc_fg_fold_units));
    /* the allowance is re-evaluated as valid data grows; pages already in the cache stay
     * until folded, so the data held may exceed it (docs/ftl.md, the pseudo-SLC cache) */
    fprintf(f, "SLC cache: allowance %llu pages at the current valid data, %llu pages of data "
            "in SLC units until folded\n",
            (unsigned long long)g.slc_cap_pages, (unsigned long long)g.slc_used_pages);
#undef DELTA
}

static void json_slc_counters(FILE *f, const struct ftl *ftl, const struct sim_phase_result *m)
{
#define DELTA(field) (unsigned long long)(m->after.field - m->before.field)
    struct ftl_gauges g;
    if (!ftl_config_of(ftl)->slc_cache) {
        return;
    }
    ftl_get_gauges(ftl, &g);
    fprintf(f, "  \"slc_host_pages\": %llu,\n  \"slc_direct_pages\": %llu,\n"
            "  \"slc_folded_pages\": %llu,\n  \"slc_fold_erases\": %llu,\n"
            "  \"slc_fg_fold_units\": %llu,\n  \"slc_cap_pages\": %llu,\n"
            "  \"slc_used_pages\": %llu,\n", DELTA(slc_host_pages), DELTA(slc_direct_pages),
            DELTA(slc_folded_pages), DELTA(slc_fold_erases), DELTA(slc_fg_fold_units),
            (unsigned long long)g.slc_cap_pages, (unsigned long long)g.slc_used_pages);
#undef DELTA
}

/* Where the host pages written through the buffer went, and the buffer at the end: a WAF
 * below 1 is its absorbed pages and the pages still pending (never programmed). */
static void print_buffer_accounting(FILE *f, const struct ftl *ftl,
                                    const struct sim_phase_result *m)
{
#define DELTA(field) (unsigned long long)(m->after.field - m->before.field)
    if (!ftl_config_of(ftl)->write_buffer_sectors) {
        return;
    }
    fprintf(f, "buffer host pages: %llu absorbed (a later write replaced them in the "
            "buffer), %llu flushed, %llu dropped (trim, format, Copy, power cut)\n",
            DELTA(buf_absorbed_pages), DELTA(buf_flushed_pages), DELTA(buf_dropped_pages));
    if (m->buf_pending_after) {
        fprintf(f, "buffer at the end: %llu pages pending (counted as host pages, never "
                "programmed: the run ends without a flush)\n",
                (unsigned long long)m->buf_pending_after);
    } else {
        fputs("buffer at the end: empty (flushed)\n", f);
    }
#undef DELTA
}

/* The buffer's pages: written through it = absorbed + flushed + dropped + pending delta. */
static void json_buffer_accounting(FILE *f, const struct ftl *ftl,
                                   const struct sim_phase_result *m)
{
#define DELTA(field) (unsigned long long)(m->after.field - m->before.field)
    bool on = ftl_config_of(ftl)->write_buffer_sectors > 0;
    fprintf(f, "  \"buf_absorbed_pages\": %llu,\n  \"buf_dropped_pages\": %llu,\n"
            "  \"buf_pending_pages_start\": %llu,\n  \"buf_pending_pages\": %llu,\n"
            "  \"write_buffer_end\": \"%s\",\n", DELTA(buf_absorbed_pages),
            DELTA(buf_dropped_pages), (unsigned long long)m->buf_pending_before,
            (unsigned long long)m->buf_pending_after,
            !on ? "off" : m->buf_pending_after ? "pending" : "flushed");
#undef DELTA
}

/* Mapping, write buffer, fallback and victim counters of the phase. */
static void json_issue15_counters(FILE *f, const struct ftl *ftl,
                                  const struct sim_phase_result *m)
{
#define DELTA(field) (unsigned long long)(m->after.field - m->before.field)
    const struct ftl_geometry *g = ftl_geometry_of(ftl);
    fputs("  \"mapping\": ", f);
    json_string(f, ftl_mapping_name(ftl_config_of(ftl)->mapping));
    fprintf(f, ",\n  \"map_reads\": %llu,\n  \"map_writes\": %llu,\n  \"map_gc_runs\": %llu,\n"
            "  \"map_gc_moved_pages\": %llu,\n  \"cmt_hits\": %llu,\n  \"cmt_misses\": %llu,\n"
            "  \"cmt_writebacks\": %llu,\n  \"gc_map_updates\": %llu,\n  \"cmt_hit_rate\": ",
            DELTA(map_reads), DELTA(map_writes), DELTA(map_gc_runs), DELTA(map_gc_moved_pages),
            DELTA(cmt_hits), DELTA(cmt_misses), DELTA(cmt_writebacks), DELTA(gc_map_updates));
    double rate;
    if (cmt_hit_rate(m, &rate)) {
        fprintf(f, "%.6f,\n", rate);
    } else {
        fputs("null,\n", f);
    }
    fprintf(f, "  \"buf_read_hits\": %llu,\n  \"buf_absorbed_sectors\": %llu,\n"
            "  \"buf_flushed_pages\": %llu,\n  \"buf_fill_reads\": %llu,\n"
            "  \"fallback_runs\": %llu,\n  \"fallback_lines\": %llu,\n  \"fallback_pages\": %llu,\n"
            "  \"gc_victim_valid_pages\": %llu,\n  \"map_gc_victim_valid_pages\": %llu,\n",
            DELTA(buf_read_hits), DELTA(buf_absorbed_sectors), DELTA(buf_flushed_pages),
            DELTA(buf_fill_reads), DELTA(fallback_runs), DELTA(fallback_lines), DELTA(fallback_pages),
            DELTA(gc_victim_valid_pages), DELTA(map_gc_victim_valid_pages));
    json_buffer_accounting(f, ftl, m);
    fputs("  \"victim_histogram\": {\"data\": ", f);
    json_victims(f, ftl, false);
    fputs(", \"map\": ", f);
    json_victims(f, ftl, true);
    fprintf(f, "},\n  \"device_map_bytes\": %llu,\n  \"metadata_bytes_per_phys_page\": %.3f,\n",
            (unsigned long long)ftl_device_map_bytes(ftl),
            (double)ftl_metadata_bytes(ftl) / (double)g->phys_pages);
#undef DELTA
}

/* The ZNS+ counters of the phase: NAND traffic in flash pages, Copy, zones. */
static void json_zns_counters(FILE *f, const struct sim_phase_result *m)
{
#define DELTA(field) (unsigned long long)(m->after.field - m->before.field)
    fprintf(f, "  \"NAND_read\": %llu,\n  \"NAND_write\": %llu,\n  \"NAND_cpbk\": %llu,\n",
            (unsigned long long)(ftl_nand_reads(&m->after) - ftl_nand_reads(&m->before)),
            (unsigned long long)(ftl_nand_programs(&m->after) -
                                 ftl_nand_programs(&m->before)),
            DELTA(nand_copybacks));
    fprintf(f, "  \"copy_cmds\": %llu,\n  \"copy_pages\": %llu,\n  \"nand_copy_reads\": %llu,\n"
            "  \"nand_copy_programs\": %llu,\n", DELTA(copy_cmds), DELTA(copy_pages),
            DELTA(nand_copy_reads), DELTA(nand_copy_programs));
    fprintf(f, "  \"zone_write_cmds\": %llu,\n  \"zone_append_cmds\": %llu,\n"
            "  \"zone_read_cmds\": %llu,\n  \"zone_mgmt_cmds\": %llu,\n"
            "  \"zone_programs\": %llu,\n  \"zone_reads\": %llu,\n  \"zone_resets\": %llu,\n"
            "  \"zone_finishes\": %llu,\n  \"zone_erased_blocks\": %llu,\n"
            "  \"zone_errors\": %llu,\n  \"kv_refused\": %llu,\n  \"zrwa_writes\": %llu,\n"
            "  \"zrwa_overwrites\": %llu,\n  \"zrwa_commit_pages_implicit\": %llu,\n"
            "  \"zrwa_commit_pages_explicit\": %llu,\n", DELTA(zone_write_cmds),
            DELTA(zone_append_cmds), DELTA(zone_read_cmds), (unsigned long long)m->zone_mgmts,
            DELTA(zone_programs), DELTA(zone_reads), DELTA(zone_resets), DELTA(zone_finishes),
            DELTA(zone_erased_blocks), (unsigned long long)m->zone_errors,
            (unsigned long long)m->kv_refused, DELTA(zrwa_writes), DELTA(zrwa_overwrites),
            DELTA(zrwa_commit_pages_implicit), DELTA(zrwa_commit_pages_explicit));
#undef DELTA
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
        if (!value[0] || value[strspn(value, "0123456789")]) {   /* a name: 2q, paced */
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

/* Read retries: the phase's counts, and the whole run's histogram of host page reads by
 * age class (row) and retry steps taken (column), with each step count's sense time. */
static void json_read_retries(FILE *f, const struct ftl *ftl, const struct sim_phase_result *m)
{
#define DELTA(field) (unsigned long long)(m->after.field - m->before.field)
    const struct ftl_config *cfg = ftl_config_of(ftl);
    size_t n;
    const uint64_t *h = ftl_read_retry_histogram(ftl, &n);
    fprintf(f, "  \"read_retries\": %llu,\n  \"retried_reads\": %llu,\n",
            DELTA(read_retries), DELTA(retried_reads));
    fputs("  \"read_retry_histogram\": {\"sense_us\": [", f);
    for (size_t k = 0; k < n; k++) {
        fprintf(f, "%s%.3f", k ? ", " : "",
                (double)(cfg->pg_rd_lat + k * cfg->read_retry_lat) / 1e3);
    }
    fputs("], \"reads_by_age_class\": [", f);
    for (size_t c = 0; c < n; c++) {
        fputs(c ? ", [" : "[", f);
        for (size_t k = 0; k < n; k++) {
            fprintf(f, "%s%llu", k ? ", " : "", (unsigned long long)h[c * n + k]);
        }
        fputs("]", f);
    }
    fputs("]},\n", f);
#undef DELTA
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

/* The run's header: the tool, its configuration files and keys, the geometry. */
static void json_run_header(FILE *f, const struct ftl *ftl, const struct run_description *run)
{
    const struct ftl_geometry *g = ftl_geometry_of(ftl);
    /* config_file: the last file (the only one, usually); config_files: all, in order */
    fputs("{\n  \"tool\": \"ftl-sim\",\n  \"config_file\": ", f);
    if (run->nconfigs) {
        json_string(f, run->config_paths[run->nconfigs - 1]);
    } else {
        fputs("null", f);
    }
    fputs(",\n  \"config_files\": [", f);
    for (unsigned i = 0; i < run->nconfigs; i++) {
        fputs(i ? ", " : "", f);
        json_string(f, run->config_paths[i]);
    }
    fputs("],\n", f);
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
}

/* What ran: the workload, the trace read, the state files and the power cut. */
static void json_run_workload(FILE *f, const struct run_description *run)
{
    const struct workload_spec *w = run->workload;
    char dist[64];
    dist_name(&w->dist, dist, sizeof(dist));
    fputs("  \"workload\": {\"rw\": ", f);
    json_string(f, w->trace_path ? "trace" : rw_mode_name(w->rw));
    fprintf(f, ", \"rwmixread\": %u, \"dist\": ", w->rwmixread);
    json_string(f, dist);
    fprintf(f, ", \"bs\": %llu, \"size\": %llu, \"qd\": %u, \"precondition\": ",
            (unsigned long long)w->bs, (unsigned long long)w->region_bytes, run->qd);
    json_string(f, run->precondition);
    fprintf(f, ", \"io_size\": %llu, \"runtime_s\": %.3f, \"idle_every\": %llu, "
            "\"idle_s\": %.3f, \"seed\": %llu, \"trace\": ", (unsigned long long)run->io_bytes,
            run->runtime_s, (unsigned long long)run->idle_every_bytes, run->idle_s,
            (unsigned long long)w->seed);
    if (w->trace_path) {
        json_string(f, w->trace_path);
    } else {
        fputs("null", f);
    }
    fputs("},\n", f);
    if (run->trace_input) {
        json_trace_input(f, run->trace_input, run->trace_filters);
    }
    fputs("  \"state_in\": ", f);
    json_string_or_null(f, run->state_in);
    fputs(",\n  \"state_out\": ", f);
    json_string_or_null(f, run->state_out);
    fputs(",\n", f);
    if (run->power_cut) {
        sim_power_cut_json(run->power_cut, run->lost_out, f);
    }
}

/* The measured part's times, commands, rates and latencies. */
static void json_phase_rates(FILE *f, const struct run_description *run,
                             const struct sim_phase_result *m)
{
    double secs = phase_seconds(m);
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
}

/* The FTL's counters over the measured part, then each feature's. */
static void json_phase_counters(FILE *f, const struct ftl *ftl,
                                const struct sim_phase_result *m)
{
#define DELTA(field) (unsigned long long)(m->after.field - m->before.field)
    fprintf(f, "  \"host_write_pages\": %llu,\n  \"host_read_pages\": %llu,\n"
            "  \"host_trim_pages\": %llu,\n  \"gc_write_pages\": %llu,\n"
            "  \"gc_read_pages\": %llu,\n  \"erased_blocks\": %llu,\n  \"gc_runs\": %llu,\n",
            DELTA(host_write_pages), DELTA(host_read_pages), DELTA(host_trim_pages),
            DELTA(nand_gc_programs), DELTA(nand_gc_reads), DELTA(gc_erased_blocks),
            DELTA(gc_runs));
    fprintf(f, "  \"verify_cmds\": %llu,\n  \"read_errors\": %llu,\n  \"format_cmds\": %llu,\n"
            "  \"format_erased_blocks\": %llu,\n", DELTA(host_verify_cmds), DELTA(read_errors),
            DELTA(format_cmds), DELTA(format_erased_blocks));
#undef DELTA
    json_read_retries(f, ftl, m);
    json_wear(f, ftl);
    json_issue15_counters(f, ftl, m);
    json_slc_counters(f, ftl, m);
    summary_json_read_cache(f, ftl, m);
    summary_json_hybrid(f, ftl, m);
    json_zns_counters(f, m);
    summary_json_placement(f, ftl, m);
}

/* The WAF's parts, then the WAF, which closes the object (null where undefined). */
static void json_waf(FILE *f, const struct sim_phase_result *m)
{
    double parts[FTL_WAF_PARTS], waf;
    bool have_waf = phase_waf(m, &waf);
    phase_waf_parts(m, parts);
    for (int i = 0; i < FTL_WAF_PARTS; i++) {
        fprintf(f, "  \"waf_%s\": ", waf_part_names[i]);
        json_number_or_null(f, have_waf, parts[i], ",\n");
    }
    fputs("  \"waf\": ", f);
    json_number_or_null(f, have_waf, waf, "\n}\n");
}

int summary_write_json(FILE *f, const struct ftl *ftl, const struct run_description *run,
                       const struct sim_phase_result *m)
{
    json_run_header(f, ftl, run);
    json_run_workload(f, run);
    json_phase_rates(f, run, m);
    json_phase_counters(f, ftl, m);
    summary_json_kv(f, ftl, run->kv, m);
    summary_json_front(f, ftl, m);
    summary_json_energy(f, ftl, m);
    if (run->units) {
        unit_log_json(run->units, ftl, f);
    }
    json_waf(f, m);
    return ferror(f) ? -1 : 0;
}

/* WAF and, beside it, its parts: host always, the others when not 0. */
static void print_waf(FILE *f, const struct sim_phase_result *m)
{
    double parts[FTL_WAF_PARTS], waf;
    if (!phase_waf(m, &waf)) {
        fprintf(f, "WAF: n/a (all flash programs / host pages: %s)\n", no_waf_reason(m));
        return;
    }
    phase_waf_parts(m, parts);
    fprintf(f, "WAF: %.4f (all flash programs / host pages: host %.4f", waf,
            parts[FTL_WAF_HOST]);
    for (int i = FTL_WAF_HOST + 1; i < FTL_WAF_PARTS; i++) {
        if (parts[i] > 0) {
            fprintf(f, ", %s %.4f", waf_part_labels[i], parts[i]);
        }
    }
    /* what a reader needs beside it: host pages that no program carried, pages not in it */
    uint64_t absorbed = m->after.buf_absorbed_pages - m->before.buf_absorbed_pages;
    if (absorbed || m->buf_pending_after) {
        fprintf(f, "; host pages include %llu absorbed by the buffer and %llu pending in it "
                "at the end", (unsigned long long)absorbed,
                (unsigned long long)m->buf_pending_after);
    }
    if (m->after.zone_programs > m->before.zone_programs) {
        fputs("; zone writes count in neither", f);
    }
    fputs(")\n", f);
}

/* One line per counter, in the order of the lab's DFTL simulator's report. */
static void print_issue15_counters(FILE *f, const struct ftl *ftl,
                                   const struct sim_phase_result *m)
{
#define DELTA(field) (unsigned long long)(m->after.field - m->before.field)
#define RAW(field) (m->after.field - m->before.field)
    double rate = 0.0;
    bool have_rate = cmt_hit_rate(m, &rate);
    fprintf(f, "map reads: %llu\n", DELTA(map_reads));
    fprintf(f, "map writes: %llu\n", DELTA(map_writes));
    fprintf(f, "map GCs: %llu\n", DELTA(map_gc_runs));
    fprintf(f, "map-GC moved pages: %llu\n", DELTA(map_gc_moved_pages));
    fprintf(f, "CMT hits: %llu\n", DELTA(cmt_hits));
    if (have_rate) {
        fprintf(f, "CMT misses: %llu (hit rate %.2f%%)\n", DELTA(cmt_misses), rate * 100);
    } else {
        fprintf(f, "CMT misses: %llu (hit rate undefined)\n", DELTA(cmt_misses));
    }
    fprintf(f, "buffer read hits: %llu\n", DELTA(buf_read_hits));
    fprintf(f, "buffer absorbed rewrites: %llu sectors\n", DELTA(buf_absorbed_sectors));
    fprintf(f, "buffer flushes: %llu pages\n", DELTA(buf_flushed_pages));
    fprintf(f, "buffer fill reads: %llu\n", DELTA(buf_fill_reads));
    print_buffer_accounting(f, ftl, m);
    fprintf(f, "fallback runs: %llu\n", DELTA(fallback_runs));
    fprintf(f, "fallback pages: %llu\n", DELTA(fallback_pages));
    fprintf(f, "valid pages per GC victim: data %.2f, map %.2f\n",
            mean_of(RAW(gc_victim_valid_pages), RAW(gc_runs) + RAW(fallback_lines)),
            mean_of(RAW(map_gc_victim_valid_pages), RAW(map_gc_runs)));
    summary_print_placement(f, ftl, m);
    print_slc_counters(f, ftl, m);
    summary_print_read_cache(f, ftl, m);
    summary_print_hybrid(f, ftl, m);
    print_waf(f, m);
#undef RAW
#undef DELTA
}

/* NAND traffic, Copy and zones: the lines the ZNS+ study reads. */
static void print_zns_counters(FILE *f, const struct sim_phase_result *m)
{
#define DELTA(field) (unsigned long long)(m->after.field - m->before.field)
    fprintf(f, "NAND: %llu page reads, %llu page programs, %llu copybacks (NAND_read, "
            "NAND_write, NAND_cpbk)\n",
            (unsigned long long)(ftl_nand_reads(&m->after) - ftl_nand_reads(&m->before)),
            (unsigned long long)(ftl_nand_programs(&m->after) -
                                 ftl_nand_programs(&m->before)),
            DELTA(nand_copybacks));
    fprintf(f, "copy: %llu commands, %llu pages (%llu by copyback, %llu read and programmed "
            "across LUNs)\n", DELTA(copy_cmds), DELTA(copy_pages), DELTA(nand_copybacks),
            DELTA(nand_copy_programs));
    fprintf(f, "zones: %llu writes, %llu appends, %llu reads, %llu resets (%llu blocks "
            "erased), %llu finishes, %llu refused\n", DELTA(zone_write_cmds),
            DELTA(zone_append_cmds), DELTA(zone_read_cmds), DELTA(zone_resets),
            DELTA(zone_erased_blocks), DELTA(zone_finishes),
            (unsigned long long)m->zone_errors);
#undef DELTA
}

/* Every collection: data GC's victims and the defragmenting fallback's (as gc_victims.csv
 * counts them), their moves and erases; each part's too when the fallback took any. */
static void print_collections(FILE *f, const struct sim_phase_result *m)
{
#define DELTA(field) (unsigned long long)(m->after.field - m->before.field)
    unsigned long long runs = DELTA(gc_runs), moved = DELTA(nand_gc_programs);
    unsigned long long erased = DELTA(gc_erased_blocks), fb = DELTA(fallback_lines);
    unsigned long long fb_moved = DELTA(fallback_pages), fb_erased = DELTA(fallback_erased_blocks);
#undef DELTA
    if (!fb) {
        fprintf(f, "%llu runs, %llu pages moved, %llu blocks erased", runs, moved, erased);
        return;
    }
    fprintf(f, "%llu runs (%llu data GC + %llu fallback victims), %llu pages moved (%llu + "
            "%llu), %llu blocks erased (%llu + %llu)", runs + fb, runs, fb, moved + fb_moved,
            moved, fb_moved, erased + fb_erased, erased, fb_erased);
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
    double waf;
    char waf_text[32] = "n/a";
    if (phase_waf(m, &waf)) {
        snprintf(waf_text, sizeof(waf_text), "%.3f", waf);
    }
    fputs("GC: ", f);
    print_collections(f, m);
    fprintf(f, "; WAF %s (%s victims)\n", waf_text,
            ftl_gc_policy_name(ftl_config_of(ftl)->gc_policy));
    fprintf(f, "flash: %llu read errors, %llu formats (%llu blocks erased), %llu bad blocks; "
            "erase counts min %u, avg %.2f, max %u of %llu P/E cycles\n",
            (unsigned long long)(m->after.read_errors - m->before.read_errors),
            (unsigned long long)(m->after.format_cmds - m->before.format_cmds),
            (unsigned long long)(m->after.format_erased_blocks -
                                 m->before.format_erased_blocks),
            (unsigned long long)w.bad_blocks, w.erase_min, erase_average(&w), w.erase_max,
            (unsigned long long)w.pe_cycles);
    print_issue15_counters(f, ftl, m);
    print_zns_counters(f, m);
    summary_print_front(f, ftl, m);
    summary_print_energy(f, ftl, m);
}
