/*
 * ftl-sim: replays a synthetic fio-like workload or a trace through the femu FTL in
 * simulated time, writing the device's CSV statistics and a JSON summary. main runs the
 * steps below in order; the command line is parse_options.c's.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "femu_ftl/ftl.h"
#include "femu_ftl/state.h"
#include "femu_ftl/stats.h"
#include "femu_ftl/zns.h"
#include "kv_run.h"
#include "one_line.h"
#include "power_cut.h"
#include "run_options.h"
#include "sim.h"
#include "summary.h"
#include "summary_kv.h"
#include "unit_log.h"
#include "workload.h"

/* What one run holds from the device's creation to its report. */
struct session {
    struct ftl *ftl;
    struct workload *w;
    bool open_loop;         /* requests arrive at their recorded times */
    bool own_phases;        /* a recording's marks, end included */
    struct ftl_stats_writer *stats;
    struct io_trace_writer *trace;
    struct unit_log *units;     /* --unit-log, else NULL */
    struct kv_run kv;           /* --kv (kv.gen NULL: off) */
    struct sim_run run;
    struct sim_phase_result *measured;
    struct sim_power_cut cut;
    uint64_t now, end;      /* simulated ns: the clock, and where the run's outputs end */
    double precondition_s;
    char err[512];
};

/* The fill writes on --fdp's handle, its hot part (--fdp-hot) on that one: each class
 * starts in its own reclaim units, as the workload will write it. */
static int run_precondition(struct sim_run *run, const struct options *o,
                            const struct workload *main_w, uint64_t *now, char *err,
                            size_t errlen)
{
    struct ftl *ftl = ftl_engine_ftl(run->engine);
    const struct ftl_geometry *g = ftl_geometry_of(ftl);
    uint64_t bytes = o->precondition == PRECONDITION_REGION ? o->workload.region_bytes
                                                            : g->logical_pages * g->page_bytes;
    struct workload_spec seq = { .rw = RW_WRITE, .bs = g->page_bytes, .region_bytes = bytes,
                                 .seed = o->workload.seed };
    if (o->fdp_set || o->workload.hot_split) {
        seq.stream = o->workload.stream;
        seq.hot_split = o->workload.hot_split;
        seq.hot_stream = o->workload.hot_stream;
        seq.hot_sectors = workload_hot_sectors(main_w);
    }
    dist_parse("random", &seq.dist, err, errlen);
    struct workload *w = workload_create(&seq, o->cfg.secsz, g->logical_sectors, err, errlen);
    if (!w) {
        return -1;
    }
    struct sim_limits limits = { .io_bytes = seq.region_bytes, .check_every = o->check_every,
                                 .progress = isatty(STDERR_FILENO) };
    struct sim_phase_result *r = malloc(sizeof(*r));
    int rc = r ? sim_run_phase(run, w, o->qd, &limits, now, r, err, errlen) : -1;
    free(r);
    workload_destroy(w);
    return rc;
}

/* mkdir -p: the stats dir and any missing parents (e.g. results/RUN on a fresh checkout). */
static int make_dirs(const char *path)
{
    char buf[4096];
    if (snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf)) {
        errno = ENAMETOOLONG;
        return -1;
    }
    for (char *p = buf + 1; *p; p++) {
        if (*p == '/') {
            *p = '\0';
            if (mkdir(buf, 0777) && errno != EEXIST) {
                return -1;
            }
            *p = '/';
        }
    }
    return mkdir(buf, 0777) && errno != EEXIST ? -1 : 0;
}

static int write_summary(const char *path, const struct ftl *ftl,
                         const struct run_description *run, const struct sim_phase_result *m)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        one_line(stderr, "ftl-sim", "cannot create %s: %s", path, strerror(errno));
        return -1;
    }
    int rc = summary_write_json(f, ftl, run, m);
    if (fclose(f) || rc) {
        one_line(stderr, "ftl-sim", "writing %s failed", path);
        return -1;
    }
    return 0;
}

/*
 * The effective configuration (defaults, --config, --set) as a config file: what the
 * lab harness hands the device, so a run folder records exactly what it ran.
 */
static int print_config(const struct ftl_config *cfg)
{
    struct ftl_geometry g;
    char err[512];
    if (ftl_config_validate(cfg, &g, err, sizeof(err))) {
        usage_error("configuration: %s", err);
    }
    for (size_t i = 0; ftl_config_key(i); i++) {
        const char *key = ftl_config_key(i);
        char value[64];
        if (ftl_config_key_unused(cfg, key)) {
            continue;   /* a power state past ps_count: 0, as its default */
        }
        ftl_config_get(cfg, key, value, sizeof(value));
        printf("%s=%s  # %s\n", key, value, ftl_config_key_help(key));
    }
    printf("# logical capacity: %" PRIu64 " bytes (%" PRIu64 " pages of %" PRIu64 " bytes)\n",
           g.logical_pages * g.page_bytes, g.logical_pages, g.page_bytes);
    return fflush(stdout) ? 1 : 0;
}

/*
 * The version a recording needs: 8 with --power-state or --apst or replaying a version-8
 * trace (power management commands), 7 replaying a version-7 trace (commands without FTL
 * work), 6 with --kv or replaying a version-6 trace (KV commands), 5 replaying a
 * version-5 trace (FUA writes and write cache switches), 4 with FDP handles (their
 * updates), 3 when zone or copy requests may come (a zoned namespace,
 * or a replayed trace of version 1, 3 or 4, which may hold them), else 2, which readers
 * of conventional recordings expect.
 */
static int trace_out_version(const struct options *o, const struct workload *w)
{
    int replayed = workload_trace_version(w);
    return io_trace_version_power(power_options_given(o) || replayed >= 8, replayed >= 7,
                                  o->kv.on || replayed >= 6,
                                  o->cfg.zoned || replayed == 1 || replayed >= 3,
                                  o->cfg.placement == FTL_PLACEMENT_FDP, replayed >= 5);
}

/* Open-loop replay for a version-2 to -4 trace unless --replay closed; version 1 has no
 * times. */
static bool choose_open_loop(const struct options *o, const struct workload *w)
{
    bool timed = workload_timed(w);
    if (o->replay == REPLAY_OPEN && !timed) {
        usage_error("--replay open: %s has no arrival times (a version-1 trace)",
                    o->workload.trace_path);
    }
    bool open_loop = timed && o->replay != REPLAY_CLOSED;
    if (open_loop && o->qd_given) {
        usage_error("--qd applies to closed-loop replay (add --replay closed)");
    }
    return open_loop;
}

/* The statistics and the recording end together; 0, or -1 with the reason printed. */
static int finish_outputs(const struct options *o, struct ftl *ftl,
                          struct ftl_stats_writer *stats, struct io_trace_writer *trace,
                          uint64_t end_ns)
{
    char err[512];
    int rc = 0;
    if (stats) {
        char path[4096];
        snprintf(path, sizeof(path), "%s/lpn_access_count.csv", o->stats_dir);
        if (ftl_stats_close(stats, end_ns, err, sizeof(err)) ||
            ftl_stats_write_lpn_counts(ftl, path, err, sizeof(err))) {
            one_line(stderr, "ftl-sim", "statistics: %s", err);
            rc = -1;
        }
    }
    if (io_trace_writer_close(trace, end_ns, err, sizeof(err))) {
        one_line(stderr, "ftl-sim", "trace: %s", err);
        rc = -1;
    }
    return rc;
}

/* --power-cut-at: the cut at the measured part's end, then --lost-out. */
static int cut_power(const struct options *o, struct ftl *ftl, uint64_t at_ns,
                     struct sim_power_cut *cut, char *err, size_t errlen)
{
    if (sim_power_cut(ftl, at_ns, o->cfg.plp != 0, cut, err, errlen)) {
        return -1;
    }
    if (!o->lost_out) {
        return 0;
    }
    FILE *f = fopen(o->lost_out, "w");
    if (!f) {
        snprintf(err, errlen, "--lost-out %s: cannot create: %s", o->lost_out,
                 strerror(errno));
        return -1;
    }
    int rc = sim_power_cut_write_csv(cut, f);
    if (fclose(f) || rc) {
        snprintf(err, errlen, "--lost-out %s: write failed", o->lost_out);
        return -1;
    }
    return 0;
}

/* The device (empty, or --state-in's) and the workload over it; 0, or the exit status
 * with the reason printed. */
static int create_device(struct options *o, struct session *s)
{
    s->ftl = ftl_create(&o->cfg, s->err, sizeof(s->err));
    if (!s->ftl) {
        one_line(stderr, "ftl-sim", "%s", s->err);
        return 1;
    }
    /* The restored device's clock starts at 0 like any run's: its lines' ages carry over. */
    if (o->state_in && ftl_state_load_file(s->ftl, o->state_in, 0, s->err, sizeof(s->err))) {
        one_line(stderr, "ftl-sim", "error: %s", s->err);
        ftl_destroy(s->ftl);
        return EXIT_USAGE;
    }
    const struct ftl_geometry *g = ftl_geometry_of(s->ftl);
    uint64_t capacity = g->logical_pages * g->page_bytes;
    bool zoned_mode = rw_mode_zoned(o->workload.rw) && !o->workload.trace_path;
    if (!o->workload.region_bytes && !zoned_mode && !o->kv.on) {
        o->workload.region_bytes = capacity;
    }
    if (o->kv.on && kv_run_open(&s->kv, o, s->ftl, s->err, sizeof(s->err))) {
        one_line(stderr, "ftl-sim", "%s", s->err);
        return EXIT_USAGE;
    }
    o->workload.kv = s->kv.gen;
    o->workload.kv_next = kv_gen_next;
    o->workload.layout = (struct zone_layout){ .zones = ftl_zone_count(s->ftl),
                                               .zone_sectors = ftl_zone_size_sectors(s->ftl),
                                               .cap_sectors = ftl_zone_cap_sectors(s->ftl) };
    struct ftl_zrwa_geometry zg;
    o->workload.layout.zrwa_sectors = ftl_zrwa_geometry(s->ftl, &zg) ? zg.size_sectors : 0;
    s->w = workload_create(&o->workload, o->cfg.secsz, g->logical_sectors, s->err,
                           sizeof(s->err));
    if (!s->w) {
        one_line(stderr, "ftl-sim", "%s", s->err);
        ftl_destroy(s->ftl);
        return EXIT_USAGE;
    }
    return 0;
}

/* How much the measured part does and how requests arrive (a refusal exits 2). */
static void settle_measured_part(struct options *o, struct session *s)
{
    bool zoned_mode = rw_mode_zoned(o->workload.rw) && !o->workload.trace_path;
    if (!o->io_bytes && !(o->runtime_s > 0) && !o->workload.trace_path && !o->kv.on) {
        /* fio's default: one pass over the region; zoned: over one zone, or every zone */
        o->io_bytes = !zoned_mode ? o->workload.region_bytes
                      : o->workload.rw == RW_ZONE_APPEND ? workload_zone_bytes(s->w)
                      : workload_zone_bytes(s->w) * o->workload.layout.zones;
    }
    check_idle_budget(o);
    s->open_loop = choose_open_loop(o, s->w);
    s->own_phases = workload_brings_phases(s->w);
}

/* --stats-dir (with its folders) and --trace-out; 0, or -1 with the reason printed. */
static int open_outputs(const struct options *o, struct session *s)
{
    if (o->stats_dir && make_dirs(o->stats_dir)) {
        one_line(stderr, "ftl-sim", "cannot create %s: %s", o->stats_dir, strerror(errno));
        return -1;
    }
    if (o->stats_dir &&
        !(s->stats = ftl_stats_open(o->stats_dir, s->ftl, 0, s->err, sizeof(s->err)))) {
        one_line(stderr, "ftl-sim", "%s", s->err);
        return -1;
    }
    if (o->trace_out &&
        !(s->trace = io_trace_writer_open_version(o->trace_out, "ftl-sim", 0, o->cfg.secsz,
                                                  trace_out_version(o, s->w), s->err,
                                                  sizeof(s->err)))) {
        one_line(stderr, "ftl-sim", "--trace-out: %s", s->err);
        ftl_stats_close(s->stats, 0, s->err, sizeof(s->err));
        return -1;
    }
    if (o->unit_log && !(s->units = unit_log_open(s->ftl, o->stats_dir, s->err,
                                                  sizeof(s->err)))) {
        one_line(stderr, "ftl-sim", "%s", s->err);
        ftl_stats_close(s->stats, 0, s->err, sizeof(s->err));
        io_trace_writer_close(s->trace, 0, s->err, sizeof(s->err));
        return -1;
    }
    return 0;
}

/* The measured part, marked "workload" unless a recording brings its own phases. */
static int run_measured_part(const struct options *o, struct session *s)
{
    struct sim_limits limits = { .io_bytes = o->io_bytes,
                                 .runtime_ns = (uint64_t)(o->runtime_s * NS_PER_S),
                                 .check_every = o->check_every,
                                 .progress = isatty(STDERR_FILENO),
                                 .open_loop = s->open_loop,
                                 .idle_every_bytes = o->idle_every_bytes,
                                 .idle_ns = (uint64_t)(o->idle_s * NS_PER_S),
                                 .cut = o->power_cut,
                                 .cut_ns = (uint64_t)(o->power_cut_s * NS_PER_S + 0.5) };
    unit_log_mark(s->units);
    /* A recorded run brings its own phases; any other workload, a foreign trace
     * included, is one phase from here to its end. */
    int rc = s->own_phases ? 0 : sim_run_mark(&s->run, s->now, "workload", s->err,
                                              sizeof(s->err));
    return rc ? rc : sim_run_phase(&s->run, s->w, o->qd, &limits, &s->now, s->measured,
                                   s->err, sizeof(s->err));
}

/* Preconditioning, the measured part, the power cut and the end mark; 0, SIM_E_WORKLOAD
 * or -1 with the reason in s->err. */
static int run_phases(const struct options *o, struct session *s)
{
    int rc = sim_run_init(&s->run, s->ftl, s->stats, s->trace, s->err, sizeof(s->err));
    s->run.kv = s->kv.account;
    if (rc == 0) {
        rc = power_options_start(&s->run, o, s->now, s->err, sizeof(s->err));
    }
    if (rc == 0 && o->kv.on) {
        rc = kv_run_load(&s->kv, &s->run, s->w, o->qd, &s->now, s->err, sizeof(s->err));
    }
    if (rc == 0 && o->precondition != PRECONDITION_NONE) {
        rc = sim_run_mark(&s->run, s->now, "precondition", s->err, sizeof(s->err));
        rc = rc ? rc : run_precondition(&s->run, o, s->w, &s->now, s->err, sizeof(s->err));
    }
    s->precondition_s = (double)s->now / NS_PER_S;
    s->measured = calloc(1, sizeof(*s->measured));
    if (rc == 0 && !s->measured) {
        snprintf(s->err, sizeof(s->err), "out of memory");
        rc = -1;
    }
    if (rc == 0) {
        rc = run_measured_part(o, s);
    }
    s->end = s->measured && s->measured->recorded_end ? s->measured->recorded_end_ns
                                                      : s->now;
    if (rc == 0 && o->power_cut) {
        s->cut.cut_requests = s->measured->cut_requests;
        rc = cut_power(o, s->ftl, s->end, &s->cut, s->err, sizeof(s->err));
    }
    if (rc == 0 && !s->own_phases) {
        rc = sim_run_mark(&s->run, s->end, "end", s->err, sizeof(s->err));
    }
    return rc;
}

/* The run's reason printed, the outputs closed, the engine gone, --state-out saved. */
static int close_run(const struct options *o, struct session *s, int rc)
{
    if (rc != 0 && s->err[0]) {
        one_line(stderr, "ftl-sim", "%s", s->err);
    }
    if (unit_log_close(s->units, s->err, sizeof(s->err))) {
        one_line(stderr, "ftl-sim", "%s", s->err);
        rc = rc ? rc : -1;
    }
    /* the statistics close while the engine lives: their last rows read the time in
     * each power state up to the end */
    if (finish_outputs(o, s->ftl, s->stats, s->trace, s->end) != 0) {
        rc = rc ? rc : -1;
    }
    if (s->run.engine) {
        sim_run_destroy(&s->run);
    }
    if (rc == 0 && o->kv.on && kv_run_finish(&s->kv, s->ftl, s->err, sizeof(s->err))) {
        one_line(stderr, "ftl-sim", "%s", s->err);
        rc = -1;
    }
    if (rc == 0 && o->state_out &&
        ftl_state_save_file(s->ftl, o->state_out, "ftl-sim", s->end, s->err,
                            sizeof(s->err))) {
        one_line(stderr, "ftl-sim", "error: --state-out: %s", s->err);
        rc = -1;
    }
    return rc;
}

/* The summary's description of what ran (the options, the cut, the trace read). */
static void describe_run(const struct options *o, const struct session *s,
                         struct run_description *d)
{
    *d = (struct run_description){
        .workload = &o->workload, .qd = o->qd,
        .idle_every_bytes = o->idle_every_bytes, .idle_s = o->idle_s,
        .precondition = o->precondition == PRECONDITION_SEQ ? "seq"
                        : o->precondition == PRECONDITION_REGION ? "region" : "none",
        .io_bytes = o->io_bytes,
        .runtime_s = o->runtime_s, .config_paths = o->config_paths,
        .nconfigs = o->nconfigs,
        .precondition_s = s->precondition_s,
        .state_in = o->state_in, .state_out = o->state_out,
        .power_cut = o->power_cut ? &s->cut : NULL, .lost_out = o->lost_out,
    };
}

/* The text summary on stdout, then --summary's JSON; 0, or -1 when writing failed. */
static int report(const struct options *o, struct session *s)
{
    if (o->state_in) {
        printf("restored from %s\n", o->state_in);
    }
    summary_print_text(stdout, s->ftl, s->measured);
    summary_print_kv(stdout, s->ftl, o->kv.on ? &s->kv : NULL, s->measured);
    if (s->units) {
        unit_log_text(s->units, s->ftl, stdout);
    }
    if (o->power_cut) {
        sim_power_cut_text(&s->cut, stdout);
    }
    if (s->measured->power_refused) {   /* a replay naming states this drive lacks */
        printf("power commands refused: %llu of %llu (states past ps_count)\n",
               (unsigned long long)s->measured->power_refused,
               (unsigned long long)s->measured->power_cmds);
    }
    struct run_description run_desc;
    describe_run(o, s, &run_desc);
    struct trace_input_summary trace_input;
    workload_trace_input(s->w, &trace_input);
    run_desc.trace_input = trace_input.format ? &trace_input : NULL;
    run_desc.units = s->units;
    run_desc.kv = o->kv.on ? &s->kv : NULL;
    if (trace_input.format) {
        tin_filters_text(&o->trace_in.in, run_desc.trace_filters,
                         sizeof(run_desc.trace_filters));
    }
    if (o->summary_path && write_summary(o->summary_path, s->ftl, &run_desc, s->measured)) {
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    struct options o;
    parse_options(argc, argv, &o);
    if (o.print_config) {
        return print_config(&o.cfg);
    }
    struct session s = { 0 };
    int rc = create_device(&o, &s);
    if (rc != 0) {
        return rc;
    }
    settle_measured_part(&o, &s);
    rc = open_outputs(&o, &s);
    if (rc == 0) {
        rc = close_run(&o, &s, run_phases(&o, &s));
    }
    if (rc == 0) {
        rc = report(&o, &s);
    }
    sim_power_cut_free(&s.cut);
    free(s.measured);
    unit_log_free(s.units);
    kv_run_free(&s.kv);
    workload_destroy(s.w);
    ftl_destroy(s.ftl);
    return rc == SIM_E_WORKLOAD ? EXIT_USAGE : rc ? 1 : 0;
}
