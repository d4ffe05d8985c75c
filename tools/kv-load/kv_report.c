/* kv-load's figures (kv_report.h). */
#include "kv_report.h"

#include <stdlib.h>
#include <string.h>

int kv_report_init(struct kv_report *r, const char *csv_path)
{
    memset(r, 0, sizeof(*r));
    if (csv_path) {
        r->csv = fopen(csv_path, "w");
        if (!r->csv) {
            return -1;
        }
        fprintf(r->csv, "end_s,kind,latency_us,status\n");
    }
    return 0;
}

void kv_report_command(struct kv_report *r, uint8_t opcode, int32_t res)
{
    r->issued[opcode]++;
    if (res == 0) {
        r->ok[opcode]++;
        return;
    }
    for (unsigned i = 0; i < r->nstatuses; i++) {
        if (r->statuses[i].opcode == opcode && r->statuses[i].res == res) {
            r->statuses[i].count++;
            return;
        }
    }
    if (r->nstatuses == KV_STATUS_SLOTS) {
        r->other_statuses++;
        return;
    }
    r->statuses[r->nstatuses++] = (struct kv_status_count){ opcode, res, 1 };
}

void kv_report_op(struct kv_report *r, enum kv_kind kind, double end_s, uint64_t latency_ns,
                  int32_t res)
{
    struct kv_lat_list *l = &r->lat[kind];
    if (res) {
        r->failed_ops[kind]++;
    } else {
        if (l->n == l->cap) {
            uint64_t cap = l->cap ? 2 * l->cap : 4096;
            uint64_t *grown = realloc(l->ns, cap * sizeof(*grown));
            if (!grown) {
                fprintf(stderr, "kv-load: error: out of memory for latency samples\n");
                exit(1);
            }
            l->ns = grown;
            l->cap = cap;
        }
        l->ns[l->n++] = latency_ns;
    }
    if (r->csv) {
        fprintf(r->csv, "%.6f,%s,%.3f,%d\n", end_s, kv_kind_names[kind],
                (double)latency_ns / 1e3, res);
    }
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

uint64_t kv_report_percentile(struct kv_report *r, enum kv_kind kind, double p)
{
    struct kv_lat_list *l = &r->lat[kind];
    if (!l->n) {
        return 0;
    }
    qsort(l->ns, l->n, sizeof(*l->ns), cmp_u64);
    /* nearest rank: the smallest sample with at least p % of them at or below it */
    uint64_t rank = (uint64_t)(p / 100.0 * (double)l->n + 0.999999);
    rank = rank < 1 ? 1 : rank > l->n ? l->n : rank;
    return l->ns[rank - 1];
}

static uint64_t ops_total(const struct kv_report *r)
{
    uint64_t n = 0;
    for (int k = 0; k < KV_KINDS; k++) {
        n += r->lat[k].n + r->failed_ops[k];
    }
    return n;
}

uint64_t kv_report_errors(const struct kv_report *r)
{
    uint64_t n = r->other_statuses + r->wrong_values + r->wrong_lists;
    for (unsigned i = 0; i < r->nstatuses; i++) {
        n += r->statuses[i].count;
    }
    return n;
}

void kv_report_summary(struct kv_report *r, const struct kv_run_info *info, FILE *out)
{
    uint64_t ops = ops_total(r);
    fprintf(out, "kv-load: %s mix %s dist %s qd %u keys %llu value %llu B: %llu ops in "
            "%.3f s, %.1f ops/s", info->phase, info->mix, info->dist, info->qd,
            (unsigned long long)info->keys, (unsigned long long)info->value_size,
            (unsigned long long)ops, info->seconds,
            info->seconds > 0 ? (double)ops / info->seconds : 0.0);
    for (int k = 0; k < KV_KINDS; k++) {
        uint64_t n = r->lat[k].n + r->failed_ops[k];
        if (n) {
            fprintf(out, "; %s %llu p50 %.1f us p99 %.1f us", kv_kind_names[k],
                    (unsigned long long)n, kv_report_percentile(r, k, 50) / 1e3,
                    kv_report_percentile(r, k, 99) / 1e3);
        }
    }
    fprintf(out, "; errors %llu", (unsigned long long)kv_report_errors(r));
    for (unsigned i = 0; i < r->nstatuses; i++) {
        char text[96];
        kv_status_text(r->statuses[i].res, text, sizeof(text));
        fprintf(out, " (%s %s: %llu)", kv_opcode_name(r->statuses[i].opcode), text,
                (unsigned long long)r->statuses[i].count);
    }
    if (r->other_statuses) {
        fprintf(out, " (other statuses: %llu)", (unsigned long long)r->other_statuses);
    }
    if (r->wrong_values) {
        fprintf(out, " (wrong values: %llu)", (unsigned long long)r->wrong_values);
    }
    if (r->wrong_lists) {
        fprintf(out, " (wrong lists: %llu)", (unsigned long long)r->wrong_lists);
    }
    fprintf(out, "\n");
}

static const uint8_t kv_opcodes[] = { KV_OP_STORE, KV_OP_RETRIEVE, KV_OP_LIST, KV_OP_DELETE,
                                      KV_OP_EXIST };

int kv_report_json(struct kv_report *r, const struct kv_run_info *info, const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        return -1;
    }
    uint64_t ops = ops_total(r);
    fprintf(f, "{\n  \"phase\": \"%s\", \"mix\": \"%s\", \"dist\": \"%s\", \"qd\": %u,\n",
            info->phase, info->mix, info->dist, info->qd);
    fprintf(f, "  \"keys\": %llu, \"value_size\": %llu, \"ops\": %llu, \"seconds\": %.6f, "
            "\"ops_per_s\": %.3f,\n", (unsigned long long)info->keys,
            (unsigned long long)info->value_size, (unsigned long long)ops, info->seconds,
            info->seconds > 0 ? (double)ops / info->seconds : 0.0);
    fprintf(f, "  \"kinds\": {");
    const char *sep = "";
    for (int k = 0; k < KV_KINDS; k++) {
        uint64_t n = r->lat[k].n + r->failed_ops[k];
        if (n) {
            fprintf(f, "%s\n    \"%s\": {\"ops\": %llu, \"failed\": %llu, \"p50_us\": %.3f, "
                    "\"p99_us\": %.3f}", sep, kv_kind_names[k], (unsigned long long)n,
                    (unsigned long long)r->failed_ops[k],
                    kv_report_percentile(r, k, 50) / 1e3,
                    kv_report_percentile(r, k, 99) / 1e3);
            sep = ",";
        }
    }
    fprintf(f, "\n  },\n  \"commands\": {");
    sep = "";
    for (size_t i = 0; i < sizeof(kv_opcodes); i++) {
        uint8_t op = kv_opcodes[i];
        fprintf(f, "%s\n    \"%s\": {\"issued\": %llu, \"ok\": %llu}", sep, kv_opcode_name(op),
                (unsigned long long)r->issued[op], (unsigned long long)r->ok[op]);
        sep = ",";
    }
    fprintf(f, "\n  },\n  \"statuses\": [");
    sep = "";
    for (unsigned i = 0; i < r->nstatuses; i++) {
        char text[96];
        kv_status_text(r->statuses[i].res, text, sizeof(text));
        fprintf(f, "%s\n    {\"command\": \"%s\", \"res\": %d, \"status\": \"%s\", "
                "\"count\": %llu}", sep, kv_opcode_name(r->statuses[i].opcode),
                r->statuses[i].res, text, (unsigned long long)r->statuses[i].count);
        sep = ",";
    }
    fprintf(f, "\n  ],\n  \"other_statuses\": %llu, \"wrong_values\": %llu, "
            "\"wrong_lists\": %llu, \"errors\": %llu\n}\n",
            (unsigned long long)r->other_statuses, (unsigned long long)r->wrong_values,
            (unsigned long long)r->wrong_lists, (unsigned long long)kv_report_errors(r));
    return fclose(f) ? -1 : 0;
}

void kv_report_free(struct kv_report *r)
{
    for (int k = 0; k < KV_KINDS; k++) {
        free(r->lat[k].ns);
    }
    if (r->csv) {
        fclose(r->csv);
    }
}
