/*
 * Pre-images for power loss (hw/femu/store/preimage.c): sectors kept as they enter the
 * buffer, a fresh episode forgetting the last one's, partial pages, drop and prune
 * against a reference, and a table that grows and shrinks through many pages.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "preimage.h"

#define SECT 512u
#define SPP 8u

/* A page of sectors, sector i filled with byte tag + i. */
static void fill(uint8_t *p, unsigned sectors, uint8_t tag)
{
    for (unsigned s = 0; s < sectors; s++) {
        memset(p + s * SECT, tag + s, SECT);
    }
}

static bool sector_is(const struct preimage_table *t, uint64_t lpn, uint32_t s, uint8_t v)
{
    const uint8_t *p = preimage_sector(t, lpn, s);
    if (!p) {
        return false;
    }
    for (unsigned i = 0; i < SECT; i++) {
        if (p[i] != v) {
            return false;
        }
    }
    return true;
}

static void test_sectors_and_episodes(void)
{
    struct preimage_table *t = preimage_create(SECT, SPP);
    uint8_t src[SPP * SECT];

    CHECK(t != NULL);
    fill(src, SPP, 10);
    /* sectors 2-4 of page 7 enter: src holds sectors 2.. of the page */
    CHECK(preimage_save(t, 7, true, 0x1c, src, 2));
    CHECK(sector_is(t, 7, 2, 10) && sector_is(t, 7, 3, 11) && sector_is(t, 7, 4, 12));
    CHECK(preimage_sector(t, 7, 1) == NULL && preimage_sector(t, 7, 5) == NULL);
    /* sector 6 joins the same episode: 2-4 stay */
    fill(src, 1, 50);
    CHECK(preimage_save(t, 7, false, 0x40, src, 6));
    CHECK(sector_is(t, 7, 6, 50) && sector_is(t, 7, 2, 10));
    /* a fresh episode forgets the old sectors */
    fill(src, 1, 90);
    CHECK(preimage_save(t, 7, true, 0x01, src, 0));
    CHECK(sector_is(t, 7, 0, 90) && preimage_sector(t, 7, 2) == NULL);
    CHECK(preimage_sector(t, 7, SPP) == NULL && preimage_sector(t, 8, 0) == NULL);
    CHECK_EQ_U64(preimage_count(t), 1);
    preimage_drop(t, 7);
    CHECK_EQ_U64(preimage_count(t), 0);
    CHECK(preimage_sector(t, 7, 0) == NULL);
    preimage_destroy(t);

    CHECK(preimage_create(0, SPP) == NULL && preimage_create(SECT, 65) == NULL);
}

static uint64_t odd_buffered(void *ctx, uint64_t lpn)
{
    (void)ctx;
    return lpn & 1;
}

/* Many pages with colliding probe runs: every drop and prune leaves exactly the pages a
 * reference says, each with its own bytes. */
static void test_many_pages(void)
{
    enum { PAGES = 5000 };
    struct preimage_table *t = preimage_create(SECT, SPP);
    uint8_t src[SECT];
    static bool present[PAGES * 3];

    memset(present, 0, sizeof(present));
    for (uint64_t i = 0; i < PAGES; i++) {
        uint64_t lpn = i * 3;
        memset(src, (uint8_t)lpn, SECT);
        CHECK(preimage_save(t, lpn, true, 1, src, 0));
        present[lpn] = true;
    }
    CHECK_EQ_U64(preimage_count(t), PAGES);
    for (uint64_t i = 0; i < PAGES; i += 2) {          /* drop every other */
        preimage_drop(t, i * 3);
        present[i * 3] = false;
    }
    preimage_prune(t, odd_buffered, NULL);               /* then the even LPNs */
    uint64_t expect = 0;
    bool all_ok = true;
    for (uint64_t lpn = 0; lpn < PAGES * 3; lpn++) {
        bool want = present[lpn] && (lpn & 1);
        expect += want;
        if (want != (preimage_sector(t, lpn, 0) != NULL) ||
            (want && !sector_is(t, lpn, 0, (uint8_t)lpn))) {
            all_ok = false;
        }
    }
    CHECK(all_ok);
    CHECK_EQ_U64(preimage_count(t), expect);
    preimage_clear(t);
    CHECK_EQ_U64(preimage_count(t), 0);
    preimage_destroy(t);
}

int main(void)
{
    test_sectors_and_episodes();
    test_many_pages();
    return check_summary();
}
