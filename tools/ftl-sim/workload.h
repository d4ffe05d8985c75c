/*
 * Request generators for ftl-sim: fio-like synthetic workloads (rw mode, read mix,
 * distribution, block size, region) and replay of DFTL-lab traces.
 */
#ifndef FTL_SIM_WORKLOAD_H
#define FTL_SIM_WORKLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dist.h"
#include "rng.h"

enum rw_mode { RW_RANDWRITE, RW_RANDREAD, RW_RANDRW, RW_WRITE, RW_READ };

struct workload_spec {
    enum rw_mode rw;
    unsigned rwmixread;         /* percent of reads for randrw */
    struct dist_spec dist;
    uint64_t bs;                /* bytes, a multiple of the sector size */
    uint64_t region_bytes;      /* I/O stays in [0, region_bytes) */
    uint64_t seed;
    const char *trace_path;     /* replay this trace instead (NULL: synthetic) */
};

enum request_op { REQ_READ, REQ_WRITE };

struct request {
    enum request_op op;
    uint64_t slba, nlb;         /* in the device's sectors */
    uint32_t stream;
};

struct workload;

/* secsz: the device's sector size; capacity_sectors: its logical size. */
struct workload *workload_create(const struct workload_spec *spec, uint64_t secsz,
                                 uint64_t capacity_sectors, char *err, size_t errlen);
/* 1: *req filled; 0: the trace ended; -1: error in err (e.g. a bad trace line). */
int workload_next(struct workload *w, struct request *req, char *err, size_t errlen);
void workload_destroy(struct workload *w);

const char *rw_mode_name(enum rw_mode rw);
int rw_mode_parse(const char *text, enum rw_mode *out);

#endif
