/*
 * ftl-sim's command line (run_options.h): the options as the table reads them, then the
 * checks between them, then the configuration they name, then the checks against it.
 */
#include <getopt.h>
#include <string.h>
#include <sys/stat.h>

#include "kv_options.h"
#include "option_table.h"
#include "option_values.h"
#include "replace_target.h"
#include "run_options.h"

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

/*
 * The pauses of --idle add up: with --io-size their sum is known before the run, with
 * --runtime a pause may start just before the end. Either way the run must stay within
 * 2^53 ns: 4096 pauses of 10^7 s would wrap a 64-bit nanosecond clock.
 */
void check_idle_budget(const struct options *o)
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

/* The defaults, then every option on the command line through the table. */
static void read_arguments(int argc, char **argv, struct options *o)
{
    char err[512];
    *o = (struct options){ .qd = 1, .runtime_s = 0 };
    o->workload = (struct workload_spec){ .rw = RW_RANDWRITE, .rwmixread = 50, .bs = 4096,
                                          .seed = 1 };
    dist_parse("random", &o->workload.dist, err, sizeof(err));
    tin_settings_init(&o->trace_in);
    kv_spec_defaults(&o->kv);

    struct option longopts[sim_option_count + 1];
    sim_options_getopt(longopts);
    int c, index;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", longopts, &index)) != -1) {
        if (c == '?' || c == ':') {
            usage_error("unknown or incomplete option '%s'", argv[optind - 1]);
        }
        option_apply(o, &sim_options[index], optarg);
    }
    if (optind < argc) {
        usage_error("unexpected argument '%s'", argv[optind]);
    }
}

/* The options that need or exclude one another, and the files to be written. */
static void check_combinations(struct options *o)
{
    char err[512];
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
    if (o->unit_log && !o->stats_dir) {
        usage_error("--unit-log needs --stats-dir (units.csv goes there)");
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
}

/* A power state --set gave that a --set ps_count after it dropped: refused, not lost
 * (--set ps_count may shorten a file's table; the same command line may not undo itself). */
static void check_sets_kept(const struct options *o)
{
    for (unsigned i = 0; i < o->nsets; i++) {
        char key[64];
        const char *set = o->sets[i];
        size_t len = strcspn(set, "=");
        snprintf(key, sizeof(key), "%.*s", (int)len, set);
        if (ftl_config_key_unused(&o->cfg, key)) {
            usage_error("--set %s: set, but ps_count is %llu (power states 0-%llu)", key,
                        (unsigned long long)o->cfg.ps_count,
                        (unsigned long long)o->cfg.ps_count - 1);
        }
    }
}

/* The configuration: defaults, then every --config in order, then every --set in order. */
static void combine_configuration(struct options *o)
{
    char err[512];
    ftl_config_defaults(&o->cfg);
    for (unsigned i = 0; i < o->nconfigs; i++) {
        if (ftl_config_combine_file(&o->cfg, &o->origins, o->config_paths[i], err,
                                    sizeof(err))) {
            usage_error("%s", err);
        }
    }
    for (unsigned i = 0; i < o->nsets; i++) {
        char key[64];
        const char *set = o->sets[i], *eq = strchr(set, '=');
        if (!eq || eq == set || (size_t)(eq - set) >= sizeof(key)) {
            usage_error("--set: expected key=value, got '%s'", set);
        }
        memcpy(key, set, (size_t)(eq - set));
        key[eq - set] = '\0';
        if (ftl_config_set(&o->cfg, key, eq + 1, err, sizeof(err))) {
            usage_error("--set %s", err);
        }
        ftl_config_origin_note(&o->origins, key, NULL);  /* the command line: no file */
    }
    check_sets_kept(o);
    check_config(o);
}

/* --stream, --fdp, --fdp-hot and --zone against the placement and the --rw mode. */
static void check_placement_options(struct options *o)
{
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
    bool zone_write = zoned_mode && o->workload.rw == RW_ZONE_WRITE;
    if (o->workload.zrwa && !zone_write) {
        usage_error("--zrwa: opens the zones of --rw zone-write with a ZRWA");
    }
    if (o->workload.journal && !zone_write) {
        usage_error("--zoned-journal: rewrites the blocks of --rw zone-write");
    }
    if (zoned_mode && o->workload.region_bytes) {
        usage_error("--size: the conventional space's region; --rw %s writes zones",
                    rw_mode_name(o->workload.rw));
    }
}

void parse_options(int argc, char **argv, struct options *o)
{
    read_arguments(argc, argv, o);
    check_combinations(o);
    combine_configuration(o);
    check_placement_options(o);
    check_kv_options(o);
    check_power_options(o);
}
