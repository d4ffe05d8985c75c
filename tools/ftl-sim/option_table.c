/* ftl-sim's options: the table (option_table.h), getopt_long's view of it, and --help. */
#include "option_table.h"

#include <inttypes.h>
#include <string.h>

#include "kv_options.h"
#include "option_values.h"
#include "power_options.h"

#define FIELD(f) .field = offsetof(struct options, f), .field_size = sizeof(((struct options *)0)->f)
#define GIVEN(f) .given = offsetof(struct options, f)

#define TEXT(n, a, f, h) { .name = n, .kind = SIM_OPT_TEXT, .arg = a, FIELD(f), .help = h }
#define COUNT(n, a, f, lo, hi, h) { .name = n, .kind = SIM_OPT_COUNT, .arg = a, FIELD(f), \
                                    .min = lo, .max = hi, .help = h }
#define COUNT_GIVEN(n, f, g, lo, hi, h) { .name = n, .kind = SIM_OPT_COUNT, .arg = "N", \
                                          FIELD(f), GIVEN(g), .min = lo, .max = hi, .help = h }
#define SIZE(n, f, h) { .name = n, .kind = SIM_OPT_SIZE, .arg = "SIZE", FIELD(f), .help = h }
#define CHOICE(n, f, table, h) { .name = n, .kind = SIM_OPT_CHOICE, FIELD(f), .names = table, \
                                 .nnames = sizeof(table) / sizeof(table[0]), .help = h }
#define CUSTOM(n, a, fn, h) { .name = n, .kind = SIM_OPT_CUSTOM, .arg = a, .parse = fn, .help = h }
#define TRACE_IN(n, a, h) { .name = n, .kind = SIM_OPT_TRACE_IN, .arg = a, .help = h }

/* A given flag at offset 0 would read as "none": the first field is the --config list. */
_Static_assert(offsetof(struct options, config_paths) == 0, "given == 0 means none");
/* option_apply stores a choice as an int. */
_Static_assert(sizeof(enum rw_mode) == sizeof(int) && sizeof(enum precondition) == sizeof(int) &&
               sizeof(enum replay_mode) == sizeof(int) && sizeof(enum kv_mix) == sizeof(int) &&
               sizeof(enum kv_dist) == sizeof(int), "a choice's field is an int");
#define KV_CHOICE(n, f, g, table, h) { .name = n, .kind = SIM_OPT_CHOICE, FIELD(f), GIVEN(g), \
                                       .names = table, .nnames = sizeof(table) / \
                                       sizeof(table[0]), .help = h }

static const char *const precondition_names[] = {
    [PRECONDITION_NONE] = "none",
    [PRECONDITION_SEQ] = "seq",
    [PRECONDITION_REGION] = "region",
};

static const char *const replay_names[] = {
    [REPLAY_OPEN] = "open",     /* REPLAY_AUTO: no spelling, the default */
    [REPLAY_CLOSED] = "closed",
};

/*
 * The --trace-* rows keep tools/trace-in's order (TIN_GETOPT_OPTIONS): they share one
 * getopt value, so an abbreviation matching several of them takes the first.
 */
const struct sim_option sim_options[] = {
    CUSTOM("config", "FILE", option_add_config,
           "SSD configuration (key=value file, e.g. conf/lab-1g.conf);\n"
           "FEMU's defaults when absent. Repeatable: files combine in order,\n"
           "a later key winning (e.g. a geometry, then conf/nand/mlc.conf)"),
    CUSTOM("set", "key=value", option_add_set, "override one configuration key (repeatable)"),
    CHOICE("rw", workload.rw, rw_mode_names,
           "randwrite (default), randread, randrw, write, read; with a zoned\n"
           "namespace (zoned=1) zone-append (appends of --bs into zone --zone,\n"
           "reset when full) or zone-write (writes of --bs at the write pointer,\n"
           "zone after zone from --zone, each reset before it is written again)"),
    COUNT("rwmixread", "PCT", workload.rwmixread, 0, 100, "percent reads for randrw (default 50)"),
    CUSTOM("dist", "SPEC", option_dist,
           "offset distribution: random (default), zipf:THETA, pareto:H,\n"
           "normal:DEV (fio's --random_distribution spelling), or hotcold:H:W\n"
           "(not fio's): the first H% of the region gets W% of the I/Os,\n"
           "uniform within each part"),
    SIZE("bs", workload.bs, "block size, fio spelling (default 4k)"),
    COUNT_GIVEN("qd", qd, qd_given, 1, 65536, "requests kept outstanding (default 1)"),
    SIZE("size", workload.region_bytes,
         "region of the device the I/O covers (default: all of it)"),
    CHOICE("precondition", precondition, precondition_names,
           "none (default): start from an empty device; seq: write the whole\n"
           "logical space once first (not measured); region: only the --size\n"
           "region (as fio lays out a file)"),
    SIZE("io-size", io_bytes, "bytes to transfer in the measured part (default: --size)"),
    { .name = "runtime", .kind = SIM_OPT_TIME, .arg = "TIME", FIELD(runtime_s), .min = 1,
      .help = "simulated duration of the measured part (e.g. 300, 5m)" },
    CUSTOM("idle", "SIZE:TIME", option_idle,
           "after every SIZE issued in the measured part, wait for the requests\n"
           "in flight, then leave the device idle for TIME (e.g. 1g:30s: the\n"
           "write cliff's recovery); closed loop only"),
    TEXT("trace", "FILE", workload.trace_path,
         "replay a block I/O trace (format: hw/femu/ftl/include/femu_ftl/\n"
         "trace.h): version 1 (S seed / W lba nsect [H|C] / R lba nsect, and\n"
         "untimed zone and copy records), or version 2, 3 (zone and copy\n"
         "records) or 4 (FDP handle updates), which the device records with\n"
         "trace_out=FILE; zone rules refusing a record count in zone_errors\n"
         "and the replay goes on"),
    TRACE_IN("trace-format", "F",
             "the trace's format: auto (the default: detected from its first\n"
             "lines, named on stderr), femu, msr, spc, blkparse, fio-iolog\n"
             "(or fio), mqsim, disksim; gzip and xz files are read as they are"),
    TRACE_IN("trace-host", "NAME", "msr: one host's requests"),
    TRACE_IN("trace-disk", "N", "msr: one disk's requests (also MQSim's and DiskSim's device)"),
    TRACE_IN("trace-asu", "stream|offset",
             "spc: the ASU is the write's stream (modulo nstreams) or\n"
             "a region of its own (ASU n at n TiB)"),
    TRACE_IN("trace-events", "queue|complete", "blkparse: replay Q (default) or C events"),
    TRACE_IN("trace-sector-size", "N", "blkparse, mqsim, disksim, spc sectors (default 512)"),
    TRACE_IN("trace-skip-bad", NULL, "count and skip bad lines (default: FILE:LINE, exit 2)"),
    TRACE_IN("trace-lba-map", "refuse|modulo|scale",
             "a request beyond the device is an error\n"
             "(default) or moved to its offset modulo the capacity; scale moves\n"
             "every address by capacity / the trace's extent (a first pass finds\n"
             "it, or --trace-extent BYTES), nothing when the trace fits"),
    TRACE_IN("trace-extent", "BYTES",
             "--trace-lba-map scale: the trace's extent, instead of a first pass"),
    TRACE_IN("trace-time", "scale=F|closed-loop", "arrival times times F, or ignored (--qd)"),
    CHOICE("replay", replay, replay_names,
           "open: each request arrives at its recorded time (the default for a\n"
           "version-2 to -4 trace; --qd does not apply); closed: --qd requests\n"
           "outstanding, recorded times ignored (the only mode for version 1)"),
    COUNT("seed", "N", workload.seed, 0, UINT64_MAX, "random seed (default 1)"),
    COUNT_GIVEN("stream", workload.stream, stream_set, 0, 15,
                "placement=stream: the stream of the synthetic writes (default 0)"),
    COUNT_GIVEN("fdp", workload.stream, fdp_set, 0, 15,
                "placement=fdp: the reclaim unit handle of the synthetic writes and\n"
                "of --precondition's (default 0)"),
    COUNT_GIVEN("fdp-hot", workload.hot_stream, workload.hot_split, 0, 15,
                "placement=fdp with --dist hotcold: the hot part's writes (and its\n"
                "preconditioning) go to handle N, the cold part's to --fdp's"),
    COUNT_GIVEN("zone", workload.zone, zone_set, 0, UINT64_MAX,
                "zone-append: the zone; zone-write: the first zone (default 0)"),
    { .name = "zrwa", .kind = SIM_OPT_FLAG, FIELD(workload.zrwa),
      .help = "zone-write: open each zone with a Zone Random Write Area\n"
              "(zrwa_zones > 0) and finish it when written" },
    COUNT("zoned-journal", "N", workload.journal, 1, 65536,
          "zone-write: each --bs block is written N times before the next:\n"
          "in place in the ZRWA with --zrwa, else each version at the write\n"
          "pointer (default 1)"),
    { .name = "kv", .kind = SIM_OPT_FLAG, FIELD(kv.on),
      .help = "key-value operations (docs/kv.md) on one store over the whole\n"
              "conventional space: --kv-keys inserted first (the load phase,\n"
              "reported apart), then --kv-ops of --kv-mix, or --kv-ops-file" },
    KV_CHOICE("kv-mix", kv.mix, kv.mix_set, kv_mix_names,
              "YCSB's core workloads (default a): a read/update 50/50, b 95/5,\n"
              "c read only, d read/insert 95/5, e scan/insert 95/5 (a scan lists\n"
              "1-100 keys), f read/read-modify-write 50/50"),
    KV_CHOICE("kv-dist", kv.dist, kv.dist_set, kv_dist_names,
              "key choice: zipfian (YCSB's theta 0.99; the default, d's latest),\n"
              "uniform, or latest (the newest keys hottest)"),
    COUNT_GIVEN("kv-keys", kv.keys, kv.keys_set, 1, UINT64_C(999999999999),
                "keys inserted by the load phase (default 1000)"),
    COUNT_GIVEN("kv-ops", kv.ops, kv.ops_set, 1, UINT64_C(999999999999),
                "operations of the measured part (default 1000)"),
    CUSTOM("kv-value-size", "SIZE|uniform:MIN:MAX", option_kv_value_size,
           "each value's size: fixed (default 1k), or uniform from MIN to MAX bytes"),
    TEXT("kv-ops-file", "FILE", kv.ops_file,
         "run this file's operations instead of a mix, one a line: store KEYHEX\n"
         "SIZE [exist|absent], retrieve|delete|exist KEYHEX, list KEYHEX MAX"),
    TEXT("kv-dump", "FILE", kv.dump, "after the run, every key in key order: KEYHEX SIZE TAG"),
    TEXT("kv-log", "FILE", kv.log,
         "each KV request's status and result, in issue order (docs/kv.md)"),
    CUSTOM("power-state", "N", option_power_state,
           "set the drive to NVMe power state N (below ps_count) at the start of\n"
           "the run, as Set Features Power Management would (a non-operational\n"
           "one: until the first command; docs/energy.md)"),
    CUSTOM("apst", "TABLE", option_apst,
           "the APST table set at the start of the run: off, linux (the table\n"
           "Linux's nvme driver programs), linux:US (with its\n"
           "default_ps_max_latency_us = US; 0: off) or STATE:ITPT_MS:ITPS,...\n"
           "(in STATE, after ITPT_MS idle, move to ITPS, a non-operational state)"),
    TEXT("stats-dir", "DIR", stats_dir, "write the CSV statistics here (created if missing)"),
    TEXT("summary", "FILE", summary_path, "write a JSON summary of the measured part"),
    TEXT("trace-out", "FILE", trace_out,
         "record the requests this run serves as a version-2 trace (version 3\n"
         "with a zoned namespace, or replaying a version-1 or -3 trace;\n"
         "version 4 with placement=fdp; version 8 with --power-state or --apst)"),
    COUNT("check-every", "N", check_every, 1, UINT64_MAX,
          "run the FTL's invariant checker every N requests (slow; debugging)"),
    TEXT("state-in", "FILE", state_in,
         "start from a state file (an aged device: a run's --state-out or the\n"
         "device's state_out=) restored at simulated time 0, instead of an\n"
         "empty device; its configuration must be this run's (timings and\n"
         "read_uncor_ppm may differ); excludes --precondition"),
    TEXT("state-out", "FILE", state_out,
         "save the FTL's state at the end of the run (written atomically;\n"
         "the file holds no data: data=absent)"),
    { .name = "power-cut-at", .kind = SIM_OPT_TIME, .arg = "TIME", FIELD(power_cut_s),
      GIVEN(power_cut), .min = 0,
      .help = "cut the power TIME into the measured part (e.g. 10s, 1500ms):\n"
              "nothing arriving then or later is issued, requests in flight never\n"
              "complete, and the FTL loses what the power-loss model says\n"
              "(docs/ftl.md, \"Power loss\"; plp=on loses nothing acknowledged)" },
    TEXT("lost-out", "FILE", lost_out,
         "with --power-cut-at: the lost ranges as CSV (kind,slba,nlb; kind\n"
         "buffered or torn, in the device's sectors, sorted and merged)"),
    { .name = "unit-log", .kind = SIM_OPT_FLAG, FIELD(unit_log),
      .help = "with --stats-dir: units.csv, every GC unit opened and every victim\n"
              "(its write pointer, valid pages, free units, age in host pages), and\n"
              "per write pointer its victims' valid pages and ages in the summary" },
    { .name = "print-config", .kind = SIM_OPT_FLAG, FIELD(print_config),
      .help = "check the configuration, print it as a config file and exit" },
    { .name = "help", .kind = SIM_OPT_HELP, .help = "print this help and exit" },
};

const size_t sim_option_count = sizeof(sim_options) / sizeof(sim_options[0]);

static bool takes_argument(const struct sim_option *opt)
{
    switch (opt->kind) {
    case SIM_OPT_FLAG:
    case SIM_OPT_HELP:
        return false;
    case SIM_OPT_TRACE_IN:
        return opt->arg != NULL;
    default:
        return true;
    }
}

/* Each row its own value (getopt tells rows apart, and an abbreviation matching two is
 * ambiguous), except the --trace-* rows, which share TIN_OPT as tools/trace-in's do. */
void sim_options_getopt(struct option *out)
{
    for (size_t i = 0; i < sim_option_count; i++) {
        const struct sim_option *opt = &sim_options[i];
        out[i] = (struct option){ opt->name, takes_argument(opt) ? required_argument
                                                                  : no_argument, NULL,
                                  opt->kind == SIM_OPT_TRACE_IN ? TIN_OPT : 256 + (int)i };
    }
    out[sim_option_count] = (struct option){ NULL, 0, NULL, 0 };
}

static const char synopsis[] =
    "usage: ftl-sim [--config FILE]... [--set key=value]... [--rw MODE] [--rwmixread PCT]\n"
    "               [--dist random|zipf:THETA|pareto:H|normal:DEV|hotcold:H:W] [--bs SIZE]\n"
    "               [--qd N]\n"
    "               [--size SIZE] [--precondition none|seq|region] [--io-size SIZE | --runtime TIME]\n"
    "               [--idle SIZE:TIME] [--trace FILE [--replay open|closed]] [--seed N] [--stream N]\n"
    "               [--fdp N [--fdp-hot N]] [--zone N] [--zrwa] [--zoned-journal N]\n"
    "               [--stats-dir DIR]\n"
    "               [--summary FILE.json] [--trace-out FILE] [--check-every N] [--print-config]\n"
    "               [--state-in FILE] [--state-out FILE] [--power-cut-at TIME [--lost-out FILE]]\n"
    "               [--unit-log] [--power-state N] [--apst off|linux[:US]|TABLE]\n"
    "               [--kv [--kv-mix a-f] [--kv-dist uniform|zipfian|latest] [--kv-keys N]\n"
    "                [--kv-ops N] [--kv-value-size SPEC] [--kv-ops-file F] [--kv-dump F]\n"
    "                [--kv-log F]]\n"
    "\n"
    "Replays a workload through the femu FTL in simulated time.\n";

#define HELP_COLUMN 20

/* "--name ARG": a choice's names joined by | when it has no ARG of its own. */
static void option_head(const struct sim_option *opt, char *out, size_t outlen)
{
    size_t n = (size_t)snprintf(out, outlen, "  --%s", opt->name);
    if (opt->arg) {
        snprintf(out + n, outlen - n, " %s", opt->arg);
        return;
    }
    for (size_t i = 0, first = 1; opt->kind == SIM_OPT_CHOICE && i < opt->nnames; i++) {
        if (opt->names[i] && n < outlen) {
            n += (size_t)snprintf(out + n, outlen - n, "%s%s", first ? " " : "|",
                                  opt->names[i]);
            first = 0;
        }
    }
}

#define HELP_WIDTH 92

/* The bounds a number or a time is checked against, as --help states them: after the
 * help's last line, or under it when they would make it too long. */
static void option_bounds(const struct sim_option *opt, size_t column, FILE *f)
{
    char bounds[64] = "";
    if (opt->kind == SIM_OPT_COUNT && opt->max == UINT64_MAX) {
        snprintf(bounds, sizeof(bounds), "[%" PRIu64 ", 2^64-1]", opt->min);
    } else if (opt->kind == SIM_OPT_COUNT) {
        snprintf(bounds, sizeof(bounds), "[%" PRIu64 ", %" PRIu64 "]", opt->min, opt->max);
    } else if (opt->kind == SIM_OPT_TIME) {
        snprintf(bounds, sizeof(bounds), "%s0, 2^53 ns]", opt->min ? "(" : "[");
    }
    if (!bounds[0]) {
        return;
    }
    if (column + 1 + strlen(bounds) > HELP_WIDTH) {
        fprintf(f, "\n%*s%s", HELP_COLUMN, "", bounds);
    } else {
        fprintf(f, " %s", bounds);
    }
}

void sim_options_help(FILE *f)
{
    fputs(synopsis, f);
    for (size_t i = 0; i < sim_option_count; i++) {
        const struct sim_option *opt = &sim_options[i];
        char head[128];
        option_head(opt, head, sizeof(head));
        size_t len = strlen(head);
        if (len + 2 > HELP_COLUMN) {
            fprintf(f, "%s\n%*s", head, HELP_COLUMN, "");
        } else {
            fprintf(f, "%-*s", HELP_COLUMN, head);
        }
        size_t column = HELP_COLUMN;
        for (const char *p = opt->help; *p; p++) {
            fputc(*p, f);
            column++;
            if (*p == '\n') {
                fprintf(f, "%*s", HELP_COLUMN, "");
                column = HELP_COLUMN;
            }
        }
        option_bounds(opt, column, f);
        fputc('\n', f);
    }
}
