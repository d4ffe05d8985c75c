/*
 * kv-load's command encoding, checked byte for byte against submission queue entries
 * written out by hand from the NVMe Key Value Command Set's layout (kv_cmd.h); List's
 * buffer and the value bytes.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "kv_cmd.h"
#include "kv_mix.h"
#include "kv_value.h"

/* The 64-byte SQE Linux sends for an nvme_uring_cmd (the fields it copies, in their
 * places; the data pointer becomes PRPs, which the test leaves zero). */
static void sqe_of(const struct nvme_uring_cmd *c, uint8_t sqe[64])
{
    uint32_t dw[16] = { 0 };
    dw[0] = c->opcode | (uint32_t)c->flags << 8;
    dw[1] = c->nsid;
    dw[2] = c->cdw2;
    dw[3] = c->cdw3;
    dw[10] = c->cdw10;
    dw[11] = c->cdw11;
    dw[12] = c->cdw12;
    dw[13] = c->cdw13;
    dw[14] = c->cdw14;
    dw[15] = c->cdw15;
    for (int i = 0; i < 16; i++) {
        for (int b = 0; b < 4; b++) {
            sqe[4 * i + b] = (uint8_t)(dw[i] >> (8 * b));
        }
    }
}

static struct kv_key key_of(const char *text)
{
    struct kv_key k = { .len = (uint8_t)strlen(text) };
    memcpy(k.bytes, text, k.len);
    return k;
}

static void test_store_sqe(void)
{
    static uint8_t value[1024];
    struct nvme_uring_cmd c;
    uint8_t got[64], want[64] = { 0 };
    struct kv_key key = key_of("user000000000042");
    kv_cmd_encode(&c, KV_OP_STORE, 3, &key, value, sizeof(value), KV_STORE_NO_OVERWRITE);
    sqe_of(&c, got);
    want[0] = 0x01;                           /* Store */
    want[4] = 3;                              /* NSID */
    memcpy(want + 8, "user0000", 8);          /* key bytes 0..7: CDW2-3 */
    want[40] = 0x00;                          /* CDW10: value size 1024 */
    want[41] = 0x04;
    want[44] = 16;                            /* CDW11 7:0: key length */
    want[45] = 0x02;                          /* CDW11 bit 9: No Overwrite */
    memcpy(want + 56, "00000042", 8);         /* key bytes 8..15: CDW14-15 */
    CHECK(memcmp(got, want, 64) == 0);
    CHECK(c.addr == (uint64_t)(uintptr_t)value);
    CHECK_EQ_U64(c.data_len, 1024);
}

static void test_short_key_retrieve_sqe(void)
{
    static uint8_t buf[4096];
    struct nvme_uring_cmd c;
    uint8_t got[64], want[64] = { 0 };
    struct kv_key key = key_of("abcde");
    /* Store Options are a Store's only: a Retrieve ignores them */
    kv_cmd_encode(&c, KV_OP_RETRIEVE, 1, &key, buf, sizeof(buf), KV_STORE_OVERWRITE_ONLY);
    sqe_of(&c, got);
    want[0] = 0x02;
    want[4] = 1;
    memcpy(want + 8, "abcde", 5);             /* the rest of CDW2-3 and CDW14-15 zero */
    want[41] = 0x10;                          /* CDW10: buffer 4096 */
    want[44] = 5;
    CHECK(memcmp(got, want, 64) == 0);
    CHECK_EQ_U64(c.data_len, 4096);
}

static void test_delete_exist_list_sqes(void)
{
    struct nvme_uring_cmd c;
    uint8_t got[64], want[64] = { 0 };
    struct kv_key key = key_of("0123456789abcdef");
    kv_cmd_encode(&c, KV_OP_DELETE, 2, &key, NULL, 0, 0);
    sqe_of(&c, got);
    want[0] = 0x10;
    want[4] = 2;
    memcpy(want + 8, "01234567", 8);
    want[44] = 16;
    memcpy(want + 56, "89abcdef", 8);
    CHECK(memcmp(got, want, 64) == 0);
    CHECK(c.addr == 0 && c.data_len == 0);

    kv_cmd_encode(&c, KV_OP_EXIST, 2, &key, NULL, 0, 0);
    sqe_of(&c, got);
    want[0] = 0x14;
    CHECK(memcmp(got, want, 64) == 0);

    static uint8_t buf[2004];
    kv_cmd_encode(&c, KV_OP_LIST, 2, &key, buf, sizeof(buf), 0);
    sqe_of(&c, got);
    want[0] = 0x06;
    want[40] = 2004 & 0xff;
    want[41] = 2004 >> 8;
    CHECK(memcmp(got, want, 64) == 0);
    CHECK_EQ_U64(kv_list_buffer_bytes(100, 16), 2004);   /* 4 + 100 x (2 + 16 -> 20) */
    CHECK_EQ_U64(kv_list_buffer_bytes(1, 5), 12);        /* 4 + (2 + 5 -> 8) */
}

static void test_list_parse(void)
{
    /* two keys: "ab" (2 + 2 = 4 bytes) and "xyz" (2 + 3, padded to 8) */
    uint8_t buf[32] = { 2, 0, 0, 0, 2, 0, 'a', 'b', 3, 0, 'x', 'y', 'z', 0, 0, 0 };
    struct kv_key keys[4];
    unsigned n = 0;
    CHECK(kv_list_parse(buf, 16, keys, 4, &n) == 0);
    CHECK_EQ_U64(n, 2);
    CHECK(keys[0].len == 2 && memcmp(keys[0].bytes, "ab", 2) == 0);
    CHECK(keys[1].len == 3 && memcmp(keys[1].bytes, "xyz", 3) == 0);
    CHECK(kv_key_cmp(&keys[0], &keys[1]) < 0);
    CHECK(kv_list_parse(buf, 12, keys, 4, &n) == -1);    /* the second key is cut */
    buf[8] = 17;                                          /* a key over 16 bytes */
    CHECK(kv_list_parse(buf, 32, keys, 4, &n) == -1);
    buf[8] = 0;                                           /* a key of 0 bytes */
    CHECK(kv_list_parse(buf, 32, keys, 4, &n) == -1);
}

static void test_status_text(void)
{
    char text[96];
    kv_status_text(0x4087, text, sizeof(text));          /* DNR set, as Linux passes it */
    CHECK(strcmp(text, "0/87h KV Key Does Not Exist") == 0);
    kv_status_text(0x0189, text, sizeof(text));          /* another type: no name */
    CHECK(strcmp(text, "1/89h status") == 0);
    kv_status_text(-5, text, sizeof(text));
    CHECK(strncmp(text, "errno 5 ", 8) == 0);
}

static void test_values(void)
{
    static uint8_t buf[5000];
    struct kv_key key, other;
    kv_key_of_number(7, &key);
    kv_key_of_number(8, &other);
    for (uint32_t size = 1; size <= sizeof(buf); size += size < 40 ? 1 : 997) {
        kv_value_fill(buf, size, &key, 99);
        CHECK(kv_value_check(buf, size, size, &key));
        CHECK(size < 16 || !kv_value_check(buf, size, size, &other));   /* 16: the key */
        for (uint32_t part = 1; part < size && part < 40; part++) {   /* a short buffer's */
            CHECK(kv_value_check(buf, part, size, &key));
        }
        if (size > 40) {
            buf[size - 1] ^= 1;                            /* one wrong byte */
            CHECK(!kv_value_check(buf, size, size, &key));
            CHECK(!kv_value_check(buf, size, size + 1, &key));   /* another size */
        }
    }
}

int main(void)
{
    test_store_sqe();
    test_short_key_retrieve_sqe();
    test_delete_exist_list_sqes();
    test_list_parse();
    test_status_text();
    test_values();
    return check_summary();
}
