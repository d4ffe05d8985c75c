/* --trace-lba-map scale (tools/trace-in/map.c): every address moves in proportion to
 * capacity / extent, rounded down to its own alignment (up to 4 KiB), ends at the device's
 * end rather than cross it, keeps the trace's order; nothing moves when the trace fits;
 * beyond a given --trace-extent is refused with FILE:LINE. Hand-computed cases. */
#include "check.h"
#include "map.h"

#define CAP (UINT64_C(1) << 30)     /* the device: 1 GiB */

/* Where offset (length bytes) lands; -1 (as UINT64_MAX) when refused or dropped. */
static uint64_t scaled(struct tin_map *m, uint64_t offset, uint64_t length)
{
    char err[256];
    struct tin_record rec = { .op = TIN_WRITE, .offset = offset, .length = length,
                              .line = 3 };
    return tin_map_apply(m, "t", &rec, err, sizeof(err)) == 0 ? rec.offset : UINT64_MAX;
}

static void test_twice_the_device(void)
{
    struct tin_map m = { .mode = TIN_MAP_SCALE, .device_bytes = CAP, .extent = 2 * CAP };
    CHECK_EQ_U64(scaled(&m, 0, 4096), 0);
    CHECK_EQ_U64(scaled(&m, CAP / 2, 4096), CAP / 4);
    CHECK_EQ_U64(scaled(&m, CAP, 4096), CAP / 2);
    /* cap - 2048, rounded down to the original's 4 KiB alignment */
    CHECK_EQ_U64(scaled(&m, 2 * CAP - 4096, 4096), CAP - 4096);
    /* 512-aligned: cap/2 + 256 rounded down to 512; 1 KiB-aligned: to 1 KiB */
    CHECK_EQ_U64(scaled(&m, CAP + 512, 512), CAP / 2);
    CHECK_EQ_U64(scaled(&m, CAP + 1536, 512), CAP / 2 + 512);
    CHECK_EQ_U64(scaled(&m, CAP + 3072, 512), CAP / 2 + 1024);
    /* 8 KiB at 2 cap - 8 KiB: cap - 4 KiB would cross the end; ends there instead */
    CHECK_EQ_U64(scaled(&m, 2 * CAP - 8192, 8192), CAP - 8192);
    /* the ones below the device's end moved too (the old map left them) */
    CHECK_EQ_U64(m.remapped, 7);
    CHECK_EQ_U64(scaled(&m, 0, 2 * CAP), UINT64_MAX);   /* longer than the device */
    CHECK_EQ_U64(m.dropped, 1);
}

static void test_order_is_kept(void)
{
    struct tin_map m = { .mode = TIN_MAP_SCALE, .device_bytes = CAP, .extent = 3 * CAP + 12288 };
    uint64_t last = 0;
    for (uint64_t off = 0; off + 4096 <= m.extent; off += m.extent / 997 / 4096 * 4096) {
        uint64_t now = scaled(&m, off, 4096);
        CHECK(now != UINT64_MAX && now >= last && now + 4096 <= CAP);
        last = now;
    }
}

static void test_a_trace_that_fits_stays(void)
{
    struct tin_map m = { .mode = TIN_MAP_SCALE, .device_bytes = CAP, .extent = CAP / 2 };
    CHECK_EQ_U64(scaled(&m, CAP / 2 - 4096, 4096), CAP / 2 - 4096);
    CHECK_EQ_U64(scaled(&m, 12345, 100), 12345);
    CHECK_EQ_U64(m.remapped, 0);
}

static void test_beyond_a_given_extent_is_refused(void)
{
    char err[256];
    struct tin_map m = { .mode = TIN_MAP_SCALE, .device_bytes = CAP, .extent = 2 * CAP,
                         .extent_given = true };
    struct tin_record rec = { .op = TIN_READ, .offset = 2 * CAP - 4096, .length = 8192,
                              .line = 9 };
    CHECK(tin_map_apply(&m, "f.csv", &rec, err, sizeof(err)) == -1);
    CHECK_CONTAINS(err, "f.csv:9: bytes 2147479552..2147487743 are beyond --trace-extent "
                        "2147483648");
    CHECK_EQ_U64(scaled(&m, 2 * CAP - 4096, 4096), CAP - 4096);    /* ends at E: kept */
}

static void test_modulo_moves_only_those_beyond(void)
{
    struct tin_map m = { .mode = TIN_MAP_MODULO, .device_bytes = CAP };
    CHECK_EQ_U64(scaled(&m, CAP / 2, 4096), CAP / 2);
    CHECK_EQ_U64(scaled(&m, CAP + 8192, 4096), 8192);
    CHECK_EQ_U64(m.remapped, 1);
}

int main(void)
{
    test_twice_the_device();
    test_order_is_kept();
    test_a_trace_that_fits_stays();
    test_beyond_a_given_extent_is_refused();
    test_modulo_moves_only_those_beyond();
    return check_summary();
}
