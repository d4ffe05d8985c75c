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

bool footprint_add(struct footprint *fp, uint64_t offset, uint64_t length)
{
    if (length == 0) {
        return true;
    }
    uint64_t first = offset / FOOTPRINT_PAGE, last = (offset + length - 1) / FOOTPRINT_PAGE;
    if (last - first >= FOOTPRINT_CAP_PAGES) {
        /* covers every bit: all of them, without a walk of 2^30 pages or more */
        if (!grow(fp, FOOTPRINT_CAP_PAGES - 1)) {
            return false;
        }
        memset(fp->bits, 0xff, fp->words * sizeof(*fp->bits));
        fp->pages = FOOTPRINT_CAP_PAGES;
        fp->approximate = true;
        return true;
    }
    for (uint64_t page = first; page <= last; page++) {
        uint64_t p = page;
        if (p >= FOOTPRINT_CAP_PAGES) {
            p %= FOOTPRINT_CAP_PAGES;
            fp->approximate = true;
        }
        if (p / 64 >= fp->words && !grow(fp, p)) {
            return false;
        }
        uint64_t bit = UINT64_C(1) << (p % 64);
        if (!(fp->bits[p / 64] & bit)) {
            fp->bits[p / 64] |= bit;
            fp->pages++;
        }
        if (page == UINT64_MAX) {
            break;
        }
    }
    return true;
}

void footprint_free(struct footprint *fp)
{
    free(fp->bits);
    *fp = (struct footprint){ 0 };
}
