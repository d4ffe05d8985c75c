/* Statistics files: one row per interval, idle or not, with the right differences. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ftl_test_util.h"
#include "stats_writer.h"

#define S 1000000000ull

static char dir[] = "/tmp/ftl-stats-test-XXXXXX";
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
    static char line[1024];
    for (int i = 0; i < n && buf; i++) {
        buf = strchr(buf, '\n');
        buf = buf ? buf + 1 : NULL;
    }
    if (!buf) {
        return "";
    }
    size_t len = strcspn(buf, "\n");
    memcpy(line, buf, len);
    line[len] = '\0';
    return line;
}

int main(void)
{
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
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
    CHECK(!strcmp(line_n(buf, 1), "0.000,workload"));
    CHECK(!strcmp(line_n(buf, 2), "12.000,end"));
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

    const char *names[] = { "IOPSData.csv", "throughputData.csv", "GCData.csv", "WAFData.csv",
                            "statistics.csv", "stats.csv", "phases.csv",
                            "lpn_access_count.csv" };
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
        unlink(path);
    }
    rmdir(dir);
    ftl_destroy(ftl);
    return check_summary();
}
