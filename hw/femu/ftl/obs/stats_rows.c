/* The statistics files' columns: column meanings are documented in STATS.md. Which
 * optional columns a run writes follows its configuration, read once per row. */
#include "obs/stats_rows.h"

#include <stddef.h>
#include <string.h>

#include "femu_ftl/zns.h"
#include "obs/stats_energy.h"

#define MIB 1048576.0

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

/* zrwa_zones > 0: stats.csv ends with the ZRWA counters, after the key-value ones
 * (files of runs without ZRWAs stay as they were). */
static bool has_zrwa(const struct ftl_stats_writer *w)
{
    return ftl_config_of(w->ftl)->zoned && ftl_config_of(w->ftl)->zrwa_zones > 0;
}

/* The link or the controller's cores modelled (front/): stats.csv ends with their
 * columns, after every other (files of runs without them stay as they were). */
static bool has_front(const struct ftl_stats_writer *w)
{
    return ftl_config_front_on(ftl_config_of(w->ftl));
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
static bool has_hybrid(const struct ftl_stats_writer *w)
{
    return ftl_mapping_is_hybrid(ftl_config_of(w->ftl)->mapping);
}

static bool has_write_buffer(const struct ftl_stats_writer *w)
{
    return ftl_config_of(w->ftl)->write_buffer_sectors > 0;
}

/* read_cache_pages > 0: stats.csv ends with the read cache's counters (STATS.md). */
static bool has_read_cache(const struct ftl_stats_writer *w)
{
    return ftl_config_of(w->ftl)->read_cache_pages > 0;
}

void stats_write_headers(struct ftl_stats_writer *w)
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
    fputs(",busy_chip_s", w->files[FILE_PHASES]);
    stats_energy_header(w->files[FILE_PHASES], ftl_config_of(w->ftl), false);
    fputc('\n', w->files[FILE_PHASES]);
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
    if (has_hybrid(w)) {
        fputs(",merge_switch,merge_partial,merge_full,merge_copied_pages,"
              "merge_erased_blocks", f);
    }
    if (has_write_buffer(w)) {
        fputs(",buf_absorbed_pages,buf_dropped_pages,buf_pending_pages", f);
    }
    if (has_read_cache(w)) {
        fputs(",rcache_hits,rcache_misses,rcache_evictions", f);
    }
    /* key-value stores: last in every run, since a store may be made at any time */
    fputs(",kv_stores,kv_retrieves,kv_deletes,kv_exists,kv_lists,kv_store_bytes,"
          "kv_retrieve_bytes,kv_index_hits,kv_index_misses,kv_index_page_reads,"
          "kv_index_page_writes,kv_compactions,kv_compaction_pages,kv_keys,kv_live_bytes,"
          "kv_waf", f);
    if (has_zrwa(w)) {
        fputs(",zrwa_writes,zrwa_overwrites,zrwa_commit_pages_implicit,"
              "zrwa_commit_pages_explicit", f);
    }
    if (has_front(w)) {
        fputs(",link_up_bytes,link_down_bytes,link_up_util,link_down_util,ctrl_util", f);
    }
    stats_energy_header(f, ftl_config_of(w->ftl), true);   /* energy, power states: last */
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
bool stats_file_wanted(const struct ftl_stats_writer *w, int i)
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

void stats_write_end_files(struct ftl_stats_writer *w)
{
    write_victims(w);
    if (w->files[FILE_ZONES]) {
        write_zones(w);
    }
    if (w->files[FILE_RETRIES]) {
        write_retries(w);
    }
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

/* The key-value stores' counters and gauges, and KV WAF: flash pages programmed (every
 * kind) x page bytes / value bytes stored, empty when none was stored. */
static void write_kv_columns(const struct ftl_stats_writer *w, FILE *f,
                             const struct ftl_counters *a, const struct ftl_counters *b,
                             const struct ftl_gauges *g)
{
#define D(field) (unsigned long long)(b->field - a->field)
    fprintf(f, ",%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,",
            D(kv_stores), D(kv_retrieves), D(kv_deletes), D(kv_exists), D(kv_lists),
            D(kv_store_bytes), D(kv_retrieve_bytes), D(kv_index_hits), D(kv_index_misses),
            D(kv_index_page_reads), D(kv_index_page_writes), D(kv_compactions),
            D(kv_compaction_pages), (unsigned long long)g->kv_keys,
            (unsigned long long)g->kv_live_bytes);
#undef D
    uint64_t stored = b->kv_store_bytes - a->kv_store_bytes;
    if (stored) {
        const struct ftl_config *cfg = ftl_config_of(w->ftl);
        double programmed = (double)(ftl_nand_programs(b) - ftl_nand_programs(a));
        fprintf(f, "%.4f", programmed * (double)(cfg->secsz * cfg->secs_per_pg) /
                           (double)stored);
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
    if (has_hybrid(w)) {
        fprintf(f, ",%llu,%llu,%llu,%llu,%llu", D(merge_switch), D(merge_partial),
                D(merge_full), D(merge_copied_pages), D(merge_erased_blocks));
    }
    if (has_write_buffer(w)) {
        fprintf(f, ",%llu,%llu,%llu", D(buf_absorbed_pages), D(buf_dropped_pages),
                (unsigned long long)g.buf_pending_pages);
    }
    if (has_read_cache(w)) {
        fprintf(f, ",%llu,%llu,%llu", D(rcache_hits), D(rcache_misses), D(rcache_evictions));
    }
    write_kv_columns(w, f, a, b, &g);
    if (has_zrwa(w)) {
        fprintf(f, ",%llu,%llu,%llu,%llu",
                (unsigned long long)(b->zrwa_writes - a->zrwa_writes),
                (unsigned long long)(b->zrwa_overwrites - a->zrwa_overwrites),
                (unsigned long long)(b->zrwa_commit_pages_implicit -
                                     a->zrwa_commit_pages_implicit),
                (unsigned long long)(b->zrwa_commit_pages_explicit -
                                     a->zrwa_commit_pages_explicit));
    }
    if (has_front(w)) {
        /* busy time is charged when a transfer or a command is placed, so an interval
         * may show a little more than 1 at its end and less at the next one's start */
        uint64_t cores = ftl_config_of(w->ftl)->ctrl_cores;
        fprintf(f, ",%llu,%llu,%.4f,%.4f,%.4f", D(link_up_bytes), D(link_down_bytes),
                (double)(b->link_up_busy_ps - a->link_up_busy_ps) / (len_s * 1e12),
                (double)(b->link_down_busy_ps - a->link_down_busy_ps) / (len_s * 1e12),
                cores ? (double)(b->ctrl_busy_ns - a->ctrl_busy_ns) /
                        (len_s * 1e9 * (double)cores) : 0.0);
    }
    stats_energy_values(f, ftl_config_of(w->ftl), true, a, b, iv->len_ns);
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

void stats_write_row(struct ftl_stats_writer *w, int c, const struct interval *iv)
{
    row_writers[c](w, iv);
}

void stats_write_phase_counts(struct ftl_stats_writer *w, uint64_t now_ns, const char *phase,
                              const struct ftl_counters *now)
{
    FILE *f = w->files[FILE_PHASES];
    fprintf(f, "%.3f,%s", seconds(now_ns - w->origin_ns), phase);
    for (size_t i = 0; i < sizeof(snapshot_columns) / sizeof(snapshot_columns[0]); i++) {
        const struct snapshot_column *c = &snapshot_columns[i];
        fprintf(f, ",%llu", (unsigned long long)(snapshot_value(c, now) -
                                                 snapshot_value(c, &w->at_origin)));
    }
    const struct ftl_counters *o = &w->at_origin;
    for (unsigned i = 0; i < w->nwps; i++) {
        uint64_t host = now->wp_host_pages[i] - o->wp_host_pages[i];
        uint64_t gc = now->wp_gc_pages[i] - o->wp_gc_pages[i];
        uint64_t fold = now->wp_fold_pages[i] - o->wp_fold_pages[i];
        fprintf(f, ",%llu,%llu,%llu", (unsigned long long)host, (unsigned long long)gc,
                (unsigned long long)(host + gc + fold));
    }
}
