/*
 * The NVMe power-state model through the engine (FTL_OP_POWER, power/power_state.h)
 * against hand-computed timelines: APST's idle transitions, the exit latency the next
 * command pays (after the entry when it arrives during one), the time in each state,
 * transitions and exits; a host's move to a non-operational state; an operational state
 * at half speed; refused states and tables; a cycle of entries over a long idle time.
 *
 * The drive: PS0 25 W, PS1 12 W at perf 50 (both operational), PS2 5 W operational,
 * PS3 non-operational (enlat 1000 us, exlat 2000 us), PS4 non-operational (enlat 5000,
 * exlat 10000). Flash: pg_rd_lat 40 us, pg_wr_lat 200 us, no channel time.
 */
#define _POSIX_C_SOURCE 200809L     /* mkdtemp */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "femu_ftl/engine.h"
#include "femu_ftl/stats.h"
#include "ftl_test_util.h"

#define US 1000ull
#define MS 1000000ull

static struct ftl_config power_config(void)
{
    struct ftl_config cfg = small_config(1, 2, 256, 16, 1);
    char err[256];

    cfg.ps_count = 5;
    cfg.ps[0] = (struct ftl_ps_desc){ .max_mw = 25000, .idle_mw = 5000, .perf_pcent = 100 };
    cfg.ps[1] = (struct ftl_ps_desc){ .max_mw = 12000, .idle_mw = 3000, .perf_pcent = 50 };
    cfg.ps[2] = (struct ftl_ps_desc){ .max_mw = 5000, .idle_mw = 2000, .perf_pcent = 25 };
    cfg.ps[3] = (struct ftl_ps_desc){ .max_mw = 50, .idle_mw = 50, .enlat_us = 1000,
                                      .exlat_us = 2000, .nonop = 1 };
    cfg.ps[4] = (struct ftl_ps_desc){ .max_mw = 5, .idle_mw = 5, .enlat_us = 5000,
                                      .exlat_us = 10000, .nonop = 1 };
    CHECK(ftl_config_validate(&cfg, NULL, err, sizeof(err)) == 0);
    return cfg;
}

static int power(struct ftl_engine *e, uint64_t at, const struct ftl_power_cmd *cmd,
                 struct ftl_served *s)
{
    struct ftl_request r = { .op = FTL_OP_POWER, .arrival_ns = at, .power = cmd };
    return ftl_engine_serve(e, &r, s);
}

static struct ftl_served io(struct ftl_engine *e, enum ftl_op op, uint64_t at)
{
    struct ftl_request r = { .op = op, .arrival_ns = at, .slba = 0, .nlb = 1 };
    struct ftl_served s;
    CHECK_EQ_U64(ftl_engine_serve(e, &r, &s), FTL_OK);
    return s;
}

/* APST: PS0 -> PS3 after 100 ms idle, PS3 -> PS4 after 2000 ms in PS3. */
static struct ftl_power_cmd linux_like_table(void)
{
    struct ftl_power_cmd cmd = { .action = FTL_POWER_SET_APST, .apst_enabled = true };
    cmd.apst[0] = (struct ftl_apst_entry){ .itpt_ms = 100, .itps = 3 };
    cmd.apst[3] = (struct ftl_apst_entry){ .itpt_ms = 2000, .itps = 4 };
    return cmd;
}

/*
 * Times in ms. The table at 0, a write at 0 (done 0.2). Idle from 0.2: PS3 at 100.2.
 *   read at 150 (PS3, entry over at 101.2): starts 150 + 2 = 152, done 152.04; PS0 from 150
 *   idle from 152.04: PS3 at 252.04, its entry ends 253.04
 *   read at 252.54 (entering PS3): starts 253.04 + 2 = 255.04, done 255.08
 *   idle from 255.08: PS3 at 355.08, PS4 at 2355.08
 *   read at 5000 (PS4): starts 5000 + 10 = 5010, done 5010.04; PS3 at 5110.04
 *   advanced to 6000.
 * PS0: 100.2 + (252.04 - 150) + (355.08 - 252.54) + (5110.04 - 5000) = 414.82
 * PS3: (150 - 100.2) + (252.54 - 252.04) + 2000 + (6000 - 5110.04) = 2940.26
 * PS4: 5000 - 2355.08 = 2644.92 (the three: 6000)
 * Transitions 0>3 3>0 0>3 3>0 0>3 3>4 4>0 0>3: 8; exits 3, waiting 2 + 2.5 + 10 ms.
 */
static void test_apst_timeline(void)
{
    struct ftl_config cfg = power_config();
    struct ftl *ftl = make_ftl(&cfg);
    struct ftl_engine *e = ftl_engine_create(ftl, NULL, NULL);
    struct ftl_power_cmd table = linux_like_table();
    struct ftl_served s;

    CHECK_EQ_U64(power(e, 0, &table, &s), FTL_OK);
    CHECK_EQ_U64(s.power_state, 0);
    CHECK_EQ_U64(io(e, FTL_OP_WRITE, 0).done_ns, 200 * US);

    s = io(e, FTL_OP_READ, 150 * MS);
    CHECK_EQ_U64(s.done_ns, 152 * MS + 40 * US);
    CHECK_EQ_U64(s.split.wait_ns, 2 * MS);
    CHECK_EQ_U64(s.split.flash_ns, 40 * US);
    CHECK_EQ_U64(s.power_state, 0);

    s = io(e, FTL_OP_READ, 252 * MS + 540 * US);
    CHECK_EQ_U64(s.done_ns, 255 * MS + 80 * US);
    CHECK_EQ_U64(s.split.wait_ns, 2500 * US);

    /* at 3000 ms, asked before the next read, moving nothing: PS3 at 355.08, PS4 at
     * 2355.08; PS0 100.2 + 102.04 + 102.54, PS3 49.8 + 0.5 + 2000, PS4 644.92 */
    struct ftl_counters early;
    ftl_engine_counters_at(e, 3000 * MS, &early);
    CHECK_EQ_U64(early.ps_time_ns[0], 304 * MS + 780 * US);
    CHECK_EQ_U64(early.ps_time_ns[3], 2050 * MS + 300 * US);
    CHECK_EQ_U64(early.ps_time_ns[4], 644 * MS + 920 * US);
    CHECK_EQ_U64(early.ps_transitions, 6);
    CHECK_EQ_U64(counters(ftl).ps_transitions, 4);  /* the read at 252.54 woke it last */

    s = io(e, FTL_OP_READ, 5000 * MS);
    CHECK_EQ_U64(s.done_ns, 5010 * MS + 40 * US);
    CHECK_EQ_U64(s.split.wait_ns, 10 * MS);

    ftl_engine_advance(e, 6000 * MS);
    struct ftl_counters c = counters(ftl), same;
    ftl_engine_counters_at(e, 6000 * MS, &same);
    CHECK(memcmp(&c, &same, sizeof(c)) == 0);
    CHECK_EQ_U64(c.ps_time_ns[0], 414 * MS + 820 * US);
    CHECK_EQ_U64(c.ps_time_ns[1] + c.ps_time_ns[2], 0);
    CHECK_EQ_U64(c.ps_time_ns[3], 2940 * MS + 260 * US);
    CHECK_EQ_U64(c.ps_time_ns[4], 2644 * MS + 920 * US);
    CHECK_EQ_U64(c.ps_transitions, 8);
    CHECK_EQ_U64(c.ps_exits, 3);
    CHECK_EQ_U64(c.ps_exit_wait_ns, 14 * MS + 500 * US);

    /* Get Features reports PS3 and wakes nothing */
    struct ftl_power_cmd get = { .action = FTL_POWER_GET_STATE };
    CHECK_EQ_U64(power(e, 6000 * MS, &get, &s), FTL_OK);
    CHECK_EQ_U64(s.power_state, 3);
    CHECK_EQ_U64(s.done_ns, 6000 * MS);
    CHECK_EQ_U64(counters(ftl).ps_transitions, 8);

    ftl_engine_destroy(e);
    ftl_destroy(ftl);
}

/* APST off (the table kept, not applied): a day idle in PS0, nothing else. */
static void test_apst_disabled(void)
{
    struct ftl_config cfg = power_config();
    struct ftl *ftl = make_ftl(&cfg);
    struct ftl_engine *e = ftl_engine_create(ftl, NULL, NULL);
    struct ftl_power_cmd table = linux_like_table();

    table.apst_enabled = false;
    CHECK_EQ_U64(power(e, 0, &table, NULL), FTL_OK);
    ftl_engine_advance(e, 86400000 * MS);
    struct ftl_counters c = counters(ftl);
    CHECK_EQ_U64(c.ps_time_ns[0], 86400000 * MS);
    CHECK_EQ_U64(c.ps_transitions + c.ps_exits + c.ps_exit_wait_ns, 0);
    ftl_engine_destroy(e);
    ftl_destroy(ftl);
}

/*
 * The host moves to PS4 at 10 ms (after a write done at 0.2); a read at 12 ms arrives
 * during the 5 ms entry: it starts at 15 + 10 = 25 ms, done 25.04, back in PS0 (the most
 * recent operational state) from 12. A second read at 25 ms waits for nothing more.
 */
static void test_host_sets_nonop(void)
{
    struct ftl_config cfg = power_config();
    struct ftl *ftl = make_ftl(&cfg);
    struct ftl_engine *e = ftl_engine_create(ftl, NULL, NULL);
    struct ftl_power_cmd set = { .action = FTL_POWER_SET_STATE, .ps = 4 };
    struct ftl_served s;

    io(e, FTL_OP_WRITE, 0);
    CHECK_EQ_U64(power(e, 10 * MS, &set, &s), FTL_OK);
    CHECK_EQ_U64(s.power_state, 4);
    s = io(e, FTL_OP_READ, 12 * MS);
    CHECK_EQ_U64(s.done_ns, 25 * MS + 40 * US);
    CHECK_EQ_U64(s.power_state, 0);
    s = io(e, FTL_OP_READ, 30 * MS);
    CHECK_EQ_U64(s.done_ns, 30 * MS + 40 * US);
    ftl_engine_advance(e, 100 * MS);
    struct ftl_counters c = counters(ftl);
    CHECK_EQ_U64(c.ps_time_ns[0], 10 * MS + 88 * MS);
    CHECK_EQ_U64(c.ps_time_ns[4], 2 * MS);
    CHECK_EQ_U64(c.ps_transitions, 2);
    CHECK_EQ_U64(c.ps_exits, 1);
    CHECK_EQ_U64(c.ps_exit_wait_ns, 13 * MS);
    ftl_engine_destroy(e);
    ftl_destroy(ftl);
}

/*
 * The host moves to PS4 at 1 ms, then back to PS1 at 2 ms (an exit: ready at 1 + 5 + 10
 * = 16 ms); a read at 3 ms waits until 16 and, in PS1 (perf 50), senses for 80 us.
 */
static void test_host_exit_and_half_speed(void)
{
    struct ftl_config cfg = power_config();
    struct ftl *ftl = make_ftl(&cfg);
    struct ftl_engine *e = ftl_engine_create(ftl, NULL, NULL);
    struct ftl_power_cmd deep = { .action = FTL_POWER_SET_STATE, .ps = 4 };
    struct ftl_power_cmd slow = { .action = FTL_POWER_SET_STATE, .ps = 1 };

    io(e, FTL_OP_WRITE, 0);
    CHECK_EQ_U64(power(e, 1 * MS, &deep, NULL), FTL_OK);
    CHECK_EQ_U64(power(e, 2 * MS, &slow, NULL), FTL_OK);
    struct ftl_served s = io(e, FTL_OP_READ, 3 * MS);
    CHECK_EQ_U64(s.done_ns, 16 * MS + 80 * US);
    CHECK_EQ_U64(s.split.flash_ns, 80 * US);
    CHECK_EQ_U64(s.split.wait_ns, 13 * MS);
    CHECK_EQ_U64(s.power_state, 1);
    /* a write in PS1: its program takes 400 us */
    s = io(e, FTL_OP_WRITE, 20 * MS);
    CHECK_EQ_U64(s.done_ns, 20 * MS + 400 * US);
    struct ftl_counters c = counters(ftl);
    CHECK_EQ_U64(c.ps_exits, 1);
    CHECK_EQ_U64(c.ps_exit_wait_ns, 13 * MS);
    CHECK_EQ_U64(c.ps_transitions, 2);
    ftl_engine_destroy(e);
    ftl_destroy(ftl);
}

/*
 * An admin command (no FTL work: the link and controller model off) is served in PS3
 * without waking it (NVMe: only I/O commands bring a drive back), and is no activity for
 * APST; an I/O command the device answers itself (FTL_REQ_IO: a zone report) wakes it.
 * PS3 from 1 ms (entry over at 2): the admin command at 5 ms is done at 5 ms in PS3; the
 * zone report at 6 ms is done at 6 + 2 = 8 ms in PS0. Time counts from 1 ms.
 */
static void test_admin_command_sleeps_on(void)
{
    struct ftl_config cfg = power_config();
    struct ftl *ftl = make_ftl(&cfg);
    struct ftl_engine *e = ftl_engine_create(ftl, NULL, NULL);
    struct ftl_power_cmd set = { .action = FTL_POWER_SET_STATE, .ps = 3 };
    struct ftl_power_cmd get = { .action = FTL_POWER_GET_STATE };
    struct ftl_request admin = { .op = FTL_OP_ADMIN, .arrival_ns = 5 * MS, .data_out = 4096 };
    struct ftl_served s;

    CHECK_EQ_U64(power(e, 1 * MS, &set, NULL), FTL_OK);
    CHECK_EQ_U64(power(e, 4 * MS, &get, &s), FTL_OK);
    CHECK_EQ_U64(s.power_state, 3);
    CHECK_EQ_U64(ftl_engine_serve(e, &admin, &s), FTL_OK);
    CHECK_EQ_U64(s.done_ns, 5 * MS);
    CHECK_EQ_U64(s.split.wait_ns, 0);
    CHECK_EQ_U64(s.power_state, 3);
    CHECK_EQ_U64(counters(ftl).ps_exits, 0);
    struct ftl_request report = { .op = FTL_OP_ADMIN, .flags = FTL_REQ_IO,
                                  .arrival_ns = 6 * MS, .data_out = 4096 };
    CHECK_EQ_U64(ftl_engine_serve(e, &report, &s), FTL_OK);
    CHECK_EQ_U64(s.done_ns, 8 * MS);
    CHECK_EQ_U64(s.split.wait_ns, 2 * MS);
    CHECK_EQ_U64(s.power_state, 0);
    struct ftl_counters c = counters(ftl);
    CHECK_EQ_U64(c.ps_exits, 1);
    CHECK_EQ_U64(c.ps_exit_wait_ns, 2 * MS);
    CHECK_EQ_U64(c.ps_time_ns[3], 5 * MS);
    CHECK_EQ_U64(c.ps_time_ns[0], 0);     /* time counts from the first command, at 1 ms */
    CHECK_EQ_U64(c.nand_user_reads + c.nand_user_programs, 0);
    ftl_engine_destroy(e);
    ftl_destroy(ftl);
}

/* PS1 at perf 50 doubles a read's flash time; PS2 at 25 quadruples it. */
static void test_perf_stretches_flash(void)
{
    static const struct { uint32_t ps; uint64_t read_ns; } cases[] = {
        { 0, 40 * US }, { 1, 80 * US }, { 2, 160 * US },
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct ftl_config cfg = power_config();
        struct ftl *ftl = make_ftl(&cfg);
        struct ftl_engine *e = ftl_engine_create(ftl, NULL, NULL);
        struct ftl_power_cmd set = { .action = FTL_POWER_SET_STATE, .ps = cases[i].ps };

        io(e, FTL_OP_WRITE, 0);
        CHECK_EQ_U64(power(e, 1 * MS, &set, NULL), FTL_OK);
        struct ftl_served s = io(e, FTL_OP_READ, 2 * MS);
        CHECK_EQ_U64(s.done_ns - 2 * MS, cases[i].read_ns);
        CHECK_EQ_U64(s.power_state, cases[i].ps);
        ftl_engine_destroy(e);
        ftl_destroy(ftl);
    }
}

/* Refused: a state past ps_count; tables naming a missing state, an operational target,
 * an entry of a state that does not exist, an idle time past 24 bits. Nothing changes. */
static void test_refused(void)
{
    struct ftl_config cfg = power_config();
    struct ftl *ftl = make_ftl(&cfg);
    struct ftl_engine *e = ftl_engine_create(ftl, NULL, NULL);
    struct ftl_power_cmd set = { .action = FTL_POWER_SET_STATE, .ps = 5 };
    struct ftl_served s;

    CHECK_EQ_U64(power(e, 0, &set, &s), FTL_E_INVAL);
    CHECK_EQ_U64(power(e, 0, NULL, &s), FTL_E_INVAL);
    set.ps = UINT32_MAX;
    CHECK_EQ_U64(power(e, 0, &set, &s), FTL_E_INVAL);
    set.action = (enum ftl_power_action)7;
    CHECK_EQ_U64(power(e, 0, &set, &s), FTL_E_INVAL);
    for (int bad = 0; bad < 5; bad++) {
        struct ftl_power_cmd t = linux_like_table();
        switch (bad) {
        case 0: t.apst[0].itps = 5; break;                      /* no PS5 */
        case 1: t.apst[0].itps = 2; break;                      /* PS2 is operational */
        case 2: t.apst[7] = (struct ftl_apst_entry){ 10, 3 }; break;   /* no PS7 */
        case 3: t.apst[0].itpt_ms = 0x1000000; break;           /* past 24 bits */
        case 4: t.apst_enabled = false, t.apst[3].itps = 0; break;  /* kept: checked too */
        }
        CHECK_EQ_U64(power(e, 0, &t, &s), FTL_E_INVAL);
    }
    ftl_engine_advance(e, 1000 * MS);
    struct ftl_counters c = counters(ftl);
    CHECK_EQ_U64(c.ps_time_ns[0], 1000 * MS);
    CHECK_EQ_U64(c.ps_transitions, 0);
    ftl_engine_destroy(e);
    ftl_destroy(ftl);
}

/*
 * A table that cycles: PS0 -> PS3 after 1 ms, PS3 -> PS4 after 2 ms, PS4 -> PS3 after
 * 3 ms. Idle from 0 (the table at 0, nothing else) to 1 day + 0.5 ms: PS3 at 1 ms, then
 * cycles of 5 ms (PS4 at 3, PS3 at 6, ...). From 1 ms to 86400000.5 ms is 86399999.5 ms:
 * 17279999 whole cycles (86399995 ms) end at 86399996 ms in PS3; PS4 at 86399998; the
 * last 2.5 ms in PS4. PS3: 17279999 x 2 + 2 ms, PS4: 17279999 x 3 + 2.5 ms.
 */
static void test_apst_cycle_over_a_day(void)
{
    struct ftl_config cfg = power_config();
    struct ftl *ftl = make_ftl(&cfg);
    struct ftl_engine *e = ftl_engine_create(ftl, NULL, NULL);
    struct ftl_power_cmd t = { .action = FTL_POWER_SET_APST, .apst_enabled = true };

    t.apst[0] = (struct ftl_apst_entry){ 1, 3 };
    t.apst[3] = (struct ftl_apst_entry){ 2, 4 };
    t.apst[4] = (struct ftl_apst_entry){ 3, 3 };
    CHECK_EQ_U64(power(e, 0, &t, NULL), FTL_OK);
    ftl_engine_advance(e, 86400000 * MS + 500 * US);
    struct ftl_counters c = counters(ftl);
    CHECK_EQ_U64(c.ps_time_ns[0], 1 * MS);
    CHECK_EQ_U64(c.ps_time_ns[3], (17279999ull * 2 + 2) * MS);
    CHECK_EQ_U64(c.ps_time_ns[4], (17279999ull * 3) * MS + 2500 * US);
    CHECK_EQ_U64(c.ps_transitions, 1 + 17279999ull * 2 + 1);
    ftl_engine_destroy(e);
    ftl_destroy(ftl);
}

/* The default single PS0: nothing but its time; every request as without the model. */
static void test_default_changes_nothing(void)
{
    struct ftl_config cfg = small_config(1, 2, 256, 16, 1);
    struct ftl *ftl = make_ftl(&cfg);
    struct ftl_engine *e = ftl_engine_create(ftl, NULL, NULL);

    CHECK_EQ_U64(cfg.ps_count, 1);
    CHECK_EQ_U64(io(e, FTL_OP_WRITE, 0).done_ns, 200 * US);
    struct ftl_served s = io(e, FTL_OP_READ, 3600000 * MS);
    CHECK_EQ_U64(s.done_ns, 3600000 * MS + 40 * US);
    CHECK_EQ_U64(s.split.wait_ns, 0);
    CHECK_EQ_U64(s.power_state, 0);
    struct ftl_counters c = counters(ftl);
    CHECK_EQ_U64(c.ps_time_ns[0], 3600000 * MS);
    CHECK_EQ_U64(c.ps_transitions + c.ps_exits + c.ps_exit_wait_ns, 0);
    ftl_engine_destroy(e);
    ftl_destroy(ftl);
}

/* stats.csv's rows of a run with a write at 0, idle for a day, a write at 86400 s. */
static size_t rows_over_a_day_idle(struct ftl_config cfg, bool apst)
{
    char dir[512], path[600], err[256] = "", line[65536];
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof(dir), "%s/power-stats-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        CHECK(false);
        return 0;
    }
    struct ftl *ftl = make_ftl(&cfg);
    struct ftl_stats_writer *w = ftl_stats_open(dir, ftl, 0, err, sizeof(err));
    struct ftl_engine *e = ftl_engine_create(ftl, w, NULL);
    struct ftl_power_cmd table = linux_like_table();
    if (apst) {
        CHECK_EQ_U64(power(e, 0, &table, NULL), FTL_OK);
    }
    io(e, FTL_OP_WRITE, 0);
    io(e, FTL_OP_WRITE, 86400000 * MS);
    CHECK(ftl_stats_close(w, 86400000 * MS + 500 * MS, err, sizeof(err)) == 0);
    ftl_engine_destroy(e);
    ftl_destroy(ftl);
    size_t rows = 0;
    snprintf(path, sizeof(path), "%s/stats.csv", dir);
    FILE *f = fopen(path, "r");
    while (f && fgets(line, sizeof(line), f)) {
        rows++;
    }
    if (f) {
        fclose(f);
    }
    /* the writer's files, then the folder */
    static const char *const names[] = {
        "IOPSData.csv", "throughputData.csv", "GCData.csv", "WAFData.csv", "statistics.csv",
        "stats.csv", "phases.csv", "gc_victims.csv", "nand.csv", "ch_util.csv", "zones.csv",
        "read_retries.csv",
    };
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
        unlink(path);
    }
    rmdir(dir);
    return rows;
}

/*
 * A day idle still makes a handful of stats.csv rows: the header, the seconds up to the
 * first 10 s boundary after the first write (10), one row for the idle stretch from there
 * to the second write at 86400 s, and the half second after it: 13. The time in a power
 * state passing is no activity, with APST moving the drive down (at 100.2 ms and
 * 2100.2 ms, inside the first 10 s) or not.
 */
static void test_idle_day_collapses(void)
{
    CHECK_EQ_U64(rows_over_a_day_idle(small_config(1, 2, 256, 16, 1), false), 13);
    CHECK_EQ_U64(rows_over_a_day_idle(power_config(), true), 13);
}

int main(void)
{
    test_apst_timeline();
    test_apst_disabled();
    test_host_sets_nonop();
    test_host_exit_and_half_speed();
    test_perf_stretches_flash();
    test_admin_command_sleeps_on();
    test_refused();
    test_apst_cycle_over_a_day();
    test_default_changes_nothing();
    test_idle_day_collapses();
    return check_summary();
}
