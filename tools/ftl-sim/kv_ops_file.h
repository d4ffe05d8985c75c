/*
 * --kv-ops-file: an explicit list of KV operations, one per line (docs/kv.md):
 *
 *   store KEYHEX SIZE [exist|absent]   a Store of SIZE bytes (only if the key exists /
 *                                      only if it is absent)
 *   retrieve KEYHEX | delete KEYHEX | exist KEYHEX
 *   list KEYHEX MAX                    up to MAX keys (0..KV_LIST_MAX) from KEYHEX on
 *
 * KEYHEX is the key's 1-16 bytes in hex; SIZE a decimal byte count below 2^32. Blank
 * lines and lines starting with '#' are skipped. Operation n (1-based, in file order)
 * stores tag n. Every field is checked: a bad line is one error naming file and line.
 */
#ifndef FTL_SIM_KV_OPS_FILE_H
#define FTL_SIM_KV_OPS_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "femu_ftl/engine.h"

#define KV_LIST_MAX 65536u  /* the most keys one list of the file asks for */

struct kv_op {
    enum ftl_op op;             /* FTL_OP_KV_* */
    struct ftl_kv_key key;
    uint32_t arg;               /* store: the value's size; list: MAX */
    unsigned flags;             /* store: FTL_KV_ONLY_IF_* */
};

struct kv_ops {
    struct kv_op *ops;
    size_t n;
};

/* The whole file into out: 0, or -1 with "FILE:LINE: why" (or why it cannot be read). */
int kv_ops_file_read(const char *path, struct kv_ops *out, char *err, size_t errlen);
void kv_ops_free(struct kv_ops *ops);

#endif
