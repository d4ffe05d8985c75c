/*
 * What ftl-sim --kv was asked (docs/kv.md): one key-value store over the whole
 * conventional space (namespace 1), loaded with --kv-keys keys, then --kv-ops operations
 * of a YCSB mix, or the operations of --kv-ops-file instead.
 */
#ifndef FTL_SIM_KV_SPEC_H
#define FTL_SIM_KV_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* YCSB's core workloads A-F (their read/update/insert/scan/read-modify-write shares). */
enum kv_mix { KV_MIX_A, KV_MIX_B, KV_MIX_C, KV_MIX_D, KV_MIX_E, KV_MIX_F };
/* How a mix picks the key of a read, update, scan start or read-modify-write. */
enum kv_dist { KV_DIST_UNIFORM, KV_DIST_ZIPFIAN, KV_DIST_LATEST };

#define KV_NSID 1u          /* the store's namespace, as the device's first one */
#define KV_ZIPF_THETA 0.99  /* YCSB's zipfian constant */
#define KV_SCAN_MAX 100     /* a scan lists a uniform 1..KV_SCAN_MAX keys */

struct kv_spec {
    bool on;                    /* --kv */
    enum kv_mix mix;            /* --kv-mix (default a) */
    enum kv_dist dist;          /* --kv-dist (default zipfian, YCSB's) */
    uint64_t keys;              /* --kv-keys: inserted by the load phase */
    uint64_t ops;               /* --kv-ops: operations of the measured part */
    uint64_t value_min, value_max;  /* --kv-value-size: fixed (equal) or uniform */
    const char *ops_file;       /* --kv-ops-file: explicit operations instead of a mix */
    const char *dump;           /* --kv-dump: every key at the end, in key order */
    const char *log;            /* --kv-log: each operation's status and result */
    /* which were given (a --kv-* option without --kv, or a mix's with an ops file, is
     * refused) */
    bool mix_set, dist_set, keys_set, ops_set, value_set;
};

/* --kv-mix's and --kv-dist's spellings, names[value] (the option table parses them). */
extern const char *const kv_mix_names[KV_MIX_F + 1];
extern const char *const kv_dist_names[KV_DIST_LATEST + 1];

/* Defaults before the command line: mix a, zipfian, 1000 keys, 1000 ops, 1 KiB values. */
void kv_spec_defaults(struct kv_spec *s);

/*
 * --kv-value-size TEXT: SIZE (fixed, fio's spelling as --bs) or uniform:MIN:MAX (each
 * value's size drawn uniformly in [MIN, MAX] bytes). 0, or -1 with one line in err.
 */
int kv_value_size_parse(const char *text, uint64_t *min, uint64_t *max, char *err,
                        size_t errlen);

#endif
