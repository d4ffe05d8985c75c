/* ftl-sim --kv's command-line checks (kv_options.h). */
#include "kv_options.h"

#include <string.h>
#include <sys/stat.h>

#include "kv_keys.h"

void option_kv_value_size(struct options *o, const char *arg)
{
    char err[512];
    if (kv_value_size_parse(arg, &o->kv.value_min, &o->kv.value_max, err, sizeof(err))) {
        usage_error("%s", err);
    }
    o->kv.value_set = true;
}

/* The first --kv-* option given, or NULL. */
static const char *first_kv_option(const struct kv_spec *k)
{
    return k->mix_set ? "--kv-mix" : k->dist_set ? "--kv-dist" : k->keys_set ? "--kv-keys"
           : k->ops_set ? "--kv-ops" : k->value_set ? "--kv-value-size"
           : k->ops_file ? "--kv-ops-file" : k->dump ? "--kv-dump" : k->log ? "--kv-log"
           : NULL;
}

/* The block workload's option given with --kv, or NULL. */
static const char *block_option(const struct options *o)
{
    const struct workload_spec *w = &o->workload;
    return w->trace_path ? "--trace" : w->rw != RW_RANDWRITE ? "--rw"
           : w->dist.kind != DIST_RANDOM ? "--dist" : w->bs != 4096 ? "--bs"
           : w->region_bytes ? "--size" : o->io_bytes ? "--io-size"
           : o->precondition != PRECONDITION_NONE ? "--precondition"
           : o->idle_every_bytes ? "--idle" : o->stream_set ? "--stream"
           : o->fdp_set ? "--fdp" : w->hot_split ? "--fdp-hot" : o->zone_set ? "--zone"
           : NULL;
}

/* A file to be written: its folder must exist before the run. */
static void check_output(const char *opt, const char *path)
{
    const char *slash = path ? strrchr(path, '/') : NULL;
    if (!slash || slash == path) {
        return;
    }
    char folder[4096];
    size_t len = (size_t)(slash - path);
    struct stat st;
    if (len >= sizeof(folder)) {
        usage_error("%s %s: the name is too long", opt, path);
    }
    memcpy(folder, path, len);
    folder[len] = '\0';
    if (stat(folder, &st) || !S_ISDIR(st.st_mode)) {
        usage_error("%s %s: its folder does not exist", opt, path);
    }
}

void check_kv_options(struct options *o)
{
    struct kv_spec *k = &o->kv;
    const char *opt = first_kv_option(k);
    if (!k->on) {
        if (opt) {
            usage_error("%s needs --kv", opt);
        }
        return;
    }
    if ((opt = block_option(o))) {
        usage_error("%s: a block workload's option; --kv runs key-value operations", opt);
    }
    if (o->cfg.zoned) {
        usage_error("--kv: needs a conventional device (the configuration has zoned=1)");
    }
    if (k->ops_file && (k->mix_set || k->dist_set || k->keys_set || k->ops_set ||
                        k->value_set)) {
        usage_error("--kv-ops-file: excludes --kv-mix, --kv-dist, --kv-keys, --kv-ops and "
                    "--kv-value-size (the file lists every operation)");
    }
    if (!k->ops_file && k->keys + k->ops >= KV_KEY_NUMBERS) {
        usage_error("--kv-keys: with --kv-ops, more than the 10^12 key numbers the "
                    "keys' 12 digits hold");
    }
    check_output("--kv-dump", k->dump);
    check_output("--kv-log", k->log);
}
