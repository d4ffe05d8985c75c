/* The statistics writer: its files opened, its interval clocks run forward (a row per
 * interval ended, idle stretches collapsed), phases marked, files flushed and closed. The
 * rows' columns are stats_rows.c's; their meanings are documented in STATS.md. */
#include "femu_ftl/stats.h"

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "femu_ftl/error.h"
#include "obs/stats_energy.h"
#include "flash/ftl_handle.h"   /* the engine's counters at a time */
#include "obs/stats_files.h"
#include "obs/stats_rows.h"

static const char *const file_names[NFILES] = {
    "IOPSData.csv", "throughputData.csv", "GCData.csv", "WAFData.csv", "statistics.csv",
    "stats.csv", "phases.csv", "gc_victims.csv", "nand.csv", "ch_util.csv", "zones.csv",
    "read_retries.csv",
};

/* ftl_lun_busy_ns, remembering how far it was asked (it must never be asked about the past) */
static uint64_t busy_at(struct ftl_stats_writer *w, uint64_t t_ns)
{
    if (t_ns > w->busy_asked_ns) {
        w->busy_asked_ns = t_ns;
    }
    return ftl_lun_busy_ns(w->ftl, t_ns);
}

/* The counters at t_ns: what grows with time alone (the engine's power states:
 * ps_time_ns) brought up to it while an engine runs the FTL, so every row is exact, not
 * only those that end at a request. */
static void counters_at(const struct ftl_stats_writer *w, uint64_t t_ns, struct ftl_counters *c)
{
    ftl_get_counters(w->ftl, c);
    if (w->ftl->counters_at) {
        w->ftl->counters_at(w->ftl->counters_opaque, t_ns, c);
    }
}

/* Whether nothing happened between a and b: time in a power state passes idle too. */
static bool nothing_done(const struct ftl_counters *a, const struct ftl_counters *b)
{
    size_t time_at = offsetof(struct ftl_counters, ps_time_ns);
    size_t time_end = time_at + sizeof(a->ps_time_ns);

    return memcmp(a, b, time_at) == 0 &&
           memcmp((const char *)a + time_end, (const char *)b + time_end,
                  sizeof(*a) - time_end) == 0;
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
        if (!stats_file_wanted(w, i)) {
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
    stats_write_headers(w);
    return w;
}

/* Write clock c's row for the interval ending at end_ns and start the next one there. */
static void end_interval(struct ftl_stats_writer *w, int c, uint64_t end_ns, uint64_t busy,
                         const struct ftl_counters *now)
{
    struct interval_clock *clk = &w->clocks[c];
    struct interval iv = {
        .end_s = seconds(end_ns - w->origin_ns), .len_s = seconds(end_ns - clk->started_ns),
        .len_ns = end_ns - clk->started_ns,
        .a = &clk->at_start, .b = now, .busy_ns = busy - clk->busy_at_start,
    };
    stats_write_row(w, c, &iv);
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

static void collapse_idle(struct ftl_stats_writer *w, uint64_t now_ns)
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
    struct ftl_counters at_end;
    counters_at(w, end, &at_end);
    if (busy != ten->busy_at_start || !nothing_done(&at_end, &ten->at_start)) {
        return;
    }
    for (int c = 0; c < NCLOCKS; c++) {
        end_interval(w, c, end, busy, &at_end);
    }
}

/*
 * Rows for every interval ended by now_ns, in time order so that ftl_lun_busy_ns only
 * moves forward; with partial, also the intervals in progress, ending them at now_ns.
 */
static void emit_rows(struct ftl_stats_writer *w, uint64_t now_ns, bool partial)
{
    struct ftl_counters now;
    struct interval_clock *tenth = &w->clocks[CLOCK_TENTH];
    while (now_ns >= tenth->started_ns + tenth->length_ns) {
        collapse_idle(w, now_ns);
        if (now_ns < tenth->started_ns + tenth->length_ns) {
            break;
        }
        uint64_t end = tenth->started_ns + tenth->length_ns;
        uint64_t busy = busy_at(w, end);
        counters_at(w, end, &now);
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
    counters_at(w, now_ns, &now);
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
    counters_at(w, now_ns, &now);
    stats_write_phase_counts(w, now_ns, phase, &now);
    fputc(',', f);
    if (now_ns >= w->busy_asked_ns) {
        fprintf(f, "%.6f", seconds(busy_at(w, now_ns) - w->busy_at_origin));
    }
    /* energy and power states since the origin, as the counters before them */
    stats_energy_values(f, ftl_config_of(w->ftl), false, &w->at_origin, &now,
                        now_ns - w->origin_ns);
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
        complete &= w->files[i] != NULL || !stats_file_wanted(w, i);
    }
    if (complete) {
        emit_rows(w, now_ns, true);
        if (w->any_phase && !w->last_phase_is_end) {
            write_phase_row(w, now_ns, "end");  /* the last phase ends with the run */
        }
        stats_write_end_files(w);
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
