/* Unit tests for trace version 6 (the key-value stores): the writer's KS, KR, KD, KE and
 * KL records and a store's life (KC, KX), the version each needs and which a recording
 * picks, tools/trace-in's reader reading them back field for field, and every field's
 * range refused in one line naming the file and line (a version-5 trace holding one among
 * them). */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L     /* mkstemp, fdopen */
#endif
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "temp_file.h"
#include "femu_trace.h"

#define TRACE_TEST_PREFIX "sim-trace6"
#include "trace_test_util.h"

static struct ftl_kv_key key_of(const char *bytes, uint8_t len)
{
    struct ftl_kv_key k = { .len = len };
    memcpy(k.bytes, bytes, len);
    return k;
}

/* Every KV record written and read back as the request it was; the admitted flag and
 * other flags are not the store's options, so they are not written. */
static void test_writer_round_trip_v6(void)
{
    char err[512] = "", text[2048];
    const struct ftl_request reqs[] = {
        { .op = FTL_OP_KV_STORE, .arrival_ns = 10, .nsid = 2, .key = key_of("\x00\xab", 2),
          .kv_bytes = 4096, .value_tag = UINT64_MAX,
          .flags = FTL_KV_ONLY_IF_ABSENT | FTL_REQ_ADMITTED },
        { .op = FTL_OP_KV_STORE, .arrival_ns = 11, .nsid = 2,
          .key = key_of("0123456789abcdef", 16), .kv_bytes = 1, .value_tag = 7,
          .flags = FTL_KV_ONLY_IF_EXISTS },
        { .op = FTL_OP_KV_RETRIEVE, .arrival_ns = 20, .nsid = 2, .key = key_of("k", 1),
          .kv_bytes = 512 },
        { .op = FTL_OP_KV_DELETE, .arrival_ns = 30, .nsid = 3, .key = key_of("\xff", 1) },
        { .op = FTL_OP_KV_EXIST, .arrival_ns = 40, .nsid = 2, .key = key_of("ab", 2) },
        { .op = FTL_OP_KV_LIST, .arrival_ns = 50, .nsid = 2, .key = key_of("a", 1),
          .kv_bytes = 100 },
        { .op = FTL_OP_WRITE, .arrival_ns = 60, .slba = 1, .nlb = 1 },
        { .op = FTL_OP_KV_CREATE, .arrival_ns = 61, .nsid = 3, .slba = 1024, .nlb = 2048,
          .kv_capacity = UINT64_MAX, .flags = FTL_REQ_ADMITTED },
        { .op = FTL_OP_KV_DESTROY, .arrival_ns = 62, .nsid = 3 },
    };
    struct trace_record r;
    const char *path = record_requests(6, 512, reqs, sizeof(reqs) / sizeof(reqs[0]), 70, text,
                                       sizeof(text));
    if (path == NULL) {
        return;
    }
    CHECK(strncmp(text, "V 6\n", 4) == 0);
    CHECK_CONTAINS(text, "\nKS 10 2 00ab 4096 18446744073709551615 256\n"
                         "KS 11 2 30313233343536373839616263646566 1 7 128\n"
                         "KR 20 2 6b 512\nKD 30 3 ff\nKE 40 2 6162\nKL 50 2 61 100\n"
                         "W 60 1 1 1 0\nKC 61 3 1024 2048 18446744073709551615\n"
                         "KX 62 3\nE 70\n");

    struct trace_reader *t = OPEN_TRACE(path, 6);
    if (t == NULL) {
        return;
    }
    static const enum trace_op ops[] = { TRACE_KV_STORE, TRACE_KV_STORE, TRACE_KV_RETRIEVE,
                                         TRACE_KV_DELETE, TRACE_KV_EXIST, TRACE_KV_LIST };
    for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
        const struct ftl_request *q = &reqs[i];
        CHECK(trace_next(t, &r, err, sizeof(err)) == 1);
        CHECK(r.op == ops[i] && r.time_ns == q->arrival_ns && r.nsid == q->nsid);
        CHECK(r.key.len == q->key.len && memcmp(&r.key, &q->key, sizeof(r.key)) == 0);
        CHECK(r.op == TRACE_KV_DELETE || r.op == TRACE_KV_EXIST ? r.kv_bytes == 0
                                                               : r.kv_bytes == q->kv_bytes);
        CHECK(r.value_tag == (r.op == TRACE_KV_STORE ? q->value_tag : 0));
        CHECK(r.kv_flags == (q->flags & IO_TRACE_KV_FLAGS));
    }
    CHECK(trace_next(t, &r, err, sizeof(err)) == 1 && r.op == TRACE_WRITE);
    CHECK(trace_next(t, &r, err, sizeof(err)) == 1 && r.op == TRACE_KV_CREATE &&
          r.time_ns == 61 && r.nsid == 3 && r.lba == 1024 && r.nsect == 2048 &&
          r.kv_capacity == UINT64_MAX);
    CHECK(trace_next(t, &r, err, sizeof(err)) == 1 && r.op == TRACE_KV_DESTROY &&
          r.time_ns == 62 && r.nsid == 3);
    CHECK(trace_next(t, &r, err, sizeof(err)) == 1 && r.op == TRACE_END);
    CHECK(trace_next(t, &r, err, sizeof(err)) == 0);
    trace_close(t);
    unlink(path);
}

/* Version 5 and older have no KV record (a command's nor a store's life): the writer fails
 * once, naming version 6; a key of 0 or 17 bytes has no record in any version. */
static void test_writer_refuses(void)
{
    /* versions 2 to 5 with a good key, version 6 with keys of 0 and 17 bytes, then a
     * store's creation and end in version 5 */
    static const struct {
        int version;
        enum ftl_op op;
        uint8_t len;
        const char *want;
    } cases[] = {
        { 2, FTL_OP_KV_EXIST, 1, "a key-value command needs a version-6 trace" },
        { 3, FTL_OP_KV_EXIST, 1, "a key-value command needs a version-6 trace" },
        { 4, FTL_OP_KV_EXIST, 1, "a key-value command needs a version-6 trace" },
        { 5, FTL_OP_KV_EXIST, 1, "a key-value command needs a version-6 trace" },
        { 6, FTL_OP_KV_EXIST, 0, "a key-value command with a key of 0 bytes has no record" },
        { 6, FTL_OP_KV_EXIST, 17, "a key-value command with a key of 17 bytes has no record" },
        { 5, FTL_OP_KV_CREATE, 0, "a key-value command needs a version-6 trace" },
        { 5, FTL_OP_KV_DESTROY, 0, "a key-value command needs a version-6 trace" },
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct ftl_request r = { .op = cases[i].op, .arrival_ns = 5, .nlb = 8,
                                 .kv_capacity = 1,
                                 .key = { .len = cases[i].len, .bytes = "a" } };
        EXPECT_WRITER_REFUSES(cases[i].version, &r, cases[i].want);
    }
}

/* 6 only when KV commands may come: every other recording keeps its version. */
static void test_version_choice(void)
{
    for (int b = 0; b < 8; b++) {
        bool zone = b & 1, fdp = b & 2, wc = b & 4;
        CHECK(io_trace_version_kv(false, zone, fdp, wc) ==
              io_trace_version_needed(zone, fdp, wc));
        CHECK(io_trace_version_kv(true, zone, fdp, wc) == 6);
    }
}

static void test_version6_errors(void)
{
    EXPECT_ERROR("V 5\nW 0 1 8 1 0\nKS 0 1 61 1 0 0\n", 1, 3,
                 "KS: a key-value record needs a version-6 trace (this one is version 5)");
    EXPECT_ERROR("V 2\nKL 0 1 61 5\n", 0, 2, "KL: a key-value record needs a version-6");
    EXPECT_ERROR("KE 0 1 61\n", 0, 1, "unknown op 'KE'");
    EXPECT_ERROR("V 6\nKS 0 1 61 1 0\n", 0, 2, "KS: too few fields (want KS t nsid key "
                 "bytes tag flags)");
    EXPECT_ERROR("V 6\nKD 0 1 61 5\n", 0, 2, "KD: trailing junk '5'");
    EXPECT_ERROR("V 6\nKR 0 1 61\n", 0, 2, "KR: too few fields (want KR t nsid key bytes)");
    EXPECT_ERROR("V 6\nKE 0 0 61\n", 0, 2, "nsid 0 is not a namespace id");
    EXPECT_ERROR("V 6\nKE 9007199254740993 1 61\n", 0, 2, "time 9007199254740993 ns");
    EXPECT_ERROR("V 6\nKE 0 1 6\n", 0, 2, "KE: key '6' is not 1 to 16 bytes in hex");
    EXPECT_ERROR("V 6\nKE 0 1 -\n", 0, 2, "KE: key '-' is not 1 to 16 bytes in hex");
    EXPECT_ERROR("V 6\nKE 0 1 000102030405060708090a0b0c0d0e0f10\n", 0, 2,
                 "is not 1 to 16 bytes in hex");
    EXPECT_ERROR("V 6\nKE 0 1 6g\n", 0, 2, "KE: key '6g' is not hex");
    EXPECT_ERROR("V 6\nKS 0 1 61 4294967296 0 0\n", 0, 2, "KS: bytes 4294967296 is over "
                 "4294967295");
    EXPECT_ERROR("V 6\nKS 0 1 61 1 18446744073709551616 0\n", 0, 2,
                 "KS: tag '18446744073709551616' does not fit in 64 bits");
    EXPECT_ERROR("V 6\nKS 0 1 61 1 0 1\n", 0, 2, "KS: flags 1 hold more than the store "
                 "options");
    EXPECT_ERROR("V 6\nKS 0 1 61 1 0 640\n", 0, 2, "KS: flags 640 hold more");
    EXPECT_ERROR("V 6\nKS 0 1 61 x 0 0\n", 0, 2, "KS: bytes 'x' is not a decimal number");
    EXPECT_ERROR("V 6\nKL 0 1 61 -1\n", 0, 2, "KL: max '-1' is not a decimal number");
    EXPECT_ERROR("V 6\nKR 0 1 61 99999999999\n", 0, 2, "KR: bytes 99999999999 is over");
    EXPECT_ERROR("V 6\nE 5\nKE 6 1 61\n", 1, 3, "KE after the end record E");
    EXPECT_ERROR("V 5\nKC 0 1 0 8 100\n", 0, 2, "KC: a key-value record needs a version-6");
    EXPECT_ERROR("V 6\nKC 0 1 0 8\n", 0, 2, "KC: too few fields (want KC t nsid lba nsect "
                 "capacity)");
    EXPECT_ERROR("V 6\nKX 0 1 5\n", 0, 2, "KX: trailing junk '5'");
    EXPECT_ERROR("V 6\nKC 0 1 0 0 100\n", 0, 2, "KC: nsect is 0");
    EXPECT_ERROR("V 6\nKC 0 1 0 8 0\n", 0, 2, "KC: capacity is 0");
    EXPECT_ERROR("V 6\nKC 0 1 18446744073709551615 8 5\n", 0, 2,
                 "KC: lba + nsect overflows 64 bits");
    EXPECT_ERROR("V 6\nKC 0 1 0 8 -5\n", 0, 2, "KC: capacity '-5' is not a decimal number");
    EXPECT_ERROR("V 6\nKX 0 0\n", 0, 2, "nsid 0 is not a namespace id");
    EXPECT_ERROR("V 6\nQ 0\n", 0, 2, "version 6: KS KR KD KE KL KC KX; fields");
    EXPECT_ERROR("V 9\n", 0, 1, "trace version 9 is not supported (this reader knows 1 to 8)");
}

/* Both store options at once, both key cases, and no KV record at all: version 6 reads
 * as version 5 would. */
static void test_version6_reads(void)
{
    char err[512] = "";
    const char *path = write_str("V 6\nKS 3 4 AbCd 0 0 384\nW 4 8 8 1 0 fua\nWC 5 1 1\n");
    struct trace_reader *t = OPEN_TRACE(path, 0);
    struct trace_record r;

    if (t == NULL) {
        return;
    }
    CHECK(trace_next(t, &r, err, sizeof(err)) == 1);
    CHECK(r.op == TRACE_KV_STORE && r.nsid == 4 && r.key.len == 2 && r.key.bytes[0] == 0xab &&
          r.key.bytes[1] == 0xcd && r.key.bytes[2] == 0 && r.kv_bytes == 0 &&
          r.kv_flags == (FTL_KV_ONLY_IF_EXISTS | FTL_KV_ONLY_IF_ABSENT));
    CHECK(trace_next(t, &r, err, sizeof(err)) == 1 && r.op == TRACE_WRITE && r.fua);
    CHECK(trace_next(t, &r, err, sizeof(err)) == 1 && r.op == TRACE_WRITE_CACHE && r.wce);
    CHECK(trace_next(t, &r, err, sizeof(err)) == 0);
    trace_close(t);
    unlink(path);
}

int main(void)
{
    test_writer_round_trip_v6();
    test_writer_refuses();
    test_version_choice();
    test_version6_errors();
    test_version6_reads();
    return check_summary();
}
