/*
 * kv-load's figures: every operation's latency by kind (for exact percentiles), the
 * commands issued and completed per opcode, every status other than success per opcode,
 * and wrong results; written as a summary line, a JSON file and a CSV of samples.
 */
#ifndef KV_LOAD_KV_REPORT_H
#define KV_LOAD_KV_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "kv_cmd.h"
#include "kv_mix.h"

#define KV_STATUS_SLOTS 32      /* distinct (opcode, status) pairs kept; more are "other" */

struct kv_lat_list {
    uint64_t *ns;
    uint64_t n, cap;
};

struct kv_status_count {
    uint8_t opcode;
    int32_t res;
    uint64_t count;
};

struct kv_report {
    struct kv_lat_list lat[KV_KINDS];
    uint64_t failed_ops[KV_KINDS];      /* operations that ended with a status */
    uint64_t issued[256], ok[256];      /* commands by opcode */
    struct kv_status_count statuses[KV_STATUS_SLOTS];
    unsigned nstatuses;
    uint64_t other_statuses;
    uint64_t wrong_values;              /* a Retrieve whose bytes are not the key's value */
    uint64_t wrong_lists;               /* a List whose buffer or keys are not right */
    FILE *csv;                          /* per-operation samples, or NULL */
};

/* csv_path: the samples file (NULL: none). 0, or -1 with errno. */
int kv_report_init(struct kv_report *r, const char *csv_path);
void kv_report_command(struct kv_report *r, uint8_t opcode, int32_t res);
/* One operation done: its kind, when it ended (s since the run started), latency, and 0 or
 * the status that ended it. */
void kv_report_op(struct kv_report *r, enum kv_kind kind, double end_s, uint64_t latency_ns,
                  int32_t res);
/* The p-th percentile (0..100) of a kind's latencies, ns; 0 without any. Sorts them. */
uint64_t kv_report_percentile(struct kv_report *r, enum kv_kind kind, double p);
/* Operations of the run (the load's too when counted), errors, as a summary line to out. */
struct kv_run_info {
    const char *phase, *mix, *dist;
    unsigned qd;
    uint64_t keys, value_size;
    double seconds;
};
void kv_report_summary(struct kv_report *r, const struct kv_run_info *info, FILE *out);
/* The same as JSON. 0, or -1 with errno. */
int kv_report_json(struct kv_report *r, const struct kv_run_info *info, const char *path);
uint64_t kv_report_errors(const struct kv_report *r);
void kv_report_free(struct kv_report *r);

#endif
