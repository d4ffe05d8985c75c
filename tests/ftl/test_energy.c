/*
 * The energy model (femu_ftl/energy.h, docs/energy.md), against joules worked by hand: the
 * flash tallies a known sequence of operations books (flash/timing.c), the model's parts
 * and total over them plus link, controller and power-state time, stats.csv's and
 * phases.csv's columns, energy=off leaving every file as it was, and a missing NAND
 * figure refused with its key (and the profile that left it out) named.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "femu_ftl/energy.h"
#include "femu_ftl/stats.h"
#include "flash/ftl_handle.h"
#include "flash/timing.h"
#include "ftl_test_util.h"
#include "obs/stats_energy.h"
#include "temp_dir_util.h"

#define MS 1000000ull
#define S 1000000000ull

static char err[512];

/* Text equality, both strings printed on failure. */
#define CHECK_STR(got, want) do { \
        const char *check_g_ = (got), *check_w_ = (want); \
        if (!check_record(check_g_ && !strcmp(check_g_, check_w_), __FILE__, __LINE__, \
                          #got " is " #want)) \
            fprintf(stderr, "    got:  \"%s\"\n    want: \"%s\"\n", \
                    check_g_ ? check_g_ : "(null)", check_w_); \
    } while (0)

/* Relative tolerance: the model multiplies doubles, the hand figures are exact decimals. */
#define CHECK_J(got, want) CHECK_NEAR((got), (want), 1e-15 + 1e-12 * (want))

/*
 * The figures every test prices with: VCC 3.3 V; ICC1 25 mA, ICC2 30 mA, ICC3 20 mA
 * (a LUN sensing draws 82.5 mW, programming 99 mW, erasing 66 mW); 100 pJ a channel byte;
 * 5 pJ a link bit; 500 mW a busy core; 300 mW of DRAM; PS0 idles at 3 W, PS3 (non-
 * operational) at 5 mW.
 */
static void set_figures(struct ftl_config *cfg)
{
    cfg->nand_vcc_mv = 3300;
    cfg->nand_icc_read_ua = 25000;
    cfg->nand_icc_prog_ua = 30000;
    cfg->nand_icc_erase_ua = 20000;
    cfg->nand_io_pj_per_byte = 100;
    cfg->pcie_fj_per_bit = 5000;
    cfg->ctrl_active_mw = 500;
    cfg->dram_active_mw = 300;
    cfg->ps_count = 4;
    /* a table the power-state checks accept: ordered by max_mw, idle within it,
     * operational states at full speed */
    const uint64_t max_mw[] = { 8000, 4000, 2000, 5 };
    const uint64_t idle_mw[] = { 3000, 2000, 1000, 5 };
    for (int i = 0; i < 4; i++) {
        cfg->ps[i].max_mw = max_mw[i];
        cfg->ps[i].idle_mw = idle_mw[i];
        cfg->ps[i].perf_pcent = 100;
    }
    cfg->ps[3].nonop = 1;
}

/* 1 channel of 2 LUNs, 64 blocks of 64 pages of 4 KiB; tR 50 us, tPROG 600 us, tBERS 3 ms. */
static struct ftl_config small_energy_config(void)
{
    struct ftl_config cfg = small_config(1, 2, 64, 64, 8);
    cfg.pg_rd_lat = 50000;
    cfg.pg_wr_lat = 600000;
    cfg.blk_er_lat = 3000000;
    return cfg;
}

/*
 * Three reads (one of them with two 20 us retry steps: 90 us), two programs (one in SLC
 * mode: 200 us), an erase and a copyback (50 us sense + 600 us program, no channel):
 * sense 50 + 90 + 50 + 50 = 240 us, program 600 + 200 + 600 = 1400 us, erase 3000 us,
 * and five pages over the channel, 5 x 4096 = 20480 bytes. Then, as the front and the
 * power states would count them: 100000 bytes up and 20000 down the link, 40 us of core
 * time, 2 s in PS0 and 1 s in PS3, over 3 s.
 *   read        240e-6 s x 3.3 V x 0.025 A            =  19.8e-6 J
 *   program    1400e-6 s x 3.3 V x 0.030 A            = 138.6e-6 J
 *   erase      3000e-6 s x 3.3 V x 0.020 A            = 198.0e-6 J
 *   channel    20480 B x 100 pJ                       =   2.048e-6 J
 *   link       120000 B x 8 bits x 5 pJ               =   4.8e-6 J
 *   controller 40e-6 s x 0.5 W                        =  20.0e-6 J
 *   DRAM       (3 s - 1 s in PS3) x 0.3 W             =   0.6 J
 *   static     2 s x 3 W + 1 s x 0.005 W              =   6.005 J
 *   total                                             =   6.605383248 J
 */
static void run_sequence(struct ftl *ftl)
{
    uint64_t t = nand_read(ftl, 0, 0);
    t = nand_read_lat(ftl, 1, t, 50000 + 2 * 20000);
    t = nand_read(ftl, 0, t);
    t = nand_program(ftl, 1, t);
    t = nand_program_lat(ftl, 0, t, 200000);
    t = nand_erase(ftl, 0, t);
    nand_copyback(ftl, 1, t);
}

static void add_front_and_power_states(struct ftl_counters *c)
{
    c->link_up_bytes += 100000;
    c->link_down_bytes += 20000;
    c->ctrl_busy_ns += 40000;
    c->ps_time_ns[0] += 2 * S;
    c->ps_time_ns[3] += 1 * S;
    c->ps_exits += 4;
}

static void test_sequence_by_hand(void)
{
    struct ftl_config cfg = small_energy_config();
    set_figures(&cfg);
    struct ftl *ftl = make_ftl(&cfg);
    struct ftl_counters a = counters(ftl);
    run_sequence(ftl);
    struct ftl_counters b = counters(ftl);
    CHECK_EQ_U64(b.nand_sense_ns - a.nand_sense_ns, 240000);
    CHECK_EQ_U64(b.nand_program_ns - a.nand_program_ns, 1400000);
    CHECK_EQ_U64(b.nand_erase_ns - a.nand_erase_ns, 3000000);
    CHECK_EQ_U64(b.ch_bytes - a.ch_bytes, 20480);
    add_front_and_power_states(&b);

    struct ftl_energy e;
    ftl_energy_between(&cfg, &a, &b, 3 * S, &e);
    CHECK_J(e.part_j[FTL_ENERGY_NAND_READ], 19.8e-6);
    CHECK_J(e.part_j[FTL_ENERGY_NAND_PROGRAM], 138.6e-6);
    CHECK_J(e.part_j[FTL_ENERGY_NAND_ERASE], 198.0e-6);
    CHECK_J(e.part_j[FTL_ENERGY_CHANNEL], 2.048e-6);
    CHECK_J(e.part_j[FTL_ENERGY_LINK], 4.8e-6);
    CHECK_J(e.part_j[FTL_ENERGY_CONTROLLER], 20.0e-6);
    CHECK_J(e.part_j[FTL_ENERGY_DRAM], 0.6);
    CHECK_J(e.part_j[FTL_ENERGY_STATIC], 6.005);
    CHECK_J(e.total_j, 6.605383248);

    /* the parts by name, as the summary writes them */
    CHECK(!strcmp(ftl_energy_part_name(FTL_ENERGY_NAND_READ), "nand_read"));
    CHECK(!strcmp(ftl_energy_part_name(FTL_ENERGY_STATIC), "static"));

    /* intervals add up: the sequence split before its erase, its first 2 s in PS0 and
     * the last second in PS3, prices the same in two parts */
    struct ftl *again = make_ftl(&cfg);
    struct ftl_counters s0 = counters(again);
    uint64_t t = nand_read(again, 0, 0);
    t = nand_read_lat(again, 1, t, 90000);
    t = nand_read(again, 0, t);
    t = nand_program(again, 1, t);
    t = nand_program_lat(again, 0, t, 200000);
    struct ftl_counters s1 = counters(again);
    s1.ps_time_ns[0] = 2 * S;
    t = nand_erase(again, 0, t);
    nand_copyback(again, 1, t);
    struct ftl_counters s2 = counters(again);
    add_front_and_power_states(&s2);
    struct ftl_energy first, second;
    ftl_energy_between(&cfg, &s0, &s1, 2 * S, &first);
    ftl_energy_between(&cfg, &s1, &s2, 1 * S, &second);
    CHECK_J(first.total_j + second.total_j, 6.605383248);
    CHECK_J(first.part_j[FTL_ENERGY_DRAM], 0.6);
    CHECK(second.part_j[FTL_ENERGY_DRAM] == 0.0);  /* its 1 s is all in PS3 */

    /* figures off: every part is 0, whatever the work */
    struct ftl_config none = small_energy_config();
    none.ps[0].idle_mw = 0;     /* PS0's default idle power is a figure too */
    ftl_energy_between(&none, &a, &b, 3 * S, &e);
    CHECK(e.total_j == 0.0);
    /* snapshots the wrong way round price nothing rather than a wrapped count */
    ftl_energy_between(&cfg, &b, &a, 0, &e);
    CHECK(e.total_j == 0.0);
    ftl_destroy(again);
    ftl_destroy(ftl);
}

/* A month of a thousand LUNs at full tilt stays finite and exact to the double. */
static void test_a_month_does_not_overflow(void)
{
    struct ftl_config cfg = small_energy_config();
    set_figures(&cfg);
    cfg.nand_vcc_mv = 5000;
    cfg.nand_icc_prog_ua = 1000000;         /* the keys' largest values */
    struct ftl_counters a = { 0 }, b = { 0 };
    uint64_t month = 31ull * 24 * 3600 * S;
    b.nand_program_ns = 1000 * month;       /* 2.7e18 ns */
    b.ps_time_ns[0] = month;
    struct ftl_energy e;
    ftl_energy_between(&cfg, &a, &b, month, &e);
    /* 2.6784e9 s x 5 W = 1.3392e10 J; 2.6784e6 s x 3 W; 2.6784e6 s x 0.3 W */
    CHECK_NEAR(e.part_j[FTL_ENERGY_NAND_PROGRAM], 1.3392e10, 1.0);
    CHECK_NEAR(e.part_j[FTL_ENERGY_STATIC], 8.0352e6, 1e-3);
    CHECK_NEAR(e.part_j[FTL_ENERGY_DRAM], 8.0352e5, 1e-3);
}

/* stats_energy_values over the synthetic snapshots, as a string. */
static void test_columns_by_hand(void)
{
    struct ftl_config cfg = small_energy_config();
    set_figures(&cfg);
    cfg.energy = 1;
    struct ftl *ftl = make_ftl(&cfg);
    struct ftl_counters a = counters(ftl);
    run_sequence(ftl);
    struct ftl_counters b = counters(ftl);
    add_front_and_power_states(&b);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    stats_energy_header(f, &cfg, true);
    fputc('|', f);
    /* 6.605383248 J over 3 s: 2.201794416 W */
    stats_energy_values(f, &cfg, true, &a, &b, 3 * S);
    fputc('|', f);
    stats_energy_values(f, &cfg, false, &a, &b, 3 * S);
    fclose(f);
    CHECK_STR(text, ",energy_j,power_w,ps0_ms,ps1_ms,ps2_ms,ps3_ms,ps_exits|"
                    ",6.605383248,2.201794,2000.000,0.000,0.000,1000.000,4|"
                    ",6.605383248,2000.000,0.000,0.000,1000.000,4");
    free(text);
    ftl_destroy(ftl);
}

/* ---- the statistics files ---- */

static char dir[512];



/* The whole file, malloc'd ("" when missing). */
static char *slurp(const char *name)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    FILE *f = fopen(path, "r");
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    int c;
    while (f && (c = fgetc(f)) != EOF) {
        fputc(c, out);
    }
    fclose(out);
    if (f) {
        fclose(f);
    }
    return text;
}

/* Line n (0: the header) of text, in a static buffer. */
static const char *line_of(const char *text, int n)
{
    static char line[16384];
    for (int i = 0; i < n && text; i++) {
        text = strchr(text, '\n');
        text = text ? text + 1 : NULL;
    }
    size_t len = text ? strcspn(text, "\n") : 0;
    len = len < sizeof(line) - 1 ? len : sizeof(line) - 1;
    memcpy(line, text ? text : "", len);
    line[len] = '\0';
    return line;
}

static bool ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), m = strlen(tail);
    return n >= m && !strcmp(s + n - m, tail);
}

/*
 * One run, each file kept as text: two pages written at 0 (both LUNs program, 600 us
 * each) and one read at 0.5 s (50 us sense), the statistics closed at 1.5 s, a phase
 * "run" marked at 0.
 */
static void run_files(const struct ftl_config *cfg, char **stats, char **phases)
{
    temp_dir_make(dir, sizeof(dir), "ftl-energy-test");
    struct ftl *ftl = make_ftl(cfg);
    struct ftl_stats_writer *w = ftl_stats_open(dir, ftl, 0, err, sizeof(err));
    CHECK(w != NULL);
    uint64_t done;
    CHECK(ftl_stats_phase(w, 0, "run", err, sizeof(err)) == 0);
    CHECK_EQ_U64(write_pages(ftl, 0, 0, 2, &done), FTL_OK);
    CHECK(ftl_stats_advance(w, 500 * MS, err, sizeof(err)) == 0);
    CHECK_EQ_U64(read_pages(ftl, 500 * MS, 0, 1, &done), FTL_OK);
    CHECK(ftl_stats_close(w, 1500 * MS, err, sizeof(err)) == 0);
    *stats = slurp("stats.csv");
    *phases = slurp("phases.csv");
    ftl_destroy(ftl);
    temp_dir_remove(dir);
}

/*
 * energy=on with four power states (their time is the power-state model's to count; none
 * here): the first second holds 2 x 600 us of programs (118.8e-6 J), a 50 us sense
 * (4.125e-6 J), three pages over the channel (1.2288e-6 J) and 1 s of DRAM (0.3 J):
 * 0.3001241538 J; the last half second only DRAM, 0.15 J; the phase 0.4501241538 J.
 */
static void test_stats_columns(void)
{
    struct ftl_config cfg = small_energy_config();
    set_figures(&cfg);
    cfg.energy = 1;
    char *stats, *phases;
    run_files(&cfg, &stats, &phases);
    CHECK(ends_with(line_of(stats, 0), ",kv_waf,energy_j,power_w,ps0_ms,ps1_ms,ps2_ms,"
                                       "ps3_ms,ps_exits"));
    CHECK(ends_with(line_of(stats, 1), ",0.300124154,0.300124,0.000,0.000,0.000,0.000,0"));
    CHECK(ends_with(line_of(stats, 2), ",0.150000000,0.300000,0.000,0.000,0.000,0.000,0"));
    CHECK(ends_with(line_of(phases, 0), ",busy_chip_s,energy_j,ps0_ms,ps1_ms,ps2_ms,ps3_ms,"
                                        "ps_exits"));
    CHECK(!strncmp(line_of(phases, 1), "0.000,run,", 10));
    CHECK(ends_with(line_of(phases, 1), ",0.000000000,0.000,0.000,0.000,0.000,0"));
    CHECK(!strncmp(line_of(phases, 2), "1.500,end,", 10));
    CHECK(ends_with(line_of(phases, 2), ",0.450124154,0.000,0.000,0.000,0.000,0"));
    free(stats);
    free(phases);
}

/* energy=off (the default): the figures alone, and a single power state, change no byte
 * of stats.csv or phases.csv, which end as they always did. */
static void test_energy_off_changes_nothing(void)
{
    struct ftl_config plain = small_energy_config();
    struct ftl_config figures = plain;
    set_figures(&figures);
    figures.ps_count = 1;
    memset(&figures.ps[1], 0, sizeof(figures.ps) - sizeof(figures.ps[0]));
    char *stats_a, *phases_a, *stats_b, *phases_b;
    run_files(&plain, &stats_a, &phases_a);
    run_files(&figures, &stats_b, &phases_b);
    CHECK(!strcmp(stats_a, stats_b));
    CHECK(!strcmp(phases_a, phases_b));
    CHECK(ends_with(line_of(stats_a, 0), ",kv_index_page_writes,kv_compactions,"
                                         "kv_compaction_pages,kv_keys,kv_live_bytes,kv_waf"));
    CHECK(ends_with(line_of(phases_a, 0), ",busy_chip_s"));
    CHECK(strstr(stats_a, "energy") == NULL && strstr(stats_a, "ps0_ms") == NULL);
    free(stats_a);
    free(phases_a);
    free(stats_b);
    free(phases_b);

    /* power states alone (ps_count > 1) bring their columns without the energy's */
    struct ftl_config states = plain;
    set_figures(&states);
    char *stats, *phases;
    run_files(&states, &stats, &phases);
    CHECK(ends_with(line_of(stats, 0), ",kv_waf,ps0_ms,ps1_ms,ps2_ms,ps3_ms,ps_exits"));
    free(stats);
    free(phases);
}

/* ---- refusals ---- */

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static void test_missing_figures_are_refused(void)
{
    struct ftl_config cfg = small_energy_config();
    set_figures(&cfg);
    cfg.energy = 1;
    CHECK(ftl_config_validate(&cfg, NULL, err, sizeof(err)) == 0);
    cfg.nand_icc_erase_ua = 0;
    CHECK(ftl_config_validate(&cfg, NULL, err, sizeof(err)) == -1);
    CHECK_STR(err, "nand_icc_erase_ua: energy=on needs the NAND's array erase current "
                   "(ICC3), and none was given");
    cfg.nand_vcc_mv = 0;    /* the first missing one is named */
    CHECK(ftl_config_validate(&cfg, NULL, err, sizeof(err)) == -1);
    CHECK(!strncmp(err, "nand_vcc_mv: energy=on needs", 28));
    cfg.energy = 0;         /* off, nothing is needed */
    CHECK(ftl_config_validate(&cfg, NULL, err, sizeof(err)) == 0);

    /* ranges: a negative or too large figure is refused by the parser, key named */
    CHECK(ftl_config_set(&cfg, "nand_vcc_mv", "-3300", err, sizeof(err)) == -1);
    CHECK_STR(err, "nand_vcc_mv: '-3300' is not a non-negative integer");
    CHECK(ftl_config_set(&cfg, "nand_icc_read_ua", "1000001", err, sizeof(err)) == -1);
    CHECK_STR(err, "nand_icc_read_ua: 1000001 is out of range [0, 1000000]");
    CHECK(ftl_config_set(&cfg, "energy", "yes", err, sizeof(err)) == -1);
    CHECK(ftl_config_set(&cfg, "energy", "on", err, sizeof(err)) == 0 && cfg.energy == 1);

    /* files: a profile that leaves a figure out is named beside the key */
    char d[64] = "/tmp/ftl-energy-conf-XXXXXX", main_conf[128], profile[128];
    CHECK(mkdtemp(d) != NULL);
    snprintf(main_conf, sizeof(main_conf), "%s/drive.conf", d);
    snprintf(profile, sizeof(profile), "%s/nand.conf", d);
    write_text(profile, "nand_vcc_mv=3300\nnand_icc_read_ua=25000\nnand_icc_prog_ua=30000\n"
                        "nand_io_pj_per_byte=100\n");
    write_text(main_conf, "energy=on\ninclude nand.conf\n");
    struct ftl_config c2 = small_energy_config();
    struct ftl_config_origins *origins = calloc(1, sizeof(*origins));
    CHECK(ftl_config_combine_file(&c2, origins, main_conf, err, sizeof(err)) == 0);
    CHECK(ftl_config_validate_combined(&c2, origins, NULL, err, sizeof(err)) == -1);
    char want[512];
    snprintf(want, sizeof(want), "nand_icc_erase_ua: energy=on needs the NAND's array erase "
             "current (ICC3), and none was given (%s gives nand_vcc_mv but not "
             "nand_icc_erase_ua)", profile);
    CHECK_STR(err, want);
    /* no profile at all: where energy=on was set */
    write_text(main_conf, "energy=on\n");
    struct ftl_config c3 = small_energy_config();
    memset(origins, 0, sizeof(*origins));
    CHECK(ftl_config_combine_file(&c3, origins, main_conf, err, sizeof(err)) == 0);
    CHECK(ftl_config_validate_combined(&c3, origins, NULL, err, sizeof(err)) == -1);
    snprintf(want, sizeof(want), "nand_vcc_mv: energy=on needs the NAND's supply voltage "
             "(VCC), and none was given (energy=on at %s:1; no NAND profile with energy "
             "figures was read)", main_conf);
    CHECK_STR(err, want);
    /* a figure set to 0 in a file: that file and line come first, as for any key */
    write_text(profile, "nand_vcc_mv=0\n");
    write_text(main_conf, "energy=on\ninclude nand.conf\n");
    struct ftl_config c4 = small_energy_config();
    set_figures(&c4);
    memset(origins, 0, sizeof(*origins));
    CHECK(ftl_config_combine_file(&c4, origins, main_conf, err, sizeof(err)) == 0);
    CHECK(ftl_config_validate_combined(&c4, origins, NULL, err, sizeof(err)) == -1);
    snprintf(want, sizeof(want), "%s:1: nand_vcc_mv: energy=on needs", profile);
    CHECK(!strncmp(err, want, strlen(want)));
    free(origins);
    unlink(main_conf);
    unlink(profile);
    rmdir(d);
}

int main(void)
{
    test_sequence_by_hand();
    test_a_month_does_not_overflow();
    test_columns_by_hand();
    test_stats_columns();
    test_energy_off_changes_nothing();
    test_missing_figures_are_refused();
    return check_summary();
}
