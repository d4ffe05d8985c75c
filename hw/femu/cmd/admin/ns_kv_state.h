/*
 * The Key Value namespaces' values in a device state file (cmd/admin/ns_kv_state.c):
 * section DKVV, which the state file (top/state.c) writes and reads in pieces through the
 * part the top lists, after the FTL's sections (its checks read the restored FTL's KV
 * stores). Its layout: store/kv_values_state.h.
 */
#ifndef HW_FEMU_CMD_NS_KV_STATE_H
#define HW_FEMU_CMD_NS_KV_STATE_H

#include "femu.h"
#include "state_file.h"

#define FEMU_NS_KV_STATE_TAG    STATE_TAG('D', 'K', 'V', 'V')

/* DKVV's bound (0 without kv_ns_mb: no KV namespace, no section). */
uint64_t femu_ns_kv_state_max_bytes(FemuCtrl *n);
/* Save (engine_lock held, nothing queued for the FTL thread): the section's payload, from
 * the values and admission's key list. -1 with one line in err, or the writer's failure
 * (err untouched). */
int femu_ns_kv_state_write(FemuCtrl *n, struct state_writer *w, char *err, size_t errlen);
/* Restore, the FTL restored: the table's KV namespaces against the FTL's stores, then the
 * section's len bytes into their value stores, each value checked against admission's
 * record (size and tag). false with one line in err. */
bool femu_ns_kv_state_load(FemuCtrl *n, struct state_reader *r, uint64_t len, char *err,
                           size_t errlen);
/* A file without DKVV: refused if it has a KV namespace or store. */
bool femu_ns_kv_state_absent(FemuCtrl *n, char *err, size_t errlen);
/* A state without the device's sections (data=absent): refused with a KV namespace or
 * store, whose values it cannot hold. */
bool femu_ns_kv_state_ftl_only(FemuCtrl *n, char *err, size_t errlen);

#endif
