/* --kv-ops-file's reader (kv_ops_file.h). */
#include "kv_ops_file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kv_keys.h"

#define MAX_FIELDS 5

/* A decimal number in [0, max] with nothing else: 0, or -1. */
static int decimal(const char *text, uint64_t max, uint64_t *out)
{
    char *end;
    if (*text < '0' || *text > '9') {
        return -1;
    }
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (*end || errno || v > max) {
        return -1;
    }
    *out = v;
    return 0;
}

/* One operation's fields into op; NULL, or why the line is refused. */
static const char *parse_fields(char **f, int n, struct kv_op *op, char *why, size_t whylen)
{
    static const struct { const char *name; enum ftl_op op; int min, max; } kinds[] = {
        { "store", FTL_OP_KV_STORE, 3, 4 }, { "retrieve", FTL_OP_KV_RETRIEVE, 2, 2 },
        { "delete", FTL_OP_KV_DELETE, 2, 2 }, { "exist", FTL_OP_KV_EXIST, 2, 2 },
        { "list", FTL_OP_KV_LIST, 3, 3 },
    };
    size_t k = 0;
    while (k < sizeof(kinds) / sizeof(kinds[0]) && strcmp(f[0], kinds[k].name)) {
        k++;
    }
    if (k == sizeof(kinds) / sizeof(kinds[0])) {
        snprintf(why, whylen, "unknown operation '%s' (store, retrieve, delete, exist, list)",
                 f[0]);
        return why;
    }
    if (n < kinds[k].min || n > kinds[k].max) {
        snprintf(why, whylen, "%s takes %d to %d fields, got %d", f[0], kinds[k].min,
                 kinds[k].max, n);
        return why;
    }
    *op = (struct kv_op){ .op = kinds[k].op };
    if (kv_key_from_hex(f[1], &op->key)) {
        snprintf(why, whylen, "key '%s' is not 1-16 bytes in hex (an even count of digits)",
                 f[1]);
        return why;
    }
    uint64_t v = 0;
    if (op->op == FTL_OP_KV_STORE && decimal(f[2], UINT32_MAX, &v)) {
        snprintf(why, whylen, "size '%s' is not a whole number below 2^32", f[2]);
        return why;
    }
    if (op->op == FTL_OP_KV_LIST && decimal(f[2], KV_LIST_MAX, &v)) {
        snprintf(why, whylen, "MAX '%s' is not a whole number in [0, %u]", f[2], KV_LIST_MAX);
        return why;
    }
    op->arg = (uint32_t)v;
    if (n == 4) {
        if (strcmp(f[3], "exist") && strcmp(f[3], "absent")) {
            snprintf(why, whylen, "store option '%s' is not exist or absent", f[3]);
            return why;
        }
        op->flags = !strcmp(f[3], "exist") ? FTL_KV_ONLY_IF_EXISTS : FTL_KV_ONLY_IF_ABSENT;
    }
    return NULL;
}

/* A line split on blanks: how many fields (MAX_FIELDS + 1: too many). */
static int split(char *line, char **f)
{
    int n = 0;
    for (char *t = strtok(line, " \t\r\n"); t; t = strtok(NULL, " \t\r\n")) {
        if (n == MAX_FIELDS) {
            return MAX_FIELDS + 1;
        }
        f[n++] = t;
    }
    return n;
}

static int append(struct kv_ops *out, size_t *cap, const struct kv_op *op)
{
    if (out->n == *cap) {
        size_t ncap = *cap ? 2 * *cap : 1024;
        struct kv_op *grown = realloc(out->ops, ncap * sizeof(*grown));
        if (!grown) {
            return -1;
        }
        out->ops = grown;
        *cap = ncap;
    }
    out->ops[out->n++] = *op;
    return 0;
}

int kv_ops_file_read(const char *path, struct kv_ops *out, char *err, size_t errlen)
{
    *out = (struct kv_ops){ 0 };
    FILE *fp = fopen(path, "r");
    if (!fp) {
        snprintf(err, errlen, "--kv-ops-file %s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    char line[512], why[256];
    size_t cap = 0;
    int rc = 0;
    for (unsigned long no = 1; rc == 0 && fgets(line, sizeof(line), fp); no++) {
        if (!strchr(line, '\n') && !feof(fp)) {
            snprintf(err, errlen, "%s:%lu: line too long", path, no);
            rc = -1;
            break;
        }
        char *f[MAX_FIELDS];
        struct kv_op op;
        int n = line[0] == '#' ? 0 : split(line, f);
        const char *bad = n == 0 ? NULL
                          : n > MAX_FIELDS ? "too many fields"
                          : parse_fields(f, n, &op, why, sizeof(why));
        if (bad) {
            snprintf(err, errlen, "%s:%lu: %s", path, no, bad);
            rc = -1;
        } else if (n > 0 && append(out, &cap, &op)) {
            snprintf(err, errlen, "--kv-ops-file %s: out of memory", path);
            rc = -1;
        }
    }
    if (rc == 0 && ferror(fp)) {
        snprintf(err, errlen, "--kv-ops-file %s: read error", path);
        rc = -1;
    }
    fclose(fp);
    if (rc) {
        kv_ops_free(out);
    }
    return rc;
}

void kv_ops_free(struct kv_ops *ops)
{
    free(ops->ops);
    *ops = (struct kv_ops){ 0 };
}
