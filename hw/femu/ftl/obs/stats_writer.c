/* CSV views of the FTL counters: column meanings are documented in STATS.md. */
#include "femu_ftl/stats.h"

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "femu_ftl/error.h"
#include "femu_ftl/zns.h"

#define NS_PER_S 1000000000ull
#define MIB 1048576.0

#define NS_PER_TENTH (NS_PER_S / 10)

enum stats_file {
    FILE_IOPS, FILE_THROUGHPUT, FILE_GC, FILE_WAF, FILE_STATISTICS, FILE_STATS, FILE_PHASES,
    FILE_VICTIMS, FILE_NAND, FILE_CH_UTIL, FILE_ZONES, FILE_RETRIES, NFILES
};

static const char *const file_names[NFILES] = {
    "IOPSData.csv", "throughputData.csv", "GCData.csv", "WAFData.csv", "statistics.csv",
    "stats.csv", "phases.csv", "gc_victims.csv", "nand.csv", "ch_util.csv", "zones.csv",
    "read_retries.csv",
};

/* Every row interval ends on a 0.1 s boundary, so the tenth clock drives the others. */
enum stats_clock { CLOCK_TENTH, CLOCK_SECOND, CLOCK_TEN_SECONDS, NCLOCKS };

struct interval_clock {
    uint64_t length_ns;
    uint64_t started_ns;        /* start of the interval being accumulated */
    uint64_t busy_at_start;     /* ftl_lun_busy_ns(started_ns) */
    struct ftl_counters at_start;
};

/* The interval one row covers. */
struct interval {
    double end_s, len_s;
    const struct ftl_counters *a, *b;   /* counters at its start and at its end */
    uint64_t busy_ns;                   /* busy-LUN time inside it */
};

struct ftl_stats_writer {
    struct ftl *ftl;
    uint64_t origin_ns;
    FILE *files[NFILES];        /* FILE_ZONES only for a zoned FTL */
    struct interval_clock clocks[NCLOCKS];
    unsigned nwps;
    /* phases.csv's snapshots count from here: the counters and busy time at the origin */
    struct ftl_counters at_origin;
    uint64_t busy_at_origin;
    uint64_t busy_asked_ns;     /* the latest time ftl_lun_busy_ns was asked about */
    bool any_phase, last_phase_is_end;
};

/*
 * The counters a phases.csv row snapshots (cumulative since the origin), named as in
 * stats.csv and nand.csv so a phase's figure is the difference of two rows' columns.
 */
struct snapshot_column {
    const char *name;
    size_t field;                                   /* offsetof, unless total is set */
    uint64_t (*total)(const struct ftl_counters *); /* a derived count */
};

#define FIELD(name) { #name, offsetof(struct ftl_counters, name), NULL }
static const struct snapshot_column snapshot_columns[] = {
    FIELD(host_read_cmds), FIELD(host_write_cmds), FIELD(host_trim_cmds),
    FIELD(host_read_pages), FIELD(host_write_pages), FIELD(host_trim_pages),
    FIELD(host_read_bytes), FIELD(host_write_bytes),
    FIELD(gc_runs), FIELD(gc_erased_blocks), FIELD(gc_moved_pages),
    FIELD(nand_user_reads), FIELD(nand_gc_reads), FIELD(nand_user_programs),
    FIELD(nand_gc_programs), FIELD(nand_erases), FIELD(nand_copy_reads),
    FIELD(nand_copy_programs),
    FIELD(map_reads), FIELD(map_writes), FIELD(map_gc_runs), FIELD(map_gc_moved_pages),
    FIELD(cmt_hits), FIELD(cmt_misses),
    FIELD(buf_read_hits), FIELD(buf_absorbed_sectors), FIELD(buf_flushed_pages),
    FIELD(buf_fill_reads), FIELD(fallback_runs), FIELD(fallback_pages),
    { "NAND_read", 0, ftl_nand_reads }, { "NAND_write", 0, ftl_nand_programs },
    { "NAND_cpbk", offsetof(struct ftl_counters, nand_copybacks), NULL },
    FIELD(copy_cmds), FIELD(copy_pages), FIELD(zone_resets), FIELD(zone_finishes),
    { "zone_appends", offsetof(struct ftl_counters, zone_append_cmds), NULL },
    { "zone_writes", offsetof(struct ftl_counters, zone_write_cmds), NULL },
    { "zone_reads", offsetof(struct ftl_counters, zone_read_cmds), NULL },
    { "zone_write_pages", offsetof(struct ftl_counters, zone_programs), NULL },
    { "zone_read_pages", offsetof(struct ftl_counters, zone_reads), NULL },
    FIELD(zone_erased_blocks),
};
#undef FIELD

static uint64_t snapshot_value(const struct snapshot_column *c, const struct ftl_counters *x)
{
    if (c->total) {
        return c->total(x);
    }
    uint64_t v;
    memcpy(&v, (const char *)x + c->field, sizeof(v));
    return v;
}

static double seconds(uint64_t ns)
{
    return (double)ns / (double)NS_PER_S;
}

/* ftl_lun_busy_ns, remembering how far it was asked (it must never be asked about the past) */
static uint64_t busy_at(struct ftl_stats_writer *w, uint64_t t_ns)
{
    if (t_ns > w->busy_asked_ns) {
        w->busy_asked_ns = t_ns;
    }
    return ftl_lun_busy_ns(w->ftl, t_ns);
}

static bool is_zoned(const struct ftl_stats_writer *w)
{
    return ftl_zone_count(w->ftl) > 0;
}

/* The SLC cache's columns end stats.csv only when it is on: files of runs without it
 * stay as they were. */
static bool has_slc_cache(const struct ftl_stats_writer *w)
{
    return ftl_config_of(w->ftl)->slc_cache != 0;
}

/* placement=hotcold: stats.csv ends with the hot set's size (other files unchanged). */
static bool has_hot_set(const struct ftl_stats_writer *w)
{
    return ftl_config_of(w->ftl)->placement == FTL_PLACEMENT_HOTCOLD;
}

/* placement=stream: the fallback's victims and erases, so GC runs count every collection. */
static bool has_fallback(const struct ftl_stats_writer *w)
{
    return ftl_config_of(w->ftl)->placement == FTL_PLACEMENT_STREAM;
}

/* write_buffer_sectors > 0: stats.csv ends with the buffer's page accounting (STATS.md). */
static bool has_write_buffer(const struct ftl_stats_writer *w)
{
    return ftl_config_of(w->ftl)->write_buffer_sectors > 0;
}

static void write_headers(struct ftl_stats_writer *w)
{
    fputs("time,read,write\n", w->files[FILE_IOPS]);
    fputs("time,readThroughput,writeThroughput\n", w->files[FILE_THROUGHPUT]);
    fputs("time,reclaimedBlocks\n", w->files[FILE_GC]);
    fputs("time,GCWrite\n", w->files[FILE_WAF]);
    fputs("seconds,iops,waf\n", w->files[FILE_STATISTICS]);
    fputs("time_s,phase", w->files[FILE_PHASES]);
    for (size_t i = 0; i < sizeof(snapshot_columns) / sizeof(snapshot_columns[0]); i++) {
        fprintf(w->files[FILE_PHASES], ",%s", snapshot_columns[i].name);
    }
    for (unsigned i = 0; i < w->nwps; i++) {
        fprintf(w->files[FILE_PHASES], ",wp%u_host_pages,wp%u_gc_pages,wp%u_media_pages", i, i,
                i);
    }
    fputs(",busy_chip_s\n", w->files[FILE_PHASES]);
    FILE *f = w->files[FILE_STATS];
    fputs("time_s,interval_s,host_read_cmds,host_write_cmds,host_trim_cmds,"
          "host_read_pages,host_write_pages,host_trim_pages,host_read_bytes,host_write_bytes,"
          "read_mib_s,write_mib_s,iops,gc_runs,gc_erased_blocks,gc_moved_pages,"
          "nand_user_reads,nand_gc_reads,nand_user_programs,nand_gc_programs,nand_erases,"
          "waf,free_lines,victim_lines,full_lines,open_lines,valid_pages", f);
    for (unsigned i = 0; i < w->nwps; i++) {
        fprintf(f, ",wp%u_host_pages,wp%u_gc_pages", i, i);
    }
    for (unsigned i = 0; i < w->nwps; i++) {
        fprintf(f, ",wp%u_media_pages,wp%u_waf", i, i);
    }
    fputs(",fdp_ru_updates,fdp_ru_time_limits,fdp_unwritten_pages", f);
    fputs(",map_reads,map_writes,map_gc_runs,map_gc_moved_pages,cmt_hits,cmt_misses,"
          "cmt_hit_rate,buf_read_hits,buf_absorbed_sectors,buf_flushed_pages,buf_fill_reads,"
          "fallback_runs,fallback_pages,gc_victim_valid_pages,map_gc_victim_valid_pages,"
          "cmt_writebacks,gc_map_updates,read_retries,retried_reads", f);
    if (has_slc_cache(w)) {
        fputs(",slc_host_pages,slc_direct_pages,slc_folded_pages,slc_fold_erases,"
              "slc_fg_fold_units,slc_cap_pages,slc_used_pages", f);
    }
    if (has_hot_set(w)) {
        fputs(",hot_pages", f);
    }
    if (has_fallback(w)) {
        fputs(",fallback_lines,fallback_erased_blocks", f);
    }
    if (has_write_buffer(w)) {
        fputs(",buf_absorbed_pages,buf_dropped_pages,buf_pending_pages", f);
    }
    fputc('\n', f);
    fputs("valid_pages,data_victims,map_victims\n", w->files[FILE_VICTIMS]);
    fputs("time_s,interval_s,NAND_read,NAND_write,NAND_cpbk,copy_cmds,copy_pages,"
          "zone_resets,zone_finishes,zone_appends,zone_writes,zone_reads,zone_write_pages,"
          "zone_read_pages,zone_erased_blocks,CH_util,zones_empty,zones_implicit_open,"
          "zones_explicit_open,zones_closed,zones_full,zones_read_only,zones_offline\n",
          w->files[FILE_NAND]);
    fputs("time_s,busy_chips\n", w->files[FILE_CH_UTIL]);
    if (w->files[FILE_ZONES]) {
        fputs("zone,start,cap,wp,state\n", w->files[FILE_ZONES]);
    }
    if (w->files[FILE_RETRIES]) {
        fputs("age_class,steps,sense_us,reads\n", w->files[FILE_RETRIES]);
    }
}

/* Whether a file is written in this run: zones.csv with zones, read_retries.csv with the
 * read-retry model on. */
static bool file_wanted(const struct ftl_stats_writer *w, int i)
{
    if (i == FILE_ZONES) {
        return is_zoned(w);
    }
    if (i == FILE_RETRIES) {
        return ftl_config_of(w->ftl)->read_retry_lat > 0;
    }
    return true;
}

/* Host page reads by the retry model's age class and steps, at the end of the run (the
 * histogram is cumulative): the rows with reads. */
static void write_retries(struct ftl_stats_writer *w)
{
    const struct ftl_config *cfg = ftl_config_of(w->ftl);
    size_t n;
    const uint64_t *h = ftl_read_retry_histogram(w->ftl, &n);
    for (size_t c = 0; c < n; c++) {
        for (size_t k = 0; k < n; k++) {
            if (h[c * n + k]) {
                fprintf(w->files[FILE_RETRIES], "%zu,%zu,%.3f,%llu\n", c, k,
                        (double)(cfg->pg_rd_lat + k * cfg->read_retry_lat) / 1e3,
                        (unsigned long long)h[c * n + k]);
            }
        }
    }
}

/* The victims by valid pages, at the end of the run (the histogram is cumulative). */
static void write_victims(struct ftl_stats_writer *w)
{
    size_t n;
    const uint64_t *data = ftl_victim_histogram(w->ftl, false, &n);
    const uint64_t *map = ftl_victim_histogram(w->ftl, true, &n);
    for (size_t v = 0; v < n; v++) {
        fprintf(w->files[FILE_VICTIMS], "%zu,%llu,%llu\n", v, (unsigned long long)data[v],
                (unsigned long long)map[v]);
    }
}

/* Every zone as the run leaves it: what the write-pointer map draws. */
static void write_zones(struct ftl_stats_writer *w)
{
    uint64_t zones = ftl_zone_count(w->ftl);
    for (uint64_t z = 0; z < zones; z++) {
        struct ftl_zone_info info;
        ftl_zone_get(w->ftl, z, &info);
        fprintf(w->files[FILE_ZONES], "%llu,%llu,%llu,%llu,%s\n", (unsigned long long)z,
                (unsigned long long)info.start, (unsigned long long)info.cap,
                (unsigned long long)info.wp, ftl_zone_state_name(info.state));
    }
}

struct ftl_stats_writer *ftl_stats_open(const char *dir, struct ftl *ftl, uint64_t start_ns,
                                        char *err, size_t errlen)
{
    struct ftl_stats_writer *w = calloc(1, sizeof(*w));
    if (!w) {
        ftl_error(err, errlen, "out of memory");
        return NULL;
    }
    w->ftl = ftl;
    w->origin_ns = start_ns;
    w->nwps = ftl_write_pointer_count(ftl);
    struct ftl_counters now;
    ftl_get_counters(ftl, &now);
    /* busy time before the statistics start is not theirs; this also sets where the
     * FTL may forget busy time (ftl_lun_busy_ns is only called forward from here) */
    uint64_t busy = ftl_lun_busy_ns(ftl, start_ns);
    w->at_origin = now;
    w->busy_at_origin = busy;
    w->busy_asked_ns = start_ns;
    static const uint64_t lengths[NCLOCKS] = { NS_PER_TENTH, NS_PER_S, 10 * NS_PER_S };
    for (int c = 0; c < NCLOCKS; c++) {
        w->clocks[c] = (struct interval_clock){ lengths[c], start_ns, busy, now };
    }
    for (int i = 0; i < NFILES; i++) {
        if (!file_wanted(w, i)) {
            continue;
        }
        char path[4096];
        if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, file_names[i]) >= sizeof(path)) {
            ftl_error(err, errlen, "stats dir '%s': path too long", dir);
            ftl_stats_close(w, start_ns, NULL, 0);
            return NULL;
        }
        w->files[i] = fopen(path, "w");
        if (!w->files[i]) {
            ftl_error(err, errlen, "stats dir: cannot create %s: %s", path, strerror(errno));
            ftl_stats_close(w, start_ns, NULL, 0);
            return NULL;
        }
    }
    write_headers(w);
    return w;
}

/* Interval WAF: empty (undefined) when the host wrote nothing. */
static void print_waf(FILE *f, const struct ftl_counters *a, const struct ftl_counters *b)
{
    double waf;

    if (ftl_waf(a, b, &waf)) {
        fprintf(f, "%.4f", waf);
    }
}

/* Each write pointer's media pages (host, GC and folded pages programmed into its units)
 * and WAF. */
static void write_media_columns(const struct ftl_stats_writer *w, FILE *f,
                                const struct ftl_counters *a, const struct ftl_counters *b)
{
    for (unsigned i = 0; i < w->nwps; i++) {
        uint64_t host = b->wp_host_pages[i] - a->wp_host_pages[i];
        uint64_t media = host + (b->wp_gc_pages[i] - a->wp_gc_pages[i]) +
                         (b->wp_fold_pages[i] - a->wp_fold_pages[i]);
        fprintf(f, ",%llu,", (unsigned long long)media);
        if (host) {
            fprintf(f, "%.4f", (double)media / (double)host);
        }
    }
}

static void write_stats_row(struct ftl_stats_writer *w, const struct interval *iv)
{
    const struct ftl_counters *a = iv->a, *b = iv->b;
    double len_s = iv->len_s;
    uint64_t reads = b->host_read_cmds - a->host_read_cmds;
    uint64_t writes = b->host_write_cmds - a->host_write_cmds;
    double read_mib = (double)(b->host_read_bytes - a->host_read_bytes) / MIB / len_s;
    double write_mib = (double)(b->host_write_bytes - a->host_write_bytes) / MIB / len_s;

    fprintf(w->files[FILE_IOPS], "%.3f,%llu,%llu\n", iv->end_s, (unsigned long long)reads,
            (unsigned long long)writes);
    fprintf(w->files[FILE_THROUGHPUT], "%.3f,%.4f,%.4f\n", iv->end_s, read_mib, write_mib);

    struct ftl_gauges g;
    ftl_get_gauges(w->ftl, &g);
    FILE *f = w->files[FILE_STATS];
#define D(field) (unsigned long long)(b->field - a->field)
    fprintf(f, "%.3f,%.3f,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%.4f,%.4f,%.2f,"
            "%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,",
            iv->end_s, len_s, D(host_read_cmds), D(host_write_cmds), D(host_trim_cmds),
            D(host_read_pages), D(host_write_pages), D(host_trim_pages), D(host_read_bytes),
            D(host_write_bytes), read_mib, write_mib, (double)(reads + writes) / len_s,
            D(gc_runs), D(gc_erased_blocks), D(gc_moved_pages), D(nand_user_reads),
            D(nand_gc_reads), D(nand_user_programs), D(nand_gc_programs), D(nand_erases));
    print_waf(f, a, b);
    fprintf(f, ",%u,%u,%u,%u,%llu", g.free_lines, g.victim_lines, g.full_lines, g.open_lines,
            (unsigned long long)g.valid_pages);
    for (unsigned i = 0; i < w->nwps; i++) {
        fprintf(f, ",%llu,%llu", D(wp_host_pages[i]), D(wp_gc_pages[i]));
    }
    write_media_columns(w, f, a, b);
    fprintf(f, ",%llu,%llu,%llu", D(fdp_ru_updates), D(fdp_ru_time_limits),
            D(fdp_unwritten_pages));
    fprintf(f, ",%llu,%llu,%llu,%llu,%llu,%llu,", D(map_reads), D(map_writes), D(map_gc_runs),
            D(map_gc_moved_pages), D(cmt_hits), D(cmt_misses));
    if (b->cmt_hits + b->cmt_misses > a->cmt_hits + a->cmt_misses) {
        fprintf(f, "%.4f", (double)(b->cmt_hits - a->cmt_hits) /
                           (double)(b->cmt_hits + b->cmt_misses - a->cmt_hits - a->cmt_misses));
    }
    fprintf(f, ",%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu",
            D(buf_read_hits), D(buf_absorbed_sectors), D(buf_flushed_pages), D(buf_fill_reads),
            D(fallback_runs), D(fallback_pages), D(gc_victim_valid_pages),
            D(map_gc_victim_valid_pages), D(cmt_writebacks), D(gc_map_updates),
            D(read_retries), D(retried_reads));
    if (has_slc_cache(w)) {
        fprintf(f, ",%llu,%llu,%llu,%llu,%llu,%llu,%llu", D(slc_host_pages),
                D(slc_direct_pages), D(slc_folded_pages), D(slc_fold_erases),
                D(slc_fg_fold_units), (unsigned long long)g.slc_cap_pages,
                (unsigned long long)g.slc_used_pages);
    }
    if (has_hot_set(w)) {
        fprintf(f, ",%llu", (unsigned long long)g.hot_pages);
    }
    if (has_fallback(w)) {
        fprintf(f, ",%llu,%llu", D(fallback_lines), D(fallback_erased_blocks));
    }
    if (has_write_buffer(w)) {
        fprintf(f, ",%llu,%llu,%llu", D(buf_absorbed_pages), D(buf_dropped_pages),
                (unsigned long long)g.buf_pending_pages);
    }
    fputc('\n', f);
#undef D
}

/* The ZNS+ view of the second: flash pages, copies, zone commands, busy chips, zones. */
static void write_nand_row(struct ftl_stats_writer *w, const struct interval *iv)
{
    const struct ftl_counters *a = iv->a, *b = iv->b;
    uint64_t states[FTL_ZONE_STATES] = { 0 };
    if (is_zoned(w)) {
        ftl_zone_state_counts(w->ftl, states);
    }
    FILE *f = w->files[FILE_NAND];
#define D(field) (unsigned long long)(b->field - a->field)
    fprintf(f, "%.3f,%.3f,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,"
            "%.4f", iv->end_s, iv->len_s,
            (unsigned long long)(ftl_nand_reads(b) - ftl_nand_reads(a)),
            (unsigned long long)(ftl_nand_programs(b) - ftl_nand_programs(a)),
            D(nand_copybacks), D(copy_cmds), D(copy_pages), D(zone_resets), D(zone_finishes),
            D(zone_append_cmds), D(zone_write_cmds), D(zone_read_cmds), D(zone_programs),
            D(zone_reads), D(zone_erased_blocks), (double)iv->busy_ns / 1e9 / iv->len_s);
#undef D
    static const uint8_t order[] = { FTL_ZONE_EMPTY, FTL_ZONE_IMPLICIT_OPEN,
                                     FTL_ZONE_EXPLICIT_OPEN, FTL_ZONE_CLOSED, FTL_ZONE_FULL,
                                     FTL_ZONE_READ_ONLY, FTL_ZONE_OFFLINE };
    for (size_t i = 0; i < sizeof(order); i++) {
        fprintf(f, ",%llu", (unsigned long long)states[order[i]]);
    }
    fputc('\n', f);
}

static void write_second_row(struct ftl_stats_writer *w, const struct interval *iv)
{
    write_stats_row(w, iv);
    write_nand_row(w, iv);
}

static void write_ten_second_row(struct ftl_stats_writer *w, const struct interval *iv)
{
    const struct ftl_counters *a = iv->a, *b = iv->b;
    uint64_t cmds = (b->host_read_cmds - a->host_read_cmds) +
                    (b->host_write_cmds - a->host_write_cmds);
    uint64_t gc_pages = b->nand_gc_programs - a->nand_gc_programs;

    fprintf(w->files[FILE_GC], "%.3f,%llu\n", iv->end_s,
            (unsigned long long)(b->gc_erased_blocks - a->gc_erased_blocks));
    fprintf(w->files[FILE_WAF], "%.3f,%llu\n", iv->end_s, (unsigned long long)gc_pages);
    FILE *f = w->files[FILE_STATISTICS];
    fprintf(f, "%.3f,%.2f,", iv->end_s, (double)cmds / iv->len_s);
    print_waf(f, a, b);
    fputc('\n', f);
}

/* Busy chips of 0.1 s: ZNS+'s CH_util at a finer grain. */
static void write_tenth_row(struct ftl_stats_writer *w, const struct interval *iv)
{
    fprintf(w->files[FILE_CH_UTIL], "%.3f,%.4f\n", iv->end_s,
            (double)iv->busy_ns / 1e9 / iv->len_s);
}

typedef void (*row_writer)(struct ftl_stats_writer *, const struct interval *);

static const row_writer row_writers[NCLOCKS] = {
    write_tenth_row, write_second_row, write_ten_second_row,
};

/* Write clock c's row for the interval ending at end_ns and start the next one there. */
static void end_interval(struct ftl_stats_writer *w, int c, uint64_t end_ns, uint64_t busy,
                         const struct ftl_counters *now)
{
    struct interval_clock *clk = &w->clocks[c];
    struct interval iv = {
        .end_s = seconds(end_ns - w->origin_ns), .len_s = seconds(end_ns - clk->started_ns),
        .a = &clk->at_start, .b = now, .busy_ns = busy - clk->busy_at_start,
    };
    row_writers[c](w, &iv);
    clk->started_ns = end_ns;
    clk->busy_at_start = busy;
    clk->at_start = *now;  /* idle intervals after the first get zero rows */
}

/*
 * An idle stretch: when every clock starts on the same 10 s boundary with nothing done since
 * (counters and busy LUN time unchanged) and the next event is at least IDLE_ROW_NS away,
 * one row per file covers the idle time up to the last 10 s boundary before now_ns,
 * instead of a row every 0.1 s. A trace may leave the device idle for days, and a row per
 * 0.1 s of that would be gigabytes of zeroes; idle stretches of ordinary runs (seconds,
 * minutes) keep their rows.
 */
#define IDLE_ROW_NS (3600 * NS_PER_S)

static void collapse_idle(struct ftl_stats_writer *w, uint64_t now_ns,
                          const struct ftl_counters *now)
{
    const struct interval_clock *ten = &w->clocks[CLOCK_TEN_SECONDS];
    uint64_t start = ten->started_ns;
    if (now_ns < start || now_ns - start < IDLE_ROW_NS + ten->length_ns) {
        return;
    }
    for (int c = 0; c < NCLOCKS; c++) {
        if (w->clocks[c].started_ns != start) {
            return;
        }
    }
    uint64_t end = start + (now_ns - start) / ten->length_ns * ten->length_ns;
    uint64_t busy = busy_at(w, end);
    if (busy != ten->busy_at_start || memcmp(now, &ten->at_start, sizeof(*now)) != 0) {
        return;
    }
    for (int c = 0; c < NCLOCKS; c++) {
        end_interval(w, c, end, busy, now);
    }
}

/*
 * Rows for every interval ended by now_ns, in time order so that ftl_lun_busy_ns only
 * moves forward; with partial, also the intervals in progress, ending them at now_ns.
 */
static void emit_rows(struct ftl_stats_writer *w, uint64_t now_ns, bool partial)
{
    struct ftl_counters now;
    ftl_get_counters(w->ftl, &now);
    struct interval_clock *tenth = &w->clocks[CLOCK_TENTH];
    while (now_ns >= tenth->started_ns + tenth->length_ns) {
        collapse_idle(w, now_ns, &now);
        if (now_ns < tenth->started_ns + tenth->length_ns) {
            break;
        }
        uint64_t end = tenth->started_ns + tenth->length_ns;
        uint64_t busy = busy_at(w, end);
        for (int c = 0; c < NCLOCKS; c++) {
            if (w->clocks[c].started_ns + w->clocks[c].length_ns == end) {
                end_interval(w, c, end, busy, &now);
            }
        }
    }
    /* a time before the last 0.1 s boundary written would take busy time back */
    if (!partial || now_ns < w->clocks[CLOCK_TENTH].started_ns) {
        return;
    }
    uint64_t busy = busy_at(w, now_ns);
    for (int c = 0; c < NCLOCKS; c++) {
        if (now_ns > w->clocks[c].started_ns) {
            end_interval(w, c, now_ns, busy, &now);
        }
    }
}

static int flush_all(struct ftl_stats_writer *w, char *err, size_t errlen)
{
    int rc = 0;
    for (int i = 0; i < NFILES; i++) {
        if (w->files[i] && (fflush(w->files[i]) || ferror(w->files[i]))) {
            rc = ftl_error(err, errlen, "writing %s failed: %s", file_names[i],
                            strerror(errno));
            clearerr(w->files[i]);
        }
    }
    return rc;
}

int ftl_stats_advance(struct ftl_stats_writer *w, uint64_t now_ns, char *err, size_t errlen)
{
    const struct interval_clock *tenth = &w->clocks[CLOCK_TENTH];
    if (now_ns < tenth->started_ns + tenth->length_ns) {
        return 0;  /* the common case: nothing to write yet */
    }
    emit_rows(w, now_ns, false);
    return flush_all(w, err, errlen);
}

/* One phases.csv row: the marker and the counters since the origin at now_ns. Rows due
 * by now_ns are written first, so the busy time is asked about in time order; a marker
 * stamped before a time already asked about leaves busy_chip_s empty. */
static void write_phase_row(struct ftl_stats_writer *w, uint64_t now_ns, const char *phase)
{
    FILE *f = w->files[FILE_PHASES];
    struct ftl_counters now;

    emit_rows(w, now_ns, false);
    ftl_get_counters(w->ftl, &now);
    fprintf(f, "%.3f,%s", seconds(now_ns - w->origin_ns), phase);
    for (size_t i = 0; i < sizeof(snapshot_columns) / sizeof(snapshot_columns[0]); i++) {
        const struct snapshot_column *c = &snapshot_columns[i];
        fprintf(f, ",%llu", (unsigned long long)(snapshot_value(c, &now) -
                                                 snapshot_value(c, &w->at_origin)));
    }
    const struct ftl_counters *o = &w->at_origin;
    for (unsigned i = 0; i < w->nwps; i++) {
        uint64_t host = now.wp_host_pages[i] - o->wp_host_pages[i];
        uint64_t gc = now.wp_gc_pages[i] - o->wp_gc_pages[i];
        uint64_t fold = now.wp_fold_pages[i] - o->wp_fold_pages[i];
        fprintf(f, ",%llu,%llu,%llu", (unsigned long long)host, (unsigned long long)gc,
                (unsigned long long)(host + gc + fold));
    }
    fputc(',', f);
    if (now_ns >= w->busy_asked_ns) {
        fprintf(f, "%.6f", seconds(busy_at(w, now_ns) - w->busy_at_origin));
    }
    fputc('\n', f);
    w->any_phase = true;
    w->last_phase_is_end = strcmp(phase, "end") == 0;
}

int ftl_stats_phase(struct ftl_stats_writer *w, uint64_t now_ns, const char *phase,
                    char *err, size_t errlen)
{
    write_phase_row(w, now_ns, phase);
    return flush_all(w, err, errlen);
}

int ftl_stats_close(struct ftl_stats_writer *w, uint64_t now_ns, char *err, size_t errlen)
{
    if (!w) {
        return 0;
    }
    int rc = 0;
    bool complete = true;
    for (int i = 0; i < NFILES; i++) {
        complete &= w->files[i] != NULL || !file_wanted(w, i);
    }
    if (complete) {
        emit_rows(w, now_ns, true);
        if (w->any_phase && !w->last_phase_is_end) {
            write_phase_row(w, now_ns, "end");  /* the last phase ends with the run */
        }
        write_victims(w);
        if (w->files[FILE_ZONES]) {
            write_zones(w);
        }
        if (w->files[FILE_RETRIES]) {
            write_retries(w);
        }
        rc = flush_all(w, err, errlen);
    }
    for (int i = 0; i < NFILES; i++) {
        if (w->files[i] && fclose(w->files[i]) && rc == 0) {
            rc = ftl_error(err, errlen, "closing %s failed: %s", file_names[i],
                            strerror(errno));
        }
    }
    free(w);
    return rc;
}

int ftl_stats_write_lpn_counts(const struct ftl *ftl, const char *path, char *err,
                               size_t errlen)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        return ftl_error(err, errlen, "cannot create %s: %s", path, strerror(errno));
    }
    struct ftl_gauges g;
    ftl_get_gauges(ftl, &g);
    fputs("LPN,Access_Count\n", f);
    for (uint64_t lpn = 0; lpn < g.max_written_lpn_plus_one; lpn++) {
        fprintf(f, "%llu,%u\n", (unsigned long long)lpn, ftl_lpn_write_count(ftl, lpn));
    }
    bool failed = ferror(f) != 0;
    if (fclose(f) || failed) {
        return ftl_error(err, errlen, "writing %s failed: %s", path, strerror(errno));
    }
    return 0;
}
