/* footprint.c - distinct pages in a growing bitmap (footprint.h). */
#include "footprint.h"

#include <stdlib.h>
#include <string.h>

static bool grow(struct footprint *fp, uint64_t page)
{
    uint64_t want = page / 64 + 1, words = fp->words ? fp->words : 1024;
    while (words < want) {
        words *= 2;
    }
    if (words > FOOTPRINT_CAP_PAGES / 64) {
        words = FOOTPRINT_CAP_PAGES / 64;
    }
    uint64_t *bits = realloc(fp->bits, words * sizeof(*bits));
    if (!bits) {
        return false;
    }
    memset(bits + fp->words, 0, (words - fp->words) * sizeof(*bits));
    fp->bits = bits;
    fp->words = words;
    return true;
}

/* Bits [lo, hi] of the bitmap (hi < FOOTPRINT_CAP_PAGES) set a whole 64-bit word at a
 * time, the new ones counted: a range of 2^30 pages costs 2^24 words, not 2^30 steps. */
static bool set_pages(struct footprint *fp, uint64_t lo, uint64_t hi)
{
    if (hi / 64 >= fp->words && !grow(fp, hi)) {
        return false;
    }
    for (uint64_t word = lo / 64; word <= hi / 64; word++) {
        uint64_t mask = UINT64_MAX;
        if (word == lo / 64) {
            mask &= UINT64_MAX << (lo % 64);
        }
        if (word == hi / 64) {
            mask &= UINT64_MAX >> (63 - hi % 64);
        }
        fp->pages += (uint64_t)__builtin_popcountll(mask & ~fp->bits[word]);
        fp->bits[word] |= mask;
    }
    return true;
}

bool footprint_add(struct footprint *fp, uint64_t offset, uint64_t length)
{
    if (length == 0) {
        return true;
    }
    /* readers refuse a range that wraps: offset + length - 1 fits */
    uint64_t first = offset / FOOTPRINT_PAGE, last = (offset + length - 1) / FOOTPRINT_PAGE;
    if (last - first >= FOOTPRINT_CAP_PAGES) {
        /* covers every bit: all of them */
        if (!grow(fp, FOOTPRINT_CAP_PAGES - 1)) {
            return false;
        }
        memset(fp->bits, 0xff, fp->words * sizeof(*fp->bits));
        fp->pages = FOOTPRINT_CAP_PAGES;
        fp->approximate = true;
        return true;
    }
    if (last >= FOOTPRINT_CAP_PAGES) {
        fp->approximate = true;     /* pages beyond the cap share the bitmap's bits */
    }
    uint64_t lo = first % FOOTPRINT_CAP_PAGES, hi = last % FOOTPRINT_CAP_PAGES;
    if (lo <= hi) {
        return set_pages(fp, lo, hi);
    }
    /* folded across the cap: the top of the bitmap, then its bottom */
    return set_pages(fp, lo, FOOTPRINT_CAP_PAGES - 1) && set_pages(fp, 0, hi);
}

void footprint_free(struct footprint *fp)
{
    free(fp->bits);
    *fp = (struct footprint){ 0 };
}
