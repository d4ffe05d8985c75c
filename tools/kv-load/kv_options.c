/* kv-load's command line (kv_options.h). */
#include "kv_options.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { OPT_DEV = 256, OPT_NSID, OPT_MIX, OPT_DIST, OPT_KEYS, OPT_VALUE, OPT_OPS, OPT_RUNTIME,
       OPT_QD, OPT_SEED, OPT_NO_LOAD, OPT_NO_VERIFY, OPT_CSV, OPT_JSON, OPT_HELP };

static const struct option long_options[] = {
    { "dev", required_argument, NULL, OPT_DEV },
    { "nsid", required_argument, NULL, OPT_NSID },
    { "mix", required_argument, NULL, OPT_MIX },
    { "dist", required_argument, NULL, OPT_DIST },
    { "keys", required_argument, NULL, OPT_KEYS },
    { "value-size", required_argument, NULL, OPT_VALUE },
    { "ops", required_argument, NULL, OPT_OPS },
    { "runtime", required_argument, NULL, OPT_RUNTIME },
    { "qd", required_argument, NULL, OPT_QD },
    { "seed", required_argument, NULL, OPT_SEED },
    { "no-load", no_argument, NULL, OPT_NO_LOAD },
    { "no-verify", no_argument, NULL, OPT_NO_VERIFY },
    { "csv", required_argument, NULL, OPT_CSV },
    { "json", required_argument, NULL, OPT_JSON },
    { "help", no_argument, NULL, OPT_HELP },
    { NULL, 0, NULL, 0 },
};

/* A whole number in [min, max], with an optional k/m/g suffix (x1024) when sized. */
static int whole(const char *text, uint64_t min, uint64_t max, bool sized, uint64_t *out)
{
    char *end;
    errno = 0;
    if (!*text || *text == '-') {
        return -1;
    }
    unsigned long long v = strtoull(text, &end, 10);
    if (errno || end == text) {
        return -1;
    }
    if (sized && *end) {
        unsigned shift = strchr("kK", *end) ? 10 : strchr("mM", *end) ? 20
                         : strchr("gG", *end) ? 30 : 0;
        if (!shift || end[1] || v > (UINT64_MAX >> shift)) {
            return -1;
        }
        v <<= shift;
        end++;
    }
    if (*end || v < min || v > max) {
        return -1;
    }
    *out = v;
    return 0;
}

int kv_options_parse(int argc, char **argv, struct kv_options *o, char *err, size_t errlen)
{
    uint64_t v;
    *o = (struct kv_options){ .mix = KV_MIX_A, .dist = KV_DISTS, .keys = 1000,
                              .value_size = 1024, .ops = 1000, .qd = 1, .seed = 1,
                              .load = true, .verify = true };
    opterr = 0;
    optind = 1;
    for (;;) {
        int prev = optind;
        int c = getopt_long(argc, argv, ":", long_options, NULL);
        if (c == -1) {
            break;
        }
        const char *name = prev < argc ? argv[prev] : "?";
        switch (c) {
        case OPT_DEV: o->dev = optarg; break;
        case OPT_NSID:
            if (whole(optarg, 1, UINT32_MAX - 1, false, &v)) {
                snprintf(err, errlen, "--nsid: '%s' is not a namespace ID (1 or more)", optarg);
                return -1;
            }
            o->nsid = (uint32_t)v;
            break;
        case OPT_MIX: {
            int i = kv_name_index(kv_mix_names, KV_MIXES, optarg);
            if (i < 0) {
                snprintf(err, errlen, "--mix: '%s' is not one of a b c d e f", optarg);
                return -1;
            }
            o->mix = (enum kv_mix)i;
            break;
        }
        case OPT_DIST: {
            int i = kv_name_index(kv_dist_names, KV_DISTS, optarg);
            if (i < 0) {
                snprintf(err, errlen, "--dist: '%s' is not one of uniform zipfian latest",
                         optarg);
                return -1;
            }
            o->dist = (enum kv_dist)i;
            break;
        }
        case OPT_KEYS:
            if (whole(optarg, 1, KV_KEY_NUMBERS / 2, false, &o->keys)) {
                snprintf(err, errlen, "--keys: '%s' is not a key count from 1 to %llu", optarg,
                         (unsigned long long)(KV_KEY_NUMBERS / 2));
                return -1;
            }
            break;
        case OPT_VALUE:
            if (whole(optarg, 1, KV_VALUE_MAX, true, &v)) {
                snprintf(err, errlen, "--value-size: '%s' is not a size from 1 byte to 1g",
                         optarg);
                return -1;
            }
            o->value_size = (uint32_t)v;
            break;
        case OPT_OPS:
            if (whole(optarg, 0, KV_KEY_NUMBERS / 2, false, &o->ops)) {
                snprintf(err, errlen, "--ops: '%s' is not a whole number of operations",
                         optarg);
                return -1;
            }
            o->ops_set = true;
            break;
        case OPT_RUNTIME: {
            char *end;
            errno = 0;
            o->runtime = strtod(optarg, &end);
            if (errno || end == optarg || *end || !(o->runtime > 0) || o->runtime > 1e7) {
                snprintf(err, errlen, "--runtime: '%s' is not a number of seconds above 0",
                         optarg);
                return -1;
            }
            break;
        }
        case OPT_QD:
            if (whole(optarg, 1, KV_QD_MAX, false, &v)) {
                snprintf(err, errlen, "--qd: '%s' is not a queue depth from 1 to %d", optarg,
                         KV_QD_MAX);
                return -1;
            }
            o->qd = (unsigned)v;
            break;
        case OPT_SEED:
            if (whole(optarg, 0, UINT64_MAX, false, &o->seed)) {
                snprintf(err, errlen, "--seed: '%s' is not a whole number", optarg);
                return -1;
            }
            break;
        case OPT_NO_LOAD: o->load = false; break;
        case OPT_NO_VERIFY: o->verify = false; break;
        case OPT_CSV: o->csv = optarg; break;
        case OPT_JSON: o->json = optarg; break;
        case OPT_HELP: o->help = true; return 0;
        case ':':
            snprintf(err, errlen, "%s: needs a value", name);
            return -1;
        default:
            snprintf(err, errlen, "%s: unknown option (see --help)", name);
            return -1;
        }
    }
    if (optind < argc) {
        snprintf(err, errlen, "'%s': unexpected argument (options only; see --help)",
                 argv[optind]);
        return -1;
    }
    if (!o->dev) {
        snprintf(err, errlen, "--dev: missing (the KV namespace's /dev/ngXnY)");
        return -1;
    }
    if (o->runtime > 0 && !o->ops_set) {
        o->ops = KV_KEY_NUMBERS / 2;    /* --runtime alone: as many as fit */
    }
    if (o->dist == KV_DISTS) {
        o->dist = kv_mix_default_dist(o->mix);
    }
    return 0;
}
