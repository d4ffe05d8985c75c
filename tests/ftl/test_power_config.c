/*
 * Power-state tables across configuration sources (docs/energy.md, "Power states"): a
 * later file's ps_count shortens an earlier file's table (the states past it dropped,
 * not refused), while a file that drops states it set itself, or sets a state past a
 * ps_count already in force, is refused at the line of the state, in one line.
 */
#define _POSIX_C_SOURCE 200809L     /* mkdtemp */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "temp_dir_util.h"
#include "femu_ftl/ftl.h"

static char tmpdir[512];
static char err[1024];

/* A four-state table: two operational states and two non-operational ones. */
static const char TABLE[] =
    "ps_count=4\n"
    "ps1_max_mw=12000\nps1_idle_mw=3000\nps1_perf_pcent=50\n"
    "ps2_max_mw=50\nps2_idle_mw=50\nps2_enlat_us=1000\nps2_exlat_us=2000\nps2_nonop=1\n"
    "ps3_max_mw=5\nps3_idle_mw=5\nps3_enlat_us=5000\nps3_exlat_us=20000\nps3_nonop=1\n";

static const char *write_file(const char *name, const char *text)
{
    static char path[2][512];
    static int which;
    char *p = path[which ^= 1];
    snprintf(p, sizeof(path[0]), "%s/%s", tmpdir, name);
    FILE *f = fopen(p, "w");
    CHECK(f != NULL);
    fputs(text, f);
    fclose(f);
    return p;
}

/* A message built at run time (CHECK_CONTAINS takes a literal). */
static void expect_in(const char *got, const char *want, int line)
{
    if (!check_record(strstr(got, want) != NULL, __FILE__, line, "message contains want")) {
        fprintf(stderr, "    want: \"%s\"\n    got:  \"%s\"\n", want, got);
    }
}

/* Defaults, then each file in order, validated; the error ("" when accepted). */
static const char *combine(struct ftl_config *cfg, const char *const *paths, int n)
{
    static struct ftl_config_origins origins;
    memset(&origins, 0, sizeof(origins));
    ftl_config_defaults(cfg);
    err[0] = '\0';
    for (int i = 0; i < n; i++) {
        if (ftl_config_combine_file(cfg, &origins, paths[i], err, sizeof(err))) {
            return err;
        }
    }
    ftl_config_validate_combined(cfg, &origins, NULL, err, sizeof(err));
    return err;
}

/* A later file's ps_count=2 keeps PS0 and PS1 and drops PS2 and PS3 whole. */
static void test_later_file_shortens(void)
{
    struct ftl_config cfg;
    char table[600];
    snprintf(table, sizeof(table), "%s", write_file("table.conf", TABLE));
    const char *paths[] = { table, write_file("short.conf", "ps_count=2\n") };

    CHECK_EQ_U64(strlen(combine(&cfg, paths, 2)), 0);
    CHECK_EQ_U64(cfg.ps_count, 2);
    CHECK_EQ_U64(cfg.ps[1].max_mw, 12000);
    CHECK_EQ_U64(cfg.ps[1].perf_pcent, 50);
    for (int i = 2; i < FTL_PS_MAX; i++) {
        CHECK_EQ_U64(cfg.ps[i].max_mw + cfg.ps[i].idle_mw + cfg.ps[i].enlat_us +
                     cfg.ps[i].exlat_us + cfg.ps[i].nonop, 0);
    }
    /* dropped, not hidden: counting back up finds PS2 empty (an operational state at
     * perf 0), refused */
    const char *back[] = { table, paths[1], write_file("back.conf", "ps_count=3\n") };
    CHECK_CONTAINS(combine(&cfg, back, 3), "ps2_perf_pcent: 0 on an operational state");
}

/* A state set after a ps_count in force (a later file, or later in the same file) is
 * refused at its line; so is one a file sets and then drops itself. */
static void test_refused_at_the_state(void)
{
    struct ftl_config cfg;
    char first[600];
    snprintf(first, sizeof(first), "%s", write_file("two.conf", "ps_count=2\n"
                                                    "ps1_max_mw=9000\nps1_perf_pcent=80\n"));
    const char *later[] = { first, write_file("more.conf", "nchs=8\nps2_max_mw=10\n") };
    char want[700];
    snprintf(want, sizeof(want), "%s:2: ps2_max_mw: set, but ps_count is 2 (power states "
             "0-1)", later[1]);
    expect_in(combine(&cfg, later, 2), want, __LINE__);

    const char *self[] = { write_file("self.conf", "ps3_max_mw=5\nnchs=8\nps_count=3\n") };
    snprintf(want, sizeof(want), "%s:1: ps3_max_mw: set, but ps_count is 3 (power states "
             "0-2)", self[0]);
    expect_in(combine(&cfg, self, 1), want, __LINE__);
    CHECK(strchr(err, '\n') == NULL);

    /* an include after the states that shortens the table: the including file's line */
    write_file("short.conf", "ps_count=1\n");
    char text[700];
    snprintf(text, sizeof(text), "%sinclude short.conf\n", TABLE);
    const char *inc[] = { write_file("inc.conf", text) };
    snprintf(want, sizeof(want), "%s:2: ps1_max_mw: set, but ps_count is 1 (power states "
             "0-0)", inc[0]);
    expect_in(combine(&cfg, inc, 1), want, __LINE__);
    /* the include first, the table after it: the file's own ps_count wins, accepted */
    snprintf(text, sizeof(text), "include short.conf\n%s", TABLE);
    const char *inc_first[] = { write_file("inc.conf", text) };
    CHECK_EQ_U64(strlen(combine(&cfg, inc_first, 1)), 0);
    CHECK_EQ_U64(cfg.ps_count, 4);
    CHECK_EQ_U64(cfg.ps[3].exlat_us, 20000);
}

/* A ten-state table is 71 keys in one file: a key set twice after them all is still
 * caught (the loader once remembered only a file's first 64 keys). */
static void test_long_table_duplicate(void)
{
    struct ftl_config cfg;
    char text[4096] = "ps_count=10\n", want[700];
    for (int i = 0; i < 10; i++) {
        size_t used = strlen(text);
        snprintf(text + used, sizeof(text) - used, "ps%d_max_mw=%d\nps%d_idle_mw=1\n"
                 "ps%d_active_mw=1\nps%d_enlat_us=1\nps%d_exlat_us=1\nps%d_nonop=%d\n"
                 "ps%d_perf_pcent=100\n", i, 10000 - i, i, i, i, i, i, i > 0, i);
    }
    const char *ok[] = { write_file("ten.conf", text) };
    CHECK_EQ_U64(strlen(combine(&cfg, ok, 1)), 0);
    CHECK_EQ_U64(cfg.ps[9].max_mw, 9991);
    strcat(text, "ps9_max_mw=5\n");
    const char *twice[] = { write_file("ten.conf", text) };
    snprintf(want, sizeof(want), "%s:72: ps9_max_mw: set twice in this file", twice[0]);
    expect_in(combine(&cfg, twice, 1), want, __LINE__);
}

/* ftl_config_set: ps_count drops what was set before it, whatever set it. */
static void test_set_drops(void)
{
    struct ftl_config cfg;
    ftl_config_defaults(&cfg);
    CHECK(ftl_config_set(&cfg, "ps_count", "3", err, sizeof(err)) == 0);
    CHECK(ftl_config_set(&cfg, "ps2_max_mw", "100", err, sizeof(err)) == 0);
    CHECK(ftl_config_set(&cfg, "ps2_nonop", "1", err, sizeof(err)) == 0);
    CHECK(ftl_config_set(&cfg, "ps_count", "2", err, sizeof(err)) == 0);
    CHECK_EQ_U64(cfg.ps[2].max_mw + cfg.ps[2].nonop, 0);
    CHECK(ftl_config_key_unused(&cfg, "ps2_max_mw"));
    CHECK(!ftl_config_key_unused(&cfg, "ps1_max_mw"));
    CHECK_EQ_U64(cfg.ps[0].max_mw, 25000);     /* PS0 untouched */
}

int main(void)
{
    temp_dir_make(tmpdir, sizeof(tmpdir), "ftl-power-config");
    test_later_file_shortens();
    test_refused_at_the_state();
    test_set_drops();
    test_long_table_duplicate();
    temp_dir_remove(tmpdir);
    return check_summary();
}
