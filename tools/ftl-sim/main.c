/*
 * ftl-sim: replays a synthetic fio-like workload or a trace through the femu FTL in
 * simulated time, writing the device's CSV statistics and a JSON summary.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "femu_ftl/ftl.h"
#include "femu_ftl/state.h"
#include "one_line.h"
#include "power_cut.h"
#include "replace_target.h"
#include "sim.h"
#include "size.h"
#include "femu_ftl/stats.h"
#include "summary.h"
#include "workload.h"
#include "femu_ftl/zns.h"
#include "options.h"

#define EXIT_USAGE 2
#define NS_PER_S 1000000000.0

#define MAX_CONFIGS 16

struct options {
    const char *config_paths[MAX_CONFIGS];     /* --config, in order: later keys win */
    unsigned nconfigs;
    struct ftl_config cfg;
    struct ftl_config_origins origins;         /* which file and line set each key */
    struct workload_spec workload;
    unsigned qd;
    enum { PRECONDITION_NONE, PRECONDITION_SEQ, PRECONDITION_REGION } precondition;
    uint64_t io_bytes;
    double runtime_s;
    uint64_t idle_every_bytes;  /* --idle SIZE:TIME */
    double idle_s;
    const char *stats_dir;
    const char *summary_path;
    const char *trace_out;
    const char *state_in;   /* --state-in: restored before the workload */
    const char *state_out;  /* --state-out: saved at the end */
    bool power_cut;         /* --power-cut-at was given: ... */
    double power_cut_s;     /* ... the cut, seconds into the measured part */
    const char *lost_out;   /* --lost-out: the lost ranges as CSV */
    uint64_t check_every;
    bool stream_set;        /* --stream was given */
    bool fdp_set;           /* --fdp was given */
    bool zone_set;          /* --zone was given */
    int print_config;
    enum { REPLAY_AUTO, REPLAY_OPEN, REPLAY_CLOSED } replay;
    int qd_given;
    struct tin_settings trace_in;   /* --trace-format and the other --trace-* options */
};

static const char usage_text[] =
    "usage: ftl-sim [--config FILE]... [--set key=value]... [--rw MODE] [--rwmixread PCT]\n"
    "               [--dist random|zipf:THETA|pareto:H|normal:DEV|hotcold:H:W] [--bs SIZE]\n"
    "               [--qd N]\n"
    "               [--size SIZE] [--precondition none|seq|region] [--io-size SIZE | --runtime TIME]\n"
    "               [--idle SIZE:TIME] [--trace FILE [--replay open|closed]] [--seed N] [--stream N]\n"
    "               [--fdp N [--fdp-hot N]] [--zone N]\n"
    "               [--stats-dir DIR]\n"
    "               [--summary FILE.json] [--trace-out FILE] [--check-every N] [--print-config]\n"
    "               [--state-in FILE] [--state-out FILE] [--power-cut-at TIME [--lost-out FILE]]\n"
    "\n"
    "Replays a workload through the femu FTL in simulated time.\n"
    "  --config FILE     SSD configuration (key=value file, e.g. conf/lab-1g.conf);\n"
    "                    FEMU's defaults when absent. Repeatable: files combine in order,\n"
    "                    a later key winning (e.g. a geometry, then conf/nand/mlc.conf)\n"
    "  --set key=value   override one configuration key (repeatable)\n"
    "  --rw MODE         randwrite (default), randread, randrw, write, read; with a zoned\n"
    "                    namespace (zoned=1) zone-append (appends of --bs into zone --zone,\n"
    "                    reset when full) or zone-write (writes of --bs at the write pointer,\n"
    "                    zone after zone from --zone, each reset before it is written again)\n"
    "  --rwmixread PCT   percent reads for randrw (default 50)\n"
    "  --dist SPEC       offset distribution, fio's --random_distribution spelling, or\n"
    "                    hotcold:H:W (not fio's): the first H%% of the region gets W%% of\n"
    "                    the I/Os, uniform within each part\n"
    "  --bs SIZE         block size, fio spelling (default 4k)\n"
    "  --qd N            requests kept outstanding (default 1)\n"
    "  --size SIZE       region of the device the I/O covers (default: all of it)\n"
    "  --precondition    seq: write the whole logical space once first (not measured);\n"
    "                    region: only the --size region (as fio lays out a file)\n"
    "  --io-size SIZE    bytes to transfer in the measured part (default: --size)\n"
    "  --runtime TIME    simulated duration of the measured part (e.g. 300, 5m)\n"
    "  --idle SIZE:TIME  after every SIZE issued in the measured part, wait for the requests\n"
    "                    in flight, then leave the device idle for TIME (e.g. 1g:30s: the\n"
    "                    write cliff's recovery); closed loop only\n"
    "  --trace FILE      replay a block I/O trace (format: hw/femu/ftl/include/femu_ftl/\n"
    "                    trace.h): version 1 (S seed / W lba nsect [H|C] / R lba nsect, and\n"
    "                    untimed zone and copy records), or version 2, 3 (zone and copy\n"
    "                    records) or 4 (FDP handle updates), which the device records with\n"
    "                    trace_out=FILE; zone rules refusing a record count in zone_errors\n"
    "                    and the replay goes on\n"
    "  --trace-format F  the trace's format: auto (the default: detected from its first\n"
    "                    lines, named on stderr), femu, msr, spc, blkparse, fio-iolog\n"
    "                    (or fio), mqsim, disksim; gzip and xz files are read as they are\n"
    "  --trace-host NAME --trace-disk N   msr: one host's, one disk's requests (disk: also\n"
    "                    MQSim's and DiskSim's device)\n"
    "  --trace-asu stream|offset   spc: the ASU is the write's stream (modulo nstreams) or\n"
    "                    a region of its own (ASU n at n TiB)\n"
    "  --trace-events queue|complete   blkparse: replay Q (default) or C events\n"
    "  --trace-sector-size N   blkparse, mqsim, disksim, spc sectors (default 512)\n"
    "  --trace-skip-bad  count and skip bad lines (default: FILE:LINE, exit 2)\n"
    "  --trace-lba-map refuse|modulo|scale   a request beyond the device is an error\n"
    "                    (default) or moved to its offset modulo the capacity; scale moves\n"
    "                    every address by capacity / the trace's extent (a first pass finds\n"
    "                    it, or --trace-extent BYTES), nothing when the trace fits\n"
    "  --trace-time scale=F|closed-loop   arrival times times F, or ignored (--qd)\n"
    "  --replay MODE     open: each request arrives at its recorded time (the default for a\n"
    "                    version-2 to -4 trace; --qd does not apply); closed: --qd requests\n"
    "                    outstanding, recorded times ignored (the only mode for version 1)\n"
    "  --seed N          random seed (default 1)\n"
    "  --stream N        placement=stream: the stream of the synthetic writes (default 0)\n"
    "  --fdp N           placement=fdp: the reclaim unit handle of the synthetic writes and\n"
    "                    of --precondition's (default 0)\n"
    "  --fdp-hot N       placement=fdp with --dist hotcold: the hot part's writes (and its\n"
    "                    preconditioning) go to handle N, the cold part's to --fdp's\n"
    "  --zone N          zone-append: the zone; zone-write: the first zone (default 0)\n"
    "  --stats-dir DIR   write the CSV statistics here (created if missing)\n"
    "  --summary FILE    write a JSON summary of the measured part\n"
    "  --trace-out FILE  record the requests this run serves as a version-2 trace (version 3\n"
    "                    with a zoned namespace, or replaying a version-1 or -3 trace;\n"
    "                    version 4 with placement=fdp)\n"
    "  --check-every N   run the FTL's invariant checker every N requests (slow; debugging)\n"
    "  --state-in FILE   start from a state file (an aged device: a run's --state-out or the\n"
    "                    device's state_out=) restored at simulated time 0, instead of an\n"
    "                    empty device; its configuration must be this run's (timings and\n"
    "                    read_uncor_ppm may differ); excludes --precondition\n"
    "  --state-out FILE  save the FTL's state at the end of the run (written atomically;\n"
    "                    the file holds no data: data=absent)\n"
    "  --power-cut-at TIME  cut the power TIME into the measured part (e.g. 10s, 1500ms):\n"
    "                    nothing arriving then or later is issued, requests in flight never\n"
    "                    complete, and the FTL loses what the power-loss model says\n"
    "                    (docs/ftl.md, \"Power loss\"; plp=on loses nothing acknowledged)\n"
    "  --lost-out FILE   with --power-cut-at: the lost ranges as CSV (kind,slba,nlb; kind\n"
    "                    buffered or torn, in the device's sectors, sorted and merged)\n"
    "  --print-config    check the configuration, print it as a config file and exit\n";

static void usage_error(const char *fmt, ...)
{
    char text[1536];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    one_line(stderr, "ftl-sim", "%s (see ftl-sim --help)", text);
    exit(EXIT_USAGE);
}

static uint64_t parse_count(const char *opt, const char *text, uint64_t min, uint64_t max)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (*text < '0' || *text > '9' || *end || errno || v < min || v > max) {
        usage_error("%s: '%s' is not a whole number in [%llu, %llu]", opt, text,
                    (unsigned long long)min, (unsigned long long)max);
    }
    return v;
}

static uint64_t parse_size_opt(const char *opt, const char *text)
{
    uint64_t bytes;
    char err[256];
    if (parse_size(text, &bytes, err, sizeof(err))) {
        usage_error("%s: %s", opt, err);
    }
    if (bytes == 0) {
        usage_error("%s: must be greater than zero", opt);
    }
    return bytes;
}

/* Whether the folder a file would be written into exists (checked before a long run). */
static bool folder_of_exists(const char *file)
{
    const char *slash = strrchr(file, '/');
    if (!slash) {
        return true;
    }
    char folder[4096];
    size_t len = slash == file ? 1 : (size_t)(slash - file);
    if (len >= sizeof(folder)) {
        return false;
    }
    memcpy(folder, file, len);
    folder[len] = '\0';
    struct stat st;
    return stat(folder, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The latest simulated time a run may reach, in seconds: 2^53 ns (104 days), the limit of
 * a recording's times (femu_ftl/trace.h), so every option that makes time has it. */
#define MAX_TIME_S ((double)IO_TRACE_MAX_TIME_NS / NS_PER_S)

/* A duration option in [0, 2^53 ns] (above 0 unless zero_ok): its seconds, or exit 2. */
static double parse_time_opt(const char *name, const char *text, bool zero_ok)
{
    char err[256];
    double s;
    if (parse_duration_s(text, &s, err, sizeof(err))) {
        usage_error("%s: %s", name, err);
    }
    if (!(zero_ok ? s >= 0 : s > 0) || s > MAX_TIME_S) {
        usage_error("%s: '%s' is not %s 0 and 2^53 ns (%.0f s, 104 days), the latest a "
                    "run may reach", name, text, zero_ok ? "between" : "above", MAX_TIME_S);
    }
    return s;
}

/* --idle SIZE:TIME: both parts given, SIZE > 0, TIME in (0, 2^53 ns]. */
static void parse_idle(struct options *o, const char *text)
{
    char size[64];
    const char *colon = strchr(text, ':');
    if (!colon || (size_t)(colon - text) >= sizeof(size)) {
        usage_error("--idle: expected SIZE:TIME (e.g. 1g:30s), got '%s'", text);
    }
    memcpy(size, text, (size_t)(colon - text));
    size[colon - text] = '\0';
    o->idle_every_bytes = parse_size_opt("--idle", size);   /* refuses 0 */
    o->idle_s = parse_time_opt("--idle", colon + 1, false);
}

/*
 * The pauses of --idle add up: with --io-size their sum is known before the run, with
 * --runtime a pause may start just before the end. Either way the run must stay within
 * 2^53 ns: 4096 pauses of 10^7 s would wrap a 64-bit nanosecond clock.
 */
static void check_idle_budget(const struct options *o)
{
    if (!o->idle_every_bytes) {
        return;
    }
    double pauses = o->runtime_s > 0 ? 1.0 : (double)(o->io_bytes / o->idle_every_bytes);
    double total = pauses * o->idle_s + (o->runtime_s > 0 ? o->runtime_s : 0.0);
    if (total > MAX_TIME_S) {
        usage_error("--idle: %.0f pauses of %g s%s make %.6g s, beyond the 2^53 ns (%.0f s, "
                    "104 days) a run may reach", pauses, o->idle_s,
                    o->runtime_s > 0 ? " after --runtime" : " over --io-size", total,
                    MAX_TIME_S);
    }
}

enum { OPT_CONFIG = 256, OPT_SET, OPT_RW, OPT_RWMIX, OPT_DIST, OPT_BS, OPT_QD, OPT_SIZE,
       OPT_PRECOND, OPT_IOSIZE, OPT_RUNTIME, OPT_TRACE, OPT_SEED, OPT_STATS, OPT_SUMMARY,
       OPT_CHECK, OPT_PRINT_CONFIG, OPT_REPLAY, OPT_TRACE_OUT, OPT_STREAM, OPT_ZONE,
       OPT_STATE_IN, OPT_STATE_OUT, OPT_FDP, OPT_FDP_HOT, OPT_IDLE, OPT_POWER_CUT,
       OPT_LOST_OUT, OPT_HELP };

static const struct option long_options[] = {
    { "config", required_argument, NULL, OPT_CONFIG },
    { "set", required_argument, NULL, OPT_SET },
    { "rw", required_argument, NULL, OPT_RW },
    { "rwmixread", required_argument, NULL, OPT_RWMIX },
    { "dist", required_argument, NULL, OPT_DIST },
    { "bs", required_argument, NULL, OPT_BS },
    { "qd", required_argument, NULL, OPT_QD },
    { "size", required_argument, NULL, OPT_SIZE },
    { "precondition", required_argument, NULL, OPT_PRECOND },
    { "io-size", required_argument, NULL, OPT_IOSIZE },
    { "runtime", required_argument, NULL, OPT_RUNTIME },
    { "idle", required_argument, NULL, OPT_IDLE },
    { "trace", required_argument, NULL, OPT_TRACE },
    { "seed", required_argument, NULL, OPT_SEED },
    { "stream", required_argument, NULL, OPT_STREAM },
    { "fdp", required_argument, NULL, OPT_FDP },
    { "fdp-hot", required_argument, NULL, OPT_FDP_HOT },
    { "zone", required_argument, NULL, OPT_ZONE },
    { "stats-dir", required_argument, NULL, OPT_STATS },
    { "summary", required_argument, NULL, OPT_SUMMARY },
    { "check-every", required_argument, NULL, OPT_CHECK },
    { "print-config", no_argument, NULL, OPT_PRINT_CONFIG },
    { "replay", required_argument, NULL, OPT_REPLAY },
    { "trace-out", required_argument, NULL, OPT_TRACE_OUT },
    { "state-in", required_argument, NULL, OPT_STATE_IN },
    { "state-out", required_argument, NULL, OPT_STATE_OUT },
    { "power-cut-at", required_argument, NULL, OPT_POWER_CUT },
    { "lost-out", required_argument, NULL, OPT_LOST_OUT },
    { "help", no_argument, NULL, OPT_HELP },
    TIN_GETOPT_OPTIONS,
    { NULL, 0, NULL, 0 },
};

/*
 * A configuration validation refuses: one line naming the key, and the file and line that
 * set it last when one did (a conflict between combined files shows where it came from).
 */
static void check_config(const struct options *o)
{
    char err[1024];
    if (ftl_config_validate_combined(&o->cfg, &o->origins, NULL, err, sizeof(err))) {
        usage_error("configuration: %s", err);
    }
}

/* --fdp and --fdp-hot: placement=fdp, synthetic writes, handles that exist. */
static void check_fdp_options(const struct options *o)
{
    bool fdp = o->cfg.placement == FTL_PLACEMENT_FDP;
    const struct workload_spec *w = &o->workload;
    const char *opt = o->fdp_set ? "--fdp" : "--fdp-hot";

    if (!o->fdp_set && !w->hot_split) {
        return;
    }
    if (!fdp) {
        usage_error("%s: picks a reclaim unit handle under placement=fdp (--set "
                    "placement=fdp; the configuration has placement=%s)", opt,
                    ftl_placement_name(o->cfg.placement));
    }
    if (w->trace_path) {
        usage_error("%s: tags synthetic writes (a trace carries its own handles)", opt);
    }
    if (w->hot_split && w->dist.kind != DIST_HOTCOLD) {
        usage_error("--fdp-hot: needs --dist hotcold:H:W (the hot part's writes go to the "
                    "handle)");
    }
    if (w->stream >= o->cfg.fdp_ruhs) {
        usage_error("--fdp: %u is not below fdp_ruhs (%llu)", w->stream,
                    (unsigned long long)o->cfg.fdp_ruhs);
    }
    if (w->hot_split && w->hot_stream >= o->cfg.fdp_ruhs) {
        usage_error("--fdp-hot: %u is not below fdp_ruhs (%llu)", w->hot_stream,
                    (unsigned long long)o->cfg.fdp_ruhs);
    }
}

/* The --trace-* options: with --trace, and --trace-time agreeing with --replay. */
static void check_trace_options(struct options *o)
{
    const struct tin_settings *t = &o->trace_in;
    if (!o->workload.trace_path && (tin_settings_any(t) || t->in.format != TIN_AUTO)) {
        usage_error("--trace-* options need --trace");
    }
    if (t->clock.closed_loop) {
        if (o->replay == REPLAY_OPEN) {
            usage_error("--trace-time closed-loop and --replay open exclude each other");
        }
        o->replay = REPLAY_CLOSED;
    }
    o->workload.trace_in = t;
}

/* The configuration: defaults, then every --config in order, then every --set in order. */
static void parse_options(int argc, char **argv, struct options *o)
{
    const char *sets[256];
    unsigned nsets = 0;
    char err[512];
    *o = (struct options){ .qd = 1, .runtime_s = 0 };
    o->workload = (struct workload_spec){ .rw = RW_RANDWRITE, .rwmixread = 50, .bs = 4096,
                                          .seed = 1 };
    dist_parse("random", &o->workload.dist, err, sizeof(err));
    int c, index;
    tin_settings_init(&o->trace_in);
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", long_options, &index)) != -1) {
        switch (c) {
        case OPT_CONFIG:
            if (o->nconfigs == MAX_CONFIGS) {
                usage_error("--config: more than %d files", MAX_CONFIGS);
            }
            o->config_paths[o->nconfigs++] = optarg;
            break;
        case OPT_SET:
            if (nsets == sizeof(sets) / sizeof(sets[0])) {
                usage_error("--set: too many");
            }
            sets[nsets++] = optarg;
            break;
        case OPT_RW:
            if (rw_mode_parse(optarg, &o->workload.rw)) {
                usage_error("--rw: '%s' is not one of randwrite, randread, randrw, write, "
                            "read, zone-append, zone-write", optarg);
            }
            break;
        case OPT_RWMIX: o->workload.rwmixread = (unsigned)parse_count("--rwmixread", optarg, 0, 100); break;
        case OPT_DIST:
            if (dist_parse(optarg, &o->workload.dist, err, sizeof(err))) {
                usage_error("%s", err);
            }
            break;
        case OPT_BS: o->workload.bs = parse_size_opt("--bs", optarg); break;
        case OPT_QD:
            o->qd = (unsigned)parse_count("--qd", optarg, 1, 65536);
            o->qd_given = 1;
            break;
        case OPT_SIZE: o->workload.region_bytes = parse_size_opt("--size", optarg); break;
        case OPT_PRECOND:
            if (!strcmp(optarg, "none")) {
                o->precondition = PRECONDITION_NONE;
            } else if (!strcmp(optarg, "seq")) {
                o->precondition = PRECONDITION_SEQ;
            } else if (!strcmp(optarg, "region")) {
                o->precondition = PRECONDITION_REGION;
            } else {
                usage_error("--precondition: '%s' is not one of none, seq, region", optarg);
            }
            break;
        case OPT_IOSIZE: o->io_bytes = parse_size_opt("--io-size", optarg); break;
        case OPT_RUNTIME: o->runtime_s = parse_time_opt("--runtime", optarg, false); break;
        case OPT_IDLE: parse_idle(o, optarg); break;
        case OPT_TRACE: o->workload.trace_path = optarg; break;
        case OPT_SEED: o->workload.seed = parse_count("--seed", optarg, 0, UINT64_MAX); break;
        case OPT_STREAM:
            o->workload.stream = (uint32_t)parse_count("--stream", optarg, 0, 15);
            o->stream_set = true;
            break;
        case OPT_FDP:
            o->workload.stream = (uint32_t)parse_count("--fdp", optarg, 0, 15);
            o->fdp_set = true;
            break;
        case OPT_FDP_HOT:
            o->workload.hot_stream = (uint32_t)parse_count("--fdp-hot", optarg, 0, 15);
            o->workload.hot_split = true;
            break;
        case OPT_ZONE:
            o->workload.zone = parse_count("--zone", optarg, 0, UINT64_MAX);
            o->zone_set = true;
            break;
        case OPT_STATS: o->stats_dir = optarg; break;
        case OPT_SUMMARY: o->summary_path = optarg; break;
        case OPT_CHECK: o->check_every = parse_count("--check-every", optarg, 1, UINT64_MAX); break;
        case OPT_PRINT_CONFIG: o->print_config = 1; break;
        case OPT_REPLAY:
            if (!strcmp(optarg, "open")) {
                o->replay = REPLAY_OPEN;
            } else if (!strcmp(optarg, "closed")) {
                o->replay = REPLAY_CLOSED;
            } else {
                usage_error("--replay: '%s' is not one of open, closed", optarg);
            }
            break;
        case OPT_TRACE_OUT: o->trace_out = optarg; break;
        case OPT_STATE_IN: o->state_in = optarg; break;
        case OPT_STATE_OUT: o->state_out = optarg; break;
        case OPT_POWER_CUT:
            o->power_cut_s = parse_time_opt("--power-cut-at", optarg, true);
            o->power_cut = true;
            break;
        case OPT_LOST_OUT: o->lost_out = optarg; break;
        case OPT_HELP: fputs(usage_text, stdout); exit(0);
        case TIN_OPT:
            if (tin_settings_option(&o->trace_in, long_options[index].name, optarg, err,
                                    sizeof(err))) {
                usage_error("%s", err);
            }
            break;
        default:
            usage_error("unknown or incomplete option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc) {
        usage_error("unexpected argument '%s'", argv[optind]);
    }
    if (o->io_bytes && o->runtime_s > 0) {
        usage_error("--io-size and --runtime exclude each other");
    }
    if (o->idle_every_bytes && o->workload.trace_path && o->replay != REPLAY_CLOSED) {
        usage_error("--idle: a trace replayed open-loop keeps its own idle times (add "
                    "--replay closed)");
    }
    if (o->replay != REPLAY_AUTO && !o->workload.trace_path) {
        usage_error("--replay needs --trace");
    }
    check_trace_options(o);
    if (o->state_in && o->precondition != PRECONDITION_NONE) {
        usage_error("--precondition and --state-in exclude each other (the state is the "
                    "preconditioning)");
    }
    if (o->lost_out && !o->power_cut) {
        usage_error("--lost-out needs --power-cut-at");
    }
    if (o->lost_out && !folder_of_exists(o->lost_out)) {
        usage_error("--lost-out %s: its folder does not exist", o->lost_out);
    }
    if (o->state_out && !folder_of_exists(o->state_out)) {
        usage_error("--state-out %s: its folder does not exist", o->state_out);
    }
    if (o->state_out && replace_target_check(o->state_out, err, sizeof(err))) {
        usage_error("--state-out: %s", err);
    }
    ftl_config_defaults(&o->cfg);
    for (unsigned i = 0; i < o->nconfigs; i++) {
        if (ftl_config_combine_file(&o->cfg, &o->origins, o->config_paths[i], err,
                                    sizeof(err))) {
            usage_error("%s", err);
        }
    }
    for (unsigned i = 0; i < nsets; i++) {
        char key[64];
        const char *eq = strchr(sets[i], '=');
        if (!eq || eq == sets[i] || (size_t)(eq - sets[i]) >= sizeof(key)) {
            usage_error("--set: expected key=value, got '%s'", sets[i]);
        }
        memcpy(key, sets[i], (size_t)(eq - sets[i]));
        key[eq - sets[i]] = '\0';
        if (ftl_config_set(&o->cfg, key, eq + 1, err, sizeof(err))) {
            usage_error("--set %s", err);
        }
        ftl_config_origin_note(&o->origins, key, NULL);  /* the command line: no file */
    }
    check_config(o);
    bool streams = o->cfg.placement == FTL_PLACEMENT_STREAM;
    if (o->stream_set && (!streams || o->workload.trace_path)) {
        usage_error("--stream: tags synthetic writes under placement=stream (a trace "
                    "carries its own tags)");
    }
    if (streams && o->workload.stream >= o->cfg.nstreams) {
        usage_error("--stream: %u is not below nstreams (%llu)", o->workload.stream,
                    (unsigned long long)o->cfg.nstreams);
    }
    check_fdp_options(o);
    bool fdp = o->cfg.placement == FTL_PLACEMENT_FDP;
    o->workload.nstreams = streams ? (uint32_t)o->cfg.nstreams
                           : fdp ? (uint32_t)o->cfg.fdp_ruhs : 0;
    o->workload.fdp = fdp;
    bool zoned_mode = rw_mode_zoned(o->workload.rw) && !o->workload.trace_path;
    if (o->zone_set && !zoned_mode) {
        usage_error("--zone: picks the zone of --rw zone-append or zone-write");
    }
    if (zoned_mode && o->workload.region_bytes) {
        usage_error("--size: the conventional space's region; --rw %s writes zones",
                    rw_mode_name(o->workload.rw));
    }
}

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
        ftl_config_get(cfg, key, value, sizeof(value));
        printf("%s=%s  # %s\n", key, value, ftl_config_key_help(key));
    }
    printf("# logical capacity: %" PRIu64 " bytes (%" PRIu64 " pages of %" PRIu64 " bytes)\n",
           g.logical_pages * g.page_bytes, g.logical_pages, g.page_bytes);
    return fflush(stdout) ? 1 : 0;
}

/*
 * The version a recording needs: 5 replaying a version-5 trace (FUA writes and write cache
 * switches), 4 with FDP handles (their updates), 3 when zone or copy requests may come (a
 * zoned namespace, or a replayed trace of version 1, 3 or 4, which may hold them), else
 * 2, which readers of conventional recordings expect.
 */
static int trace_out_version(const struct options *o, const struct workload *w)
{
    int replayed = workload_trace_version(w);
    return io_trace_version_needed(o->cfg.zoned || replayed == 1 || replayed >= 3,
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

int main(int argc, char **argv)
{
    struct options o;
    parse_options(argc, argv, &o);
    if (o.print_config) {
        return print_config(&o.cfg);
    }
    char err[512] = "";
    struct ftl *ftl = ftl_create(&o.cfg, err, sizeof(err));
    if (!ftl) {
        one_line(stderr, "ftl-sim", "%s", err);
        return 1;
    }
    /* The restored device's clock starts at 0 like any run's: its lines' ages carry over. */
    if (o.state_in && ftl_state_load_file(ftl, o.state_in, 0, err, sizeof(err))) {
        one_line(stderr, "ftl-sim", "error: %s", err);
        ftl_destroy(ftl);
        return EXIT_USAGE;
    }
    const struct ftl_geometry *g = ftl_geometry_of(ftl);
    uint64_t capacity = g->logical_pages * g->page_bytes;
    bool zoned_mode = rw_mode_zoned(o.workload.rw) && !o.workload.trace_path;
    if (!o.workload.region_bytes && !zoned_mode) {
        o.workload.region_bytes = capacity;
    }
    o.workload.layout = (struct zone_layout){ .zones = ftl_zone_count(ftl),
                                              .zone_sectors = ftl_zone_size_sectors(ftl),
                                              .cap_sectors = ftl_zone_cap_sectors(ftl) };
    struct workload *w = workload_create(&o.workload, o.cfg.secsz, g->logical_sectors, err,
                                         sizeof(err));
    if (!w) {
        one_line(stderr, "ftl-sim", "%s", err);
        ftl_destroy(ftl);
        return EXIT_USAGE;
    }
    if (!o.io_bytes && !(o.runtime_s > 0) && !o.workload.trace_path) {
        /* fio's default: one pass over the region; zoned: over one zone, or every zone */
        o.io_bytes = !zoned_mode ? o.workload.region_bytes
                     : o.workload.rw == RW_ZONE_APPEND ? workload_zone_bytes(w)
                     : workload_zone_bytes(w) * o.workload.layout.zones;
    }
    check_idle_budget(&o);
    bool open_loop = choose_open_loop(&o, w);
    bool own_phases = workload_brings_phases(w);  /* a recording's marks, end included */
    struct ftl_stats_writer *stats = NULL;
    struct io_trace_writer *trace = NULL;
    struct sim_phase_result *measured = NULL;
    struct sim_run run = { 0 };
    struct sim_power_cut cut = { 0 };
    uint64_t now = 0;
    int rc = 0;
    if (o.stats_dir && make_dirs(o.stats_dir)) {
        one_line(stderr, "ftl-sim", "cannot create %s: %s", o.stats_dir, strerror(errno));
        rc = -1;
        goto done;
    }
    if (o.stats_dir && !(stats = ftl_stats_open(o.stats_dir, ftl, 0, err, sizeof(err)))) {
        one_line(stderr, "ftl-sim", "%s", err);
        rc = -1;
        goto done;
    }
    if (o.trace_out && !(trace = io_trace_writer_open_version(o.trace_out, "ftl-sim", 0,
                                                              o.cfg.secsz,
                                                              trace_out_version(&o, w),
                                                              err, sizeof(err)))) {
        one_line(stderr, "ftl-sim", "--trace-out: %s", err);
        ftl_stats_close(stats, 0, err, sizeof(err));
        rc = -1;
        goto done;
    }
    rc = sim_run_init(&run, ftl, stats, trace, err, sizeof(err));
    if (rc == 0 && o.precondition != PRECONDITION_NONE) {
        rc = sim_run_mark(&run, now, "precondition", err, sizeof(err));
        rc = rc ? rc : run_precondition(&run, &o, w, &now, err, sizeof(err));
    }
    double precondition_s = (double)now / NS_PER_S;
    measured = calloc(1, sizeof(*measured));
    if (rc == 0 && !measured) {
        snprintf(err, sizeof(err), "out of memory");
        rc = -1;
    }
    if (rc == 0) {
        struct sim_limits limits = { .io_bytes = o.io_bytes,
                                     .runtime_ns = (uint64_t)(o.runtime_s * NS_PER_S),
                                     .check_every = o.check_every,
                                     .progress = isatty(STDERR_FILENO),
                                     .open_loop = open_loop,
                                     .idle_every_bytes = o.idle_every_bytes,
                                     .idle_ns = (uint64_t)(o.idle_s * NS_PER_S),
                                     .cut = o.power_cut,
                                     .cut_ns = (uint64_t)(o.power_cut_s * NS_PER_S + 0.5) };
        /* A recorded run brings its own phases; any other workload, a foreign trace
         * included, is one phase from here to its end. */
        rc = own_phases ? 0 : sim_run_mark(&run, now, "workload", err, sizeof(err));
        rc = rc ? rc : sim_run_phase(&run, w, o.qd, &limits, &now, measured, err,
                                     sizeof(err));
    }
    uint64_t end = measured && measured->recorded_end ? measured->recorded_end_ns : now;
    if (rc == 0 && o.power_cut) {
        cut.cut_requests = measured->cut_requests;
        rc = cut_power(&o, ftl, end, &cut, err, sizeof(err));
    }
    if (rc == 0 && !own_phases) {
        rc = sim_run_mark(&run, end, "end", err, sizeof(err));
    }
    if (rc != 0 && err[0]) {
        one_line(stderr, "ftl-sim", "%s", err);
    }
    if (run.engine) {
        sim_run_destroy(&run);
    }
    if (finish_outputs(&o, ftl, stats, trace, end) != 0) {
        rc = rc ? rc : -1;
    }
    if (rc == 0 && o.state_out &&
        ftl_state_save_file(ftl, o.state_out, "ftl-sim", end, err, sizeof(err))) {
        one_line(stderr, "ftl-sim", "error: --state-out: %s", err);
        rc = -1;
    }
    if (rc == 0) {
        if (o.state_in) {
            printf("restored from %s\n", o.state_in);
        }
        summary_print_text(stdout, ftl, measured);
        if (o.power_cut) {
            sim_power_cut_text(&cut, stdout);
        }
        struct run_description run_desc = {
            .workload = &o.workload, .qd = o.qd,
            .idle_every_bytes = o.idle_every_bytes, .idle_s = o.idle_s,
            .precondition = o.precondition == PRECONDITION_SEQ ? "seq"
                            : o.precondition == PRECONDITION_REGION ? "region" : "none", .io_bytes = o.io_bytes,
            .runtime_s = o.runtime_s, .config_paths = o.config_paths,
            .nconfigs = o.nconfigs,
            .precondition_s = precondition_s,
            .state_in = o.state_in, .state_out = o.state_out,
            .power_cut = o.power_cut ? &cut : NULL, .lost_out = o.lost_out,
        };
        struct trace_input_summary trace_input;
        workload_trace_input(w, &trace_input);
        run_desc.trace_input = trace_input.format ? &trace_input : NULL;
        if (trace_input.format) {
            tin_filters_text(&o.trace_in.in, run_desc.trace_filters,
                             sizeof(run_desc.trace_filters));
        }
        if (o.summary_path && write_summary(o.summary_path, ftl, &run_desc, measured)) {
            rc = -1;
        }
    }
done:
    sim_power_cut_free(&cut);
    free(measured);
    workload_destroy(w);
    ftl_destroy(ftl);
    return rc == SIM_E_WORKLOAD ? EXIT_USAGE : rc ? 1 : 0;
}
