/*
 * Statistics files: one row per interval, idle or not, with the right differences; the
 * ZNS+ files: flash pages and busy chips of a known schedule, zone states and the zone map.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "femu_ftl/engine.h"
#include "ftl_test_util.h"
#include "femu_ftl/stats.h"
#include "femu_ftl/zns.h"
#include "temp_dir_util.h"

#define S 1000000000ull
#define MS 1000000ull

static char dir[512];
static char err[512];

/* Reads a whole file into a static buffer; returns its number of lines. */
static int read_file(const char *name, char *buf, size_t size)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    FILE *f = fopen(path, "r");
    if (!f) {
        buf[0] = '\0';
        return -1;
    }
    size_t n = fread(buf, 1, size - 1, f);
    buf[n] = '\0';
    fclose(f);
    int lines = 0;
    for (size_t i = 0; i < n; i++) {
        lines += buf[i] == '\n';
    }
    return lines;
}

static const char *line_n(const char *buf, int n)  /* 0 = header */
{
    static char line[8192];
    for (int i = 0; i < n && buf; i++) {
        buf = strchr(buf, '\n');
        buf = buf ? buf + 1 : NULL;
    }
    if (!buf) {
        return "";
    }
    size_t len = strcspn(buf, "\n");
    if (len >= sizeof(line)) {
        return "(a line longer than line_n's buffer)";   /* fails the check, no overflow */
    }
    memcpy(line, buf, len);
    line[len] = '\0';
    return line;
}


/* A row that starts with head and ends with tail (the whole row when tail is ""). */
#define CHECK_ROW(got, head, tail) check_row((got), (head), (tail), __FILE__, __LINE__)
static void check_row(const char *got, const char *head, const char *tail, const char *file,
                      int line)
{
    size_t len = strlen(got), nhead = strlen(head), ntail = strlen(tail);
    bool ok = *tail ? len >= nhead + ntail && !strncmp(got, head, nhead) &&
                      !strcmp(got + len - ntail, tail)
                    : !strcmp(got, head);
    if (!check_record(ok, file, line, "row as expected")) {
        fprintf(stderr, "    got:  \"%s\"\n    want: \"%s...%s\"\n", got, head, tail);
    }
}



/* Sum of one numeric column (0-based) over the data rows of a CSV in buf. */
static double column_sum(const char *buf, int column)
{
    double sum = 0;
    const char *line = strchr(buf, '\n');
    while (line && line[1]) {
        line++;
        const char *field = line;
        for (int i = 0; i < column && field; i++) {
            field = strchr(field, ',');
            field = field ? field + 1 : NULL;
        }
        sum += field ? strtod(field, NULL) : 0;
        line = strchr(line, '\n');
    }
    return sum;
}

/*
 * Busy chips of a known schedule on 2 LUNs (programs 250 ms, reads 50 ms, no bus):
 * t = 0: two pages, one per LUN, [0, 0.25) on both; t = 0.5: a read, [0.5, 0.55) on one;
 * t = 1.2: a page, [1.2, 1.45) on one; the statistics close at 1.55.
 */
static void test_busy_chips(void)
{
    temp_dir_make(dir, sizeof(dir), "ftl-stats-test");
    struct ftl_config cfg = small_config(1, 2, 64, 64, 8);
    cfg.pg_wr_lat = 250 * MS;
    cfg.pg_rd_lat = 50 * MS;
    cfg.ch_xfer_lat = 0;
    struct ftl *ftl = make_ftl(&cfg);
    const uint64_t t0 = 3 * S;   /* the statistics start at 3 s of the clock */
    struct ftl_stats_writer *w = ftl_stats_open(dir, ftl, t0, err, sizeof(err));
    CHECK(w != NULL);
    uint64_t done;
    CHECK(ftl_stats_advance(w, t0, err, sizeof(err)) == 0);
    CHECK_EQ_U64(write_pages(ftl, t0, 0, 2, &done), FTL_OK);
    CHECK_EQ_U64(done, t0 + 250 * MS);
    CHECK(ftl_stats_advance(w, t0 + 500 * MS, err, sizeof(err)) == 0);
    CHECK_EQ_U64(read_pages(ftl, t0 + 500 * MS, 0, 1, &done), FTL_OK);
    CHECK_EQ_U64(done, t0 + 550 * MS);
    CHECK(ftl_stats_advance(w, t0 + 1200 * MS, err, sizeof(err)) == 0);
    CHECK_EQ_U64(write_pages(ftl, t0 + 1200 * MS, 2, 1, &done), FTL_OK);
    /* a row in the middle of that program, then the rest at close */
    CHECK(ftl_stats_advance(w, t0 + 1300 * MS, err, sizeof(err)) == 0);
    CHECK(ftl_stats_close(w, t0 + 1550 * MS, err, sizeof(err)) == 0);

    static char buf[1 << 16];
    static const char *const tenths[] = {
        "time_s,busy_chips",
        "0.100,2.0000", "0.200,2.0000", "0.300,1.0000", "0.400,0.0000", "0.500,0.0000",
        "0.600,0.5000", "0.700,0.0000", "0.800,0.0000", "0.900,0.0000", "1.000,0.0000",
        "1.100,0.0000", "1.200,0.0000", "1.300,1.0000", "1.400,1.0000", "1.500,0.5000",
        "1.550,0.0000",
    };
    int n = (int)(sizeof(tenths) / sizeof(tenths[0]));
    CHECK_EQ_U64(read_file("ch_util.csv", buf, sizeof(buf)), n);
    for (int i = 0; i < n; i++) {
        CHECK_ROW(line_n(buf, i), tenths[i], "");
    }
    /* per second: (0.25 x 2 + 0.05) / 1 s, then 0.25 / 0.55 s */
    CHECK_EQ_U64(read_file("nand.csv", buf, sizeof(buf)), 3);
    CHECK(!strcmp(line_n(buf, 0), "time_s,interval_s,NAND_read,NAND_write,NAND_cpbk,"
                                  "copy_cmds,copy_pages,zone_resets,zone_finishes,"
                                  "zone_appends,zone_writes,zone_reads,zone_write_pages,"
                                  "zone_read_pages,zone_erased_blocks,CH_util,zones_empty,"
                                  "zones_implicit_open,zones_explicit_open,zones_closed,"
                                  "zones_full,zones_read_only,zones_offline"));
    CHECK(!strcmp(line_n(buf, 1), "1.000,1.000,1,2,0,0,0,0,0,0,0,0,0,0,0,0.5500,"
                                  "0,0,0,0,0,0,0"));
    CHECK(!strcmp(line_n(buf, 2), "1.550,0.550,0,1,0,0,0,0,0,0,0,0,0,0,0,0.4545,"
                                  "0,0,0,0,0,0,0"));
    /* the columns add up to the FTL's own counts */
    struct ftl_counters c = counters(ftl);
    CHECK_EQ_U64((uint64_t)column_sum(buf, 2), ftl_nand_reads(&c));
    CHECK_EQ_U64((uint64_t)column_sum(buf, 3), ftl_nand_programs(&c));
    ftl_destroy(ftl);
    temp_dir_remove(dir);
}

static struct ftl_request zone_request(enum ftl_op op, uint64_t now, uint64_t slba,
                                       uint64_t nlb, uint32_t flags, uint32_t action)
{
    return (struct ftl_request){ .op = op, .arrival_ns = now, .slba = slba, .nlb = nlb,
                                 .flags = flags, .zone_action = action, .nsid = 2 };
}

/*
 * A zoned FTL: 8 zones of one block on each of 2 LUNs (1024 sectors), left in every
 * state the map draws; nand.csv counts its commands and pages, zones.csv holds the map.
 */
static void test_zones(void)
{
    temp_dir_make(dir, sizeof(dir), "ftl-stats-test");
    struct ftl_config cfg = small_config(2, 2, 64, 64, 8);
    cfg.zoned = 1;
    cfg.zones = 8;
    cfg.zone_luns = 2;
    cfg.devsz_mb = ftl_config_max_devsz_mb(&cfg);
    struct ftl *ftl = make_ftl(&cfg);
    CHECK_EQ_U64(ftl_zone_count(ftl), 8);
    const uint64_t zsz = ftl_zone_size_sectors(ftl), cap = ftl_zone_cap_sectors(ftl);
    CHECK_EQ_U64(zsz, 1024);
    CHECK_EQ_U64(cap, 1024);
    struct ftl_stats_writer *w = ftl_stats_open(dir, ftl, 0, err, sizeof(err));
    CHECK(w != NULL);
    struct ftl_engine *e = ftl_engine_create(ftl, w, NULL);
    const struct ftl_request reqs[] = {
        /* zone 0: two pages written, implicitly open */
        zone_request(FTL_OP_ZONE_WRITE, S / 10, 0, 16, 0, 0),
        /* zone 1: one page appended, then closed */
        zone_request(FTL_OP_ZONE_WRITE, S / 5, zsz, 8, FTL_REQ_APPEND, 0),
        zone_request(FTL_OP_ZONE_MGMT, S / 2, zsz, 0, 0, FTL_ZONE_ACTION_CLOSE),
        /* zone 2: finished while empty; zone 3: explicitly opened */
        zone_request(FTL_OP_ZONE_MGMT, S / 2, 2 * zsz, 0, 0, FTL_ZONE_ACTION_FINISH),
        zone_request(FTL_OP_ZONE_MGMT, S / 2, 3 * zsz, 0, 0, FTL_ZONE_ACTION_OPEN),
        /* zone 4: filled (128 pages), then reset (its 2 blocks erased) */
        zone_request(FTL_OP_ZONE_WRITE, 2 * S, 4 * zsz, cap, 0, 0),
        zone_request(FTL_OP_ZONE_MGMT, 3 * S, 4 * zsz, 0, 0, FTL_ZONE_ACTION_RESET),
        /* zone 0 read back: its two pages sensed */
        zone_request(FTL_OP_ZONE_READ, 4 * S, 0, 16, 0, 0),
    };
    for (size_t i = 0; i < sizeof(reqs) / sizeof(reqs[0]); i++) {
        CHECK_EQ_U64(ftl_engine_serve(e, &reqs[i], NULL), FTL_OK);
    }
    ftl_engine_destroy(e);
    CHECK(ftl_stats_close(w, 5 * S, err, sizeof(err)) == 0);

    static char buf[1 << 16];
    char row[256];
    CHECK_EQ_U64(read_file("zones.csv", buf, sizeof(buf)), 9);
    CHECK(!strcmp(line_n(buf, 0), "zone,start,cap,wp,state"));
    static const struct { uint64_t wp_offset; uint8_t state; } expected[8] = {
        { 16, FTL_ZONE_IMPLICIT_OPEN }, { 8, FTL_ZONE_CLOSED }, { 1024, FTL_ZONE_FULL },
        { 0, FTL_ZONE_EXPLICIT_OPEN }, { 0, FTL_ZONE_EMPTY }, { 0, FTL_ZONE_EMPTY },
        { 0, FTL_ZONE_EMPTY }, { 0, FTL_ZONE_EMPTY },
    };
    for (unsigned z = 0; z < 8; z++) {
        snprintf(row, sizeof(row), "%u,%llu,1024,%llu,%s", z, (unsigned long long)(z * zsz),
                 (unsigned long long)(z * zsz + expected[z].wp_offset),
                 ftl_zone_state_name(expected[z].state));
        CHECK(!strcmp(line_n(buf, z + 1), row));
    }
    /*
     * One row a second, its zone states when the row was written (at the next request):
     * 1: the write (2 pages), the append (1), the finish; 3: the fill (128 pages); 4: the
     * reset (2 blocks erased); 5: the read (2 pages sensed).
     */
    static const char *const seconds[][2] = {
        { "1.000,1.000,0,3,0,0,0,0,1,1,1,0,3,0,0,", ",4,1,1,1,1,0,0" },
        { "2.000,1.000,0,0,0,0,0,0,0,0,0,0,0,0,0,0.0000", ",4,1,1,1,1,0,0" },
        { "3.000,1.000,0,128,0,0,0,0,0,0,1,0,128,0,0,", ",3,1,1,1,2,0,0" },
        { "4.000,1.000,0,0,0,0,0,1,0,0,0,0,0,0,2,", ",4,1,1,1,1,0,0" },
        { "5.000,1.000,2,0,0,0,0,0,0,0,0,1,0,2,0,", ",4,1,1,1,1,0,0" },
    };
    CHECK_EQ_U64(read_file("nand.csv", buf, sizeof(buf)), 6);
    for (int i = 0; i < 5; i++) {
        CHECK_ROW(line_n(buf, i + 1), seconds[i][0], seconds[i][1]);
    }
    struct ftl_counters c = counters(ftl);
    CHECK_EQ_U64((uint64_t)column_sum(buf, 2), ftl_nand_reads(&c));
    CHECK_EQ_U64((uint64_t)column_sum(buf, 3), ftl_nand_programs(&c));
    CHECK_EQ_U64((uint64_t)column_sum(buf, 9), c.zone_append_cmds);
    CHECK_EQ_U64((uint64_t)column_sum(buf, 10), c.zone_write_cmds);
    ftl_destroy(ftl);
    temp_dir_remove(dir);
}

/* The lab files and stats.csv: rows for busy and idle intervals, partial last rows. */
static void test_lab_files(void)
{
    temp_dir_make(dir, sizeof(dir), "ftl-stats-test");
    struct ftl_config cfg = small_config(2, 2, 64, 64, 8);
    cfg.placement = FTL_PLACEMENT_HOTCOLD;
    cfg.devsz_mb = 4;
    struct ftl *ftl = make_ftl(&cfg);
    struct ftl_stats_writer *w = ftl_stats_open(dir, ftl, 5 * S, err, sizeof(err));
    CHECK(w != NULL);
    uint64_t done;
    CHECK(ftl_stats_phase(w, 5 * S, "workload", err, sizeof(err)) == 0);
    /* second 1: three 4 KiB writes and one read; seconds 2-11 idle; second 12: one write */
    CHECK(ftl_stats_advance(w, 5 * S + S / 2, err, sizeof(err)) == 0);
    write_pages(ftl, 5 * S + S / 2, 0, 1, &done);
    write_pages(ftl, 5 * S + S / 2, 1, 1, &done);
    write_pages(ftl, 5 * S + S / 2, 2, 1, &done);
    read_pages(ftl, 5 * S + S / 2, 0, 1, &done);
    CHECK(ftl_stats_advance(w, 16 * S + S / 4, err, sizeof(err)) == 0);
    write_pages(ftl, 16 * S + S / 4, 3, 2, &done);
    CHECK(ftl_stats_phase(w, 17 * S, "end", err, sizeof(err)) == 0);
    CHECK(ftl_stats_close(w, 17 * S + S / 2, err, sizeof(err)) == 0);

    static char buf[1 << 16];
    /* 12 whole seconds and a half-second partial row */
    CHECK_EQ_U64(read_file("IOPSData.csv", buf, sizeof(buf)), 14);
    CHECK(!strcmp(line_n(buf, 0), "time,read,write"));
    CHECK(!strcmp(line_n(buf, 1), "1.000,1,3"));
    CHECK(!strcmp(line_n(buf, 2), "2.000,0,0"));
    CHECK(!strcmp(line_n(buf, 11), "11.000,0,0"));
    CHECK(!strcmp(line_n(buf, 12), "12.000,0,1"));
    CHECK(!strcmp(line_n(buf, 13), "12.500,0,0"));
    CHECK_EQ_U64(read_file("throughputData.csv", buf, sizeof(buf)), 14);
    CHECK(!strcmp(line_n(buf, 1), "1.000,0.0039,0.0117"));  /* 4 KiB and 12 KiB in MiB/s */
    CHECK(!strcmp(line_n(buf, 12), "12.000,0.0000,0.0078"));
    /* 10 s files: one whole interval and a 2.5 s partial one */
    CHECK_EQ_U64(read_file("statistics.csv", buf, sizeof(buf)), 3);
    CHECK(!strcmp(line_n(buf, 0), "seconds,iops,waf"));
    CHECK(!strcmp(line_n(buf, 1), "10.000,0.40,1.0000"));
    CHECK(!strcmp(line_n(buf, 2), "12.500,0.40,1.0000"));
    CHECK_EQ_U64(read_file("GCData.csv", buf, sizeof(buf)), 3);
    CHECK(!strcmp(line_n(buf, 1), "10.000,0"));
    CHECK_EQ_U64(read_file("WAFData.csv", buf, sizeof(buf)), 3);
    CHECK(!strcmp(line_n(buf, 0), "time,GCWrite"));
    CHECK_EQ_U64(read_file("phases.csv", buf, sizeof(buf)), 3);
    CHECK_ROW(line_n(buf, 1), "0.000,workload,", ",0.000000");
    CHECK(!strncmp(line_n(buf, 2), "12.000,end,", strlen("12.000,end,")));   /* the end marked: close adds none */
    CHECK_EQ_U64(read_file("stats.csv", buf, sizeof(buf)), 14);
    CHECK_CONTAINS(line_n(buf, 0), ",wp0_host_pages,wp0_gc_pages,wp1_host_pages,wp1_gc_pages");
    /* idle second: waf column empty */
    CHECK_CONTAINS(line_n(buf, 2), ",0,0,0,0,0,,");
    CHECK_CONTAINS(line_n(buf, 1), "1.000,1.000,1,3,0,1,3,0,4096,12288,");

    char path[512];
    snprintf(path, sizeof(path), "%s/lpn_access_count.csv", dir);
    CHECK(ftl_stats_write_lpn_counts(ftl, path, err, sizeof(err)) == 0);
    CHECK_EQ_U64(read_file("lpn_access_count.csv", buf, sizeof(buf)), 6);
    CHECK(!strcmp(line_n(buf, 0), "LPN,Access_Count"));
    CHECK(!strcmp(line_n(buf, 1), "0,1"));
    CHECK(!strcmp(line_n(buf, 5), "4,1"));
    /* errors name the problem instead of crashing */
    CHECK(ftl_stats_open("/nonexistent/dir", ftl, 0, err, sizeof(err)) == NULL);
    CHECK_CONTAINS(err, "cannot create /nonexistent/dir/IOPSData.csv");
    CHECK(ftl_stats_write_lpn_counts(ftl, "/nonexistent/x.csv", err, sizeof(err)) != 0);

    /* without zoning: the ZNS+ files are there, the zone map is not */
    CHECK_EQ_U64(read_file("nand.csv", buf, sizeof(buf)), 14);
    CHECK(!strcmp(line_n(buf, 12), "12.000,1.000,0,2,0,0,0,0,0,0,0,0,0,0,0,0.0004,"
                                   "0,0,0,0,0,0,0"));   /* two programs of 200 us */
    CHECK_EQ_U64(read_file("ch_util.csv", buf, sizeof(buf)), 126);   /* 12.5 s of 0.1 s */
    CHECK(!strcmp(line_n(buf, 125), "12.500,0.0000"));
    CHECK_EQ_U64(read_file("zones.csv", buf, sizeof(buf)), (uint64_t)-1);
    ftl_destroy(ftl);
    temp_dir_remove(dir);
}

/* A 4 MiB FTL of 2x2 LUNs and its statistics in dir from time 0. */
static struct ftl_stats_writer *open_small(struct ftl **ftl)
{
    temp_dir_make(dir, sizeof(dir), "ftl-stats-test");
    struct ftl_config cfg = small_config(2, 2, 64, 64, 8);
    cfg.devsz_mb = 4;
    *ftl = make_ftl(&cfg);
    struct ftl_stats_writer *w = ftl_stats_open(dir, *ftl, 0, err, sizeof(err));
    CHECK(w != NULL);
    return w;
}

/*
 * Three idle days (a trace's jump, a guest left alone) are one row per file after the
 * last 10 s interval with work, not 2.6 million rows of 0.1 s: a write at 0.5 s, nothing
 * until 259200.25 s, a write, close at 259201.25 s.
 */
static void test_idle_days(void)
{
    struct ftl *ftl;
    struct ftl_stats_writer *w = open_small(&ftl);
    uint64_t done, later = 259200 * S + S / 4;
    write_pages(ftl, S / 2, 0, 1, &done);
    CHECK(ftl_stats_advance(w, later, err, sizeof(err)) == 0);
    write_pages(ftl, later, 1, 1, &done);
    CHECK(ftl_stats_close(w, later + S, err, sizeof(err)) == 0);

    static char buf[1 << 16];
    /* seconds 1-10, the idle row to 259200, the second of the write, the partial one */
    CHECK_EQ_U64(read_file("IOPSData.csv", buf, sizeof(buf)), 14);
    CHECK(!strcmp(line_n(buf, 1), "1.000,0,1"));
    CHECK(!strcmp(line_n(buf, 10), "10.000,0,0"));
    CHECK(!strcmp(line_n(buf, 11), "259200.000,0,0"));
    CHECK(!strcmp(line_n(buf, 12), "259201.000,0,1"));
    CHECK(!strcmp(line_n(buf, 13), "259201.250,0,0"));
    CHECK_EQ_U64(read_file("stats.csv", buf, sizeof(buf)), 14);
    /* a 259190 s interval with nothing in it: zero counts and rates, no WAF (nor KV WAF,
     * after the key-value columns that end every row) */
    CHECK_ROW(line_n(buf, 11), "259200.000,259190.000,0,0,0,0,0,0,0,0,0.0000,0.0000,0.00,"
              "0,0,0,0,0,0,0,0,,", ",,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,");
    CHECK_EQ_U64(read_file("statistics.csv", buf, sizeof(buf)), 4);
    CHECK(!strcmp(line_n(buf, 2), "259200.000,0.00,"));
    CHECK_EQ_U64(read_file("nand.csv", buf, sizeof(buf)), 14);
    /* 0.1 s rows: 100 to 10 s, one idle row, 12 to 259201.2, the partial one */
    CHECK_EQ_U64(read_file("ch_util.csv", buf, sizeof(buf)), 115);
    CHECK(!strcmp(line_n(buf, 101), "259200.000,0.0000"));
    CHECK(!strcmp(line_n(buf, 102), "259200.100,0.0000"));
    ftl_destroy(ftl);
    temp_dir_remove(dir);
}

/* Column name's value in a row of a CSV whose header is line 0 of buf; -1 if absent. */
static double named_value(const char *buf, int row, const char *name)
{
    char header[1024], line[1024];
    snprintf(header, sizeof(header), "%s", line_n(buf, 0));
    snprintf(line, sizeof(line), "%s", line_n(buf, row));
    int index = 0;
    for (char *h = strtok(header, ","); h; h = strtok(NULL, ","), index++) {
        if (!strcmp(h, name)) {
            const char *field = line;
            for (int i = 0; i < index && field; i++) {
                field = strchr(field, ',');
                field = field ? field + 1 : NULL;
            }
            return field ? strtod(field, NULL) : -1;
        }
    }
    return -1;
}

/* A phase's count of column name: its row's snapshot minus the previous row's. */
static uint64_t phase_count(const char *buf, int row, const char *name)
{
    double before = row > 1 ? named_value(buf, row - 1, name) : 0;
    return (uint64_t)(named_value(buf, row, name) - before);
}

/*
 * Phase markers in the middle of a second (issue 41): each phases.csv row snapshots the
 * counters at its instant, so a phase's requests are exact although the 1 s rows of
 * stats.csv mix two phases; close ends the last phase with an "end" row.
 */
static void test_phase_snapshots(void)
{
    struct ftl *ftl;
    struct ftl_stats_writer *w = open_small(&ftl);
    uint64_t done;
    /* fill: 3 one-page writes; mix (from 1.5 s): a 2-page read and a write; verify
     * (from 1.8 s, the same second): a 3-page read */
    CHECK(ftl_stats_phase(w, 0, "fill", err, sizeof(err)) == 0);
    for (uint64_t lpn = 0; lpn < 3; lpn++) {
        CHECK(ftl_stats_advance(w, 200 * MS, err, sizeof(err)) == 0);
        write_pages(ftl, 200 * MS, lpn, 1, &done);
    }
    CHECK(ftl_stats_phase(w, 1500 * MS, "mix", err, sizeof(err)) == 0);
    read_pages(ftl, 1600 * MS, 0, 2, &done);
    write_pages(ftl, 1700 * MS, 3, 1, &done);
    CHECK(ftl_stats_phase(w, 1800 * MS, "verify", err, sizeof(err)) == 0);
    read_pages(ftl, 1900 * MS, 0, 3, &done);
    CHECK(ftl_stats_close(w, 3200 * MS, err, sizeof(err)) == 0);

    static char buf[1 << 16];
    CHECK_EQ_U64(read_file("phases.csv", buf, sizeof(buf)), 5);
    CHECK_ROW(line_n(buf, 0), "time_s,phase,host_read_cmds,", ",busy_chip_s");
    CHECK(!strncmp(line_n(buf, 2), "1.500,mix,", strlen("1.500,mix,")));
    CHECK(!strncmp(line_n(buf, 3), "1.800,verify,", strlen("1.800,verify,")));
    CHECK(!strncmp(line_n(buf, 4), "3.200,end,", strlen("3.200,end,")));
    static const uint64_t want[][4] = {  /* read cmds, read pages, write pages, NAND_read */
        { 0, 0, 3, 0 }, { 1, 2, 1, 2 }, { 1, 3, 0, 3 },
    };
    for (int phase = 0; phase < 3; phase++) {
        CHECK_EQ_U64(phase_count(buf, phase + 2, "host_read_cmds"), want[phase][0]);
        CHECK_EQ_U64(phase_count(buf, phase + 2, "host_read_pages"), want[phase][1]);
        CHECK_EQ_U64(phase_count(buf, phase + 2, "host_write_pages"), want[phase][2]);
        CHECK_EQ_U64(phase_count(buf, phase + 2, "NAND_read"), want[phase][3]);
    }
    /* the phases' flash time adds up to the run's (every interval's busy chips) */
    double busy = named_value(buf, 4, "busy_chip_s");
    CHECK(busy > 0);
    CHECK_EQ_U64(read_file("ch_util.csv", buf, sizeof(buf)), 33);
    CHECK_EQ_U64((uint64_t)(busy * 1e4 + 0.5), (uint64_t)(column_sum(buf, 1) * 0.1 * 1e4 + 0.5));
    /* the 1 s row 1-2 s holds both phases' reads: what a whole-second table charged */
    CHECK_EQ_U64(read_file("stats.csv", buf, sizeof(buf)), 5);
    CHECK_EQ_U64((uint64_t)named_value(buf, 2, "host_read_pages"), 5);
    ftl_destroy(ftl);
    temp_dir_remove(dir);

    /* a run without markers gets no end row */
    w = open_small(&ftl);
    CHECK(ftl_stats_close(w, 2 * S, err, sizeof(err)) == 0);
    CHECK_EQ_U64(read_file("phases.csv", buf, sizeof(buf)), 1);
    ftl_destroy(ftl);
    temp_dir_remove(dir);
}

int main(void)
{
    test_phase_snapshots();
    test_idle_days();
    test_lab_files();
    test_busy_chips();
    test_zones();
    return check_summary();
}
