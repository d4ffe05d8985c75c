/* ftl-sim --kv's per-request accounting and --kv-log (kv_account.h). */
#include "kv_account.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kv_keys.h"
#include "kv_ops_file.h"
#include "kv_spec.h"

const char *const kv_command_names[KV_COMMANDS] = { "store", "retrieve", "delete", "exist",
                                                    "list" };
const char *const kv_status_names[KV_STATUSES] = { "ok", "no_key", "key_exists", "capacity",
                                                   "value_size", "key_size" };

struct kv_account {
    struct ftl *ftl;
    FILE *log;
    const char *log_path;
    struct kv_phase_stats *stats;
    uint64_t number;            /* requests issued so far (kv_gen.h numbers them alike) */
    struct ftl_kv_key *listed;  /* a List's keys, for the log */
};

bool kv_command(enum ftl_op op)
{
    return op >= FTL_OP_KV_STORE && op <= FTL_OP_KV_LIST;
}

bool kv_rule_status(int status)
{
    return status == FTL_E_KV_NO_KEY || status == FTL_E_KV_KEY_EXISTS ||
           status == FTL_E_KV_CAPACITY || status == FTL_E_KV_VALUE_SIZE ||
           status == FTL_E_KV_KEY_SIZE;
}

/* The command's row and the status's column; -1 for a status that is no KV outcome. */
static int status_index(int status)
{
    switch (status) {
    case FTL_OK: return 0;
    case FTL_E_KV_NO_KEY: return 1;
    case FTL_E_KV_KEY_EXISTS: return 2;
    case FTL_E_KV_CAPACITY: return 3;
    case FTL_E_KV_VALUE_SIZE: return 4;
    case FTL_E_KV_KEY_SIZE: return 5;
    default: return -1;
    }
}

struct kv_account *kv_account_create(struct ftl *ftl, const char *log_path, char *err,
                                     size_t errlen)
{
    struct kv_account *a = calloc(1, sizeof(*a));
    if (a && log_path) {
        a->listed = calloc(KV_LIST_MAX > KV_SCAN_MAX ? KV_LIST_MAX : KV_SCAN_MAX,
                           sizeof(*a->listed));
    }
    if (!a || (log_path && !a->listed)) {
        snprintf(err, errlen, "out of memory");
        free(a);
        return NULL;
    }
    a->ftl = ftl;
    a->log_path = log_path;
    if (log_path && !(a->log = fopen(log_path, "w"))) {
        snprintf(err, errlen, "--kv-log %s: cannot create: %s", log_path, strerror(errno));
        free(a->listed);
        free(a);
        return NULL;
    }
    return a;
}

void kv_account_phase(struct kv_account *a, struct kv_phase_stats *stats)
{
    a->stats = stats;
    for (int c = 0; c < KV_COMMANDS; c++) {
        latency_hist_init(&stats->latency[c]);
    }
}

/* The log's line for request n (after its status), what admission says now. */
static void log_result(struct kv_account *a, const struct ftl_request *r, int status)
{
    char hex[KV_KEY_HEX_MAX];
    if (r->op == FTL_OP_KV_RETRIEVE && status == FTL_OK) {
        uint32_t bytes = 0;
        uint64_t tag = 0;
        ftl_kv_admit_retrieve(a->ftl, r->nsid, &r->key, &bytes, &tag);
        fprintf(a->log, " %u %llu", bytes, (unsigned long long)tag);
    } else if (r->op == FTL_OP_KV_LIST && status == FTL_OK) {
        uint32_t n = 0, max = r->kv_bytes < KV_LIST_MAX ? r->kv_bytes : KV_LIST_MAX;
        ftl_kv_admit_list(a->ftl, r->nsid, &r->key, a->listed, max, &n);
        fprintf(a->log, " %u", n);
        for (uint32_t i = 0; i < n; i++) {
            kv_key_to_hex(&a->listed[i], hex);
            fprintf(a->log, " %s", hex);
        }
    } else if (r->op == FTL_OP_KV_LIST) {
        fputs(" 0", a->log);
    }
}

int kv_account_issued(struct kv_account *a, const struct ftl_request *r, unsigned kind,
                      int status, char *err, size_t errlen)
{
    int s = status_index(status);
    a->number++;
    if (s < 0) {
        snprintf(err, errlen, "KV %s of request %llu failed: %s",
                 kv_command_names[r->op - FTL_OP_KV_STORE], (unsigned long long)a->number,
                 ftl_status_str(status));
        return -1;
    }
    if (kind < KV_KINDS) {
        a->stats->kinds[kind]++;
    }
    if (!a->log) {
        return 0;
    }
    char hex[KV_KEY_HEX_MAX];
    kv_key_to_hex(&r->key, hex);
    fprintf(a->log, "%llu %s %s %s", (unsigned long long)a->number,
            kv_command_names[r->op - FTL_OP_KV_STORE], hex, kv_status_names[s]);
    log_result(a, r, status);
    if (fputc('\n', a->log) == EOF) {
        snprintf(err, errlen, "--kv-log %s: write failed", a->log_path);
        return -1;
    }
    return 0;
}

void kv_account_done(struct kv_account *a, enum ftl_op op, int status, uint64_t latency_ns)
{
    int s = status_index(status), c = (int)op - FTL_OP_KV_STORE;
    if (s < 0 || c < 0 || c >= KV_COMMANDS) {
        return;
    }
    a->stats->status[c][s]++;
    if (s == 0) {
        latency_hist_add(&a->stats->latency[c], latency_ns);
    }
}

int kv_account_close(struct kv_account *a, char *err, size_t errlen)
{
    int rc = 0;
    if (a && a->log && fclose(a->log)) {
        snprintf(err, errlen, "--kv-log %s: write failed", a->log_path);
        rc = -1;
    }
    if (a) {
        free(a->listed);
        free(a);
    }
    return rc;
}
