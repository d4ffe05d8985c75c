/*
 * What ftl-sim --kv counts of its requests, phase by phase (the load, the measured part):
 * operations by kind, each command's statuses, and the latency of each command served;
 * and --kv-log, one line per request in issue order, numbered as kv_gen.h numbers them,
 * with its key (a List's start key) in hex:
 *
 *   N store KEY STATUS
 *   N retrieve KEY STATUS [SIZE TAG]    (SIZE and TAG when STATUS is ok)
 *   N delete KEY STATUS | N exist KEY STATUS
 *   N list KEY STATUS COUNT [KEYHEX]... (the keys returned, in order)
 *
 * STATUS: ok, no_key, key_exists, capacity, value_size or key_size. The engine admits
 * each request at submission (ftl-sim sets no FTL_REQ_ADMITTED), so its status is
 * submit's; a Retrieve's size and tag and a List's keys are read from admission right
 * after (neither changes it).
 */
#ifndef FTL_SIM_KV_ACCOUNT_H
#define FTL_SIM_KV_ACCOUNT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "femu_ftl/engine.h"
#include "kv_gen.h"
#include "latency_hist.h"

#define KV_COMMANDS 5   /* store, retrieve, delete, exist, list */
#define KV_STATUSES 6   /* ok and the five KV errors */

extern const char *const kv_command_names[KV_COMMANDS];
extern const char *const kv_status_names[KV_STATUSES];

struct kv_phase_stats {
    uint64_t kinds[KV_KINDS];                   /* operations issued, by kind */
    uint64_t status[KV_COMMANDS][KV_STATUSES];  /* requests completed, by status */
    struct latency_hist latency[KV_COMMANDS];   /* the served ones (status ok) */
};

struct kv_account;

/* log_path NULL: no --kv-log. NULL with one line in err. */
struct kv_account *kv_account_create(struct ftl *ftl, const char *log_path, char *err,
                                     size_t errlen);
/* Count into stats from now on (the load phase's, then the measured part's). */
void kv_account_phase(struct kv_account *a, struct kv_phase_stats *stats);
/* Whether op is a KV command. */
bool kv_command(enum ftl_op op);
/* A status of the KV command set's rules (femu_ftl/kv.h), which the device answers too. */
bool kv_rule_status(int status);
/* A request the engine was given and the status submit returned: logged and counted;
 * -1 with the reason in err when the status is not a KV outcome or the log failed. */
int kv_account_issued(struct kv_account *a, const struct ftl_request *r, unsigned kind,
                      int status, char *err, size_t errlen);
/* A request completed: its status and latency. */
void kv_account_done(struct kv_account *a, enum ftl_op op, int status, uint64_t latency_ns);
/* Closes the log: 0, or -1 with the reason in err. */
int kv_account_close(struct kv_account *a, char *err, size_t errlen);

#endif
