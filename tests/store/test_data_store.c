/* Data store: lazy mapping, bounds, read/write, discard to zeroes and memory release. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "proc_status.h"
#include "data_store.h"

#define MIB (1024ull * 1024ull)

static int all_zero(const uint8_t *p, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        if (p[i]) {
            return 0;
        }
    }
    return 1;
}

/* Anonymous memory this process has written, in bytes. */
static uint64_t rss_anon(void)
{
    return proc_status_bytes("RssAnon");
}

/* Discarding never-written space with unaligned edges must not allocate the edge pages:
 * 2000 ranges would otherwise commit 4000 host pages. */
static void test_discard_unwritten_allocates_nothing(void)
{
    char err[256];
    struct data_store *ds = data_store_create(1024 * MIB, err, sizeof(err));
    CHECK(ds != NULL);
    uint64_t before = rss_anon();
    for (uint64_t i = 0; i < 2000; i++) {
        CHECK(data_store_discard(ds, i * 256 * 1024 + 512, 64 * 1024) == 0);
    }
    CHECK(rss_anon() < before + 4 * MIB);
    uint8_t back[512];
    data_store_read(ds, 512, back, sizeof(back));
    CHECK(all_zero(back, sizeof(back)));
    data_store_destroy(ds);
}

int main(void)
{
    test_discard_unwritten_allocates_nothing();

    char err[256];
    /* 4 GiB reserved, nothing committed */
    struct data_store *ds = data_store_create(4096 * MIB, err, sizeof(err));
    CHECK(ds != NULL);
    CHECK_EQ_U64(data_store_size(ds), 4096 * MIB);
    CHECK(data_store_resident_bytes(ds) < MIB);

    /* bounds, without overflow */
    CHECK(data_store_range_ok(ds, 0, 4096 * MIB));
    CHECK(data_store_range_ok(ds, 4096 * MIB, 0));
    CHECK(!data_store_range_ok(ds, 4096 * MIB - 1, 2));
    CHECK(!data_store_range_ok(ds, UINT64_MAX, 2));
    CHECK(!data_store_range_ok(ds, 8, UINT64_MAX));

    /* unwritten space reads as zeroes; written space reads back */
    uint8_t *buf = malloc(8 * MIB), *back = malloc(8 * MIB);
    data_store_read(ds, 100 * MIB, back, MIB);
    CHECK(all_zero(back, MIB));
    for (size_t i = 0; i < 8 * MIB; i++) {
        buf[i] = (uint8_t)(i * 7 + 3);
    }
    data_store_write(ds, 1000 * MIB + 512, buf, 8 * MIB);
    data_store_read(ds, 1000 * MIB + 512, back, 8 * MIB);
    CHECK(memcmp(buf, back, 8 * MIB) == 0);
    CHECK(data_store_resident_bytes(ds) >= 8 * MIB);
    CHECK(data_store_at(ds, 1000 * MIB + 512)[1] == buf[1]);

    /* discarding an unaligned range: zero exactly there, neighbours kept, pages released */
    uint64_t before = data_store_resident_bytes(ds);
    CHECK(data_store_discard(ds, 1000 * MIB + 1000, 6 * MIB) == 0);
    /* measured before reading back: reads map the shared zero page, which counts as resident */
    CHECK(data_store_resident_bytes(ds) <= before - 5 * MIB);
    data_store_read(ds, 1000 * MIB + 512, back, 8 * MIB);
    CHECK(memcmp(back, buf, 488) == 0);                         /* before the range */
    CHECK(all_zero(back + 488, 6 * MIB));                       /* the range */
    CHECK(memcmp(back + 488 + 6 * MIB, buf + 488 + 6 * MIB, 2 * MIB - 488) == 0);

    /* a discard inside one host page clears only those bytes */
    data_store_write(ds, 0, buf, 4096);
    CHECK(data_store_discard(ds, 10, 20) == 0);
    data_store_read(ds, 0, back, 4096);
    CHECK(memcmp(back, buf, 10) == 0 && all_zero(back + 10, 20) &&
          memcmp(back + 30, buf + 30, 4096 - 30) == 0);

    /* bad sizes fail with a message instead of crashing */
    CHECK(data_store_create(0, err, sizeof(err)) == NULL);
    CHECK_CONTAINS(err, "not a usable size");
    CHECK(data_store_create(UINT64_MAX / 4, err, sizeof(err)) == NULL);
    CHECK_CONTAINS(err, "data store:");

    free(buf);
    free(back);
    data_store_destroy(ds);
    return check_summary();
}
