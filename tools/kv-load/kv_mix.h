/*
 * kv-load's operations: YCSB's core workloads A-F and their key choice, as ftl-sim --kv
 * draws them (tools/ftl-sim/kv_gen.h; docs/kv.md): the same mix letters, distribution
 * names, shares and key names, with the guest's own random numbers.
 *   a: read 50, update 50          b: read 95, update 5        c: read 100
 *   d: read 95, insert 5 (latest)  e: scan 95, insert 5        f: read 50, rmw 50
 * read: a Retrieve; update: a Store of an existing key; insert: a Store of the next new
 * key; scan: a List of a uniform 1..KV_SCAN_MAX keys from a chosen key; rmw: a Retrieve,
 * then a Store of the same key once it completed. Key number n is "user" and n in 12
 * decimal digits (16 bytes), so key order is number order. Key choice over the keys
 * visible so far: uniform; zipfian (theta 0.99 over popularity ranks, the ranks scattered
 * over the keys); latest (rank r is the r-th newest key). A mix without --dist takes
 * YCSB's: latest for d, zipfian for the others.
 */
#ifndef KV_LOAD_KV_MIX_H
#define KV_LOAD_KV_MIX_H

#include <stdbool.h>
#include <stdint.h>

#include "kv_cmd.h"

#define KV_ZIPF_THETA 0.99
#define KV_SCAN_MAX 100
#define KV_KEY_NUMBERS UINT64_C(1000000000000)   /* 12 digits */

enum kv_mix { KV_MIX_A, KV_MIX_B, KV_MIX_C, KV_MIX_D, KV_MIX_E, KV_MIX_F, KV_MIXES };
enum kv_dist { KV_DIST_UNIFORM, KV_DIST_ZIPFIAN, KV_DIST_LATEST, KV_DISTS };
/* An operation's kind (load: the load phase's inserts). */
enum kv_kind { KV_READ, KV_UPDATE, KV_INSERT, KV_SCAN, KV_RMW, KV_LOAD, KV_KINDS };

extern const char *const kv_mix_names[KV_MIXES];     /* "a" .. "f" */
extern const char *const kv_dist_names[KV_DISTS];    /* "uniform", "zipfian", "latest" */
extern const char *const kv_kind_names[KV_KINDS];    /* "read", ..., "load" */

/* Index of name in names[0..n), or -1. */
int kv_name_index(const char *const *names, int n, const char *name);

/* The distribution a mix uses without --dist. */
enum kv_dist kv_mix_default_dist(enum kv_mix mix);

/* splitmix64: small, seedable, good enough for key choice. */
struct kv_rng {
    uint64_t state;
};
uint64_t kv_rng_next(struct kv_rng *r);
uint64_t kv_rng_below(struct kv_rng *r, uint64_t n);   /* uniform in [0, n), n > 0 */
double kv_rng_unit(struct kv_rng *r);                  /* uniform in [0, 1) */

/* YCSB's zipfian over ranks 0..n-1 (Gray et al.'s method), n growing with inserts. */
struct kv_zipf {
    double theta, zeta2, zetan;
    uint64_t n;
};
void kv_zipf_init(struct kv_zipf *z, double theta);
/* A rank in [0, n) (0 the most popular); n > 0; zeta(n) extended as n grows. */
uint64_t kv_zipf_rank(struct kv_zipf *z, struct kv_rng *r, uint64_t n);
/* Rank -> key number, a bijection of [0, n) that spreads the hot ranks out. */
uint64_t kv_scatter(uint64_t rank, uint64_t n);

/* Key number n (< KV_KEY_NUMBERS) as "user%012llu". */
void kv_key_of_number(uint64_t n, struct kv_key *key);

struct kv_chooser {
    enum kv_mix mix;
    enum kv_dist dist;
    struct kv_rng rng;
    struct kv_zipf zipf;
};
void kv_chooser_init(struct kv_chooser *c, enum kv_mix mix, enum kv_dist dist, uint64_t seed);
/* The mix's next operation kind, by its shares. */
enum kv_kind kv_choose_kind(struct kv_chooser *c);
/* The key number of a read, update, scan or rmw among keys [0, visible), visible > 0. */
uint64_t kv_choose_key(struct kv_chooser *c, uint64_t visible);
/* Keys a scan lists: uniform in 1..KV_SCAN_MAX. */
unsigned kv_choose_scan_length(struct kv_chooser *c);

#endif
