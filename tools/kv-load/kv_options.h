/* kv-load's command line (kv_load.c's usage text lists it). */
#ifndef KV_LOAD_KV_OPTIONS_H
#define KV_LOAD_KV_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kv_mix.h"

#define KV_QD_MAX 1024
#define KV_VALUE_MAX (UINT32_C(1) << 30)

struct kv_options {
    const char *dev;            /* --dev /dev/ngXnY (required) */
    uint32_t nsid;              /* --nsid (0: the device's own, NVME_IOCTL_ID) */
    enum kv_mix mix;            /* --mix a..f (a) */
    enum kv_dist dist;          /* --dist (the mix's default) */
    uint64_t keys;              /* --keys: the load phase's inserts (1000) */
    uint32_t value_size;        /* --value-size bytes (1024) */
    uint64_t ops;               /* --ops (1000 without --runtime; 0: load only) */
    bool ops_set;
    double runtime;             /* --runtime seconds (0: none) */
    unsigned qd;                /* --qd (1) */
    uint64_t seed;              /* --seed (1) */
    bool load;                  /* false with --no-load: keys 0..keys-1 exist already */
    bool verify;                /* false with --no-verify */
    const char *csv;            /* --csv FILE: per-operation samples */
    const char *json;           /* --json FILE: the summary as JSON */
    bool help;
};

/* 0, or -1 with one line naming the option in err. */
int kv_options_parse(int argc, char **argv, struct kv_options *o, char *err, size_t errlen);

#endif
