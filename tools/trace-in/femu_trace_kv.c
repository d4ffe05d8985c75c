/*
 * femu_trace_kv.c - version 6's key-value records (KS, KR, KD, KE, KL, and a store's
 * life KC, KX; the format: hw/femu/ftl/include/femu_ftl/trace.h): each field
 * range-checked, the key from hex.
 * An older version's trace holding one is refused with the version it would need.
 */
#include "femu_trace.h"
#include "femu_trace_reader.h"

#include <stdbool.h>
#include <string.h>

static const struct {
    const char *name;
    enum trace_op op;
    int fields;         /* the record's fields, its name included */
    const char *usage;
} kv_records[] = {
    { "KS", TRACE_KV_STORE, 7, "KS t nsid key bytes tag flags" },
    { "KR", TRACE_KV_RETRIEVE, 5, "KR t nsid key bytes" },
    { "KD", TRACE_KV_DELETE, 4, "KD t nsid key" },
    { "KE", TRACE_KV_EXIST, 4, "KE t nsid key" },
    { "KL", TRACE_KV_LIST, 5, "KL t nsid key max" },
    { "KC", TRACE_KV_CREATE, 6, "KC t nsid lba nsect capacity" },
    { "KX", TRACE_KV_DESTROY, 3, "KX t nsid" },
};
#define KV_RECORDS (sizeof(kv_records) / sizeof(kv_records[0]))

int trace_kv_op(const char *name)
{
    for (size_t i = 0; i < KV_RECORDS; i++) {
        if (strcmp(name, kv_records[i].name) == 0) {
            return (int)i;
        }
    }
    return -1;
}

static int hex_digit(char c)
{
    return c >= '0' && c <= '9' ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* The key: an even count of hex digits, 1 to FTL_KV_KEY_MAX bytes; bytes past it zero. */
static int parse_key(struct trace_reader *t, const char *name, const char *field,
                     struct ftl_kv_key *key, char *err, size_t errlen)
{
    size_t digits = strlen(field);

    if (digits == 0 || digits % 2 != 0 || digits > 2 * FTL_KV_KEY_MAX) {
        return trace_fail(t, err, errlen, "%s: key '%.40s' is not 1 to %d bytes in hex "
                          "(an even count of digits)", name, field, FTL_KV_KEY_MAX);
    }
    memset(key, 0, sizeof(*key));
    for (size_t i = 0; i < digits; i += 2) {
        int hi = hex_digit(field[i]), lo = hex_digit(field[i + 1]);
        if (hi < 0 || lo < 0) {
            return trace_fail(t, err, errlen, "%s: key '%.40s' is not hex", name, field);
        }
        key->bytes[i / 2] = (uint8_t)(hi << 4 | lo);
    }
    key->len = (uint8_t)(digits / 2);
    return 0;
}

/* KS's fields after the key: bytes tag flags, flags only the two store options. */
static int parse_store(struct trace_reader *t, char **f, struct trace_record *r, char *err,
                       size_t errlen)
{
    uint64_t bytes, flags;

    if (trace_parse_number(t, f[0], "KS: bytes", UINT32_MAX, &bytes, err, errlen) != 0 ||
        trace_parse_number(t, f[1], "KS: tag", UINT64_MAX, &r->value_tag, err, errlen) != 0 ||
        trace_parse_number(t, f[2], "KS: flags", UINT32_MAX, &flags, err, errlen) != 0) {
        return -1;
    }
    if (flags & ~(uint64_t)IO_TRACE_KV_FLAGS) {
        return trace_fail(t, err, errlen, "KS: flags %.32s hold more than the store options "
                          "(0, %u only if the key exists, %u only if it does not, or both)",
                          f[2], FTL_KV_ONLY_IF_EXISTS, FTL_KV_ONLY_IF_ABSENT);
    }
    r->kv_bytes = (uint32_t)bytes;
    r->kv_flags = (unsigned)flags;
    return 0;
}

/* KC's fields after the nsid: lba nsect capacity, a range of whole sectors that does not
 * wrap and a capacity of at least one byte. */
static int parse_create(struct trace_reader *t, char **f, struct trace_record *r, char *err,
                        size_t errlen)
{
    if (trace_parse_number(t, f[0], "KC: lba", UINT64_MAX, &r->lba, err, errlen) != 0 ||
        trace_parse_number(t, f[1], "KC: nsect", UINT64_MAX, &r->nsect, err, errlen) != 0 ||
        trace_parse_number(t, f[2], "KC: capacity", UINT64_MAX, &r->kv_capacity, err,
                           errlen) != 0) {
        return -1;
    }
    if (r->nsect == 0 || r->kv_capacity == 0) {
        return trace_fail(t, err, errlen, "KC: %s is 0", r->nsect == 0 ? "nsect" : "capacity");
    }
    if (r->lba > UINT64_MAX - r->nsect) {
        return trace_fail(t, err, errlen, "KC: lba + nsect overflows 64 bits");
    }
    return 0;
}

int trace_parse_kv(struct trace_reader *t, char **f, int n, struct trace_record *r,
                   char *err, size_t errlen)
{
    int k = trace_kv_op(f[0]);
    const char *name = kv_records[k].name;
    uint64_t v;

    if (t->version < 6) {
        return trace_fail(t, err, errlen, "%s: a key-value record needs a version-6 trace "
                          "(this one is version %d)", name, t->version);
    }
    if (t->ended) {
        return trace_fail(t, err, errlen, "%s after the end record E", name);
    }
    if (n < kv_records[k].fields) {
        return trace_fail(t, err, errlen, "%s: too few fields (want %s)", name,
                          kv_records[k].usage);
    }
    if (n > kv_records[k].fields) {
        return trace_fail(t, err, errlen, "%s: trailing junk '%.32s'", name,
                          f[kv_records[k].fields]);
    }
    r->op = kv_records[k].op;
    if (trace_parse_time(t, f[1], &r->time_ns, err, errlen) != 0 ||
        trace_parse_nsid(t, f[2], &r->nsid, err, errlen) != 0) {
        return -1;
    }
    if (r->op == TRACE_KV_CREATE) {
        return parse_create(t, f + 3, r, err, errlen);
    }
    if (r->op == TRACE_KV_DESTROY) {
        return 0;
    }
    if (parse_key(t, name, f[3], &r->key, err, errlen) != 0) {
        return -1;
    }
    switch (r->op) {
    case TRACE_KV_STORE:
        return parse_store(t, f + 4, r, err, errlen);
    case TRACE_KV_RETRIEVE:
    case TRACE_KV_LIST:
        if (trace_parse_number(t, f[4], r->op == TRACE_KV_LIST ? "KL: max" : "KR: bytes",
                               UINT32_MAX, &v, err, errlen) != 0) {
            return -1;
        }
        r->kv_bytes = (uint32_t)v;
        return 0;
    default:
        return 0;
    }
}
