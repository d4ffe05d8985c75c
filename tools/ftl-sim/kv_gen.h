/*
 * ftl-sim --kv's request generator: the load phase (keys 0..--kv-keys-1 inserted in
 * order), then --kv-ops operations of a YCSB mix, or --kv-ops-file's operations. Every
 * request is numbered from 1 in the order it is issued, load included; a Store's value
 * tag is its number (the FTL keeps tags, not bytes: femu_ftl/kv.h).
 *
 * The mixes, as YCSB's core workloads (percent of operations):
 *   a: read 50, update 50          b: read 95, update 5        c: read 100
 *   d: read 95, insert 5 (latest)  e: scan 95, insert 5        f: read 50, rmw 50
 * read: a Retrieve; update: a Store of an existing key; insert: a Store of the next new
 * key; scan: a List of a uniform 1..KV_SCAN_MAX keys from a chosen key; rmw: a Retrieve,
 * then a Store of the same key as the next request (one operation, two requests; with
 * --qd above 1 the Store may be issued before the Retrieve completes).
 * Key choice over the keys inserted so far (n): uniform; zipfian (YCSB's theta 0.99 over
 * popularity ranks, the ranks scattered over the keys, n growing with inserts); latest
 * (rank r is key n-1-r: the newest keys are the hottest). Without --kv-dist a mix takes
 * YCSB's: latest for d, zipfian for the others.
 */
#ifndef FTL_SIM_KV_GEN_H
#define FTL_SIM_KV_GEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kv_spec.h"

struct request;

/* What an operation was, for the summary's counts (KV_KIND_RMW: its Retrieve; the
 * Store after it is KV_KIND_RMW_STORE). */
enum kv_kind {
    KV_KIND_READ, KV_KIND_UPDATE, KV_KIND_INSERT, KV_KIND_SCAN, KV_KIND_RMW,
    KV_KIND_RMW_STORE, KV_KIND_LOAD, KV_KIND_FILE, KV_KINDS
};

struct kv_gen;

/* buffer_bytes: a Retrieve's buffer (the store's largest value). NULL with one line in
 * err (a bad ops file, out of memory). */
struct kv_gen *kv_gen_create(const struct kv_spec *spec, uint64_t seed, uint32_t buffer_bytes,
                             char *err, size_t errlen);
/* The load phase's inserts (true), then the measured part's operations (false). */
void kv_gen_start(struct kv_gen *g, bool load);
/* 1: *req filled; 0: the phase's operations are all issued. */
int kv_gen_next(struct kv_gen *g, struct request *req);
/* The mix's effective key choice (--kv-dist, or the mix's default). */
enum kv_dist kv_gen_dist(const struct kv_gen *g);
void kv_gen_destroy(struct kv_gen *g);

#endif
