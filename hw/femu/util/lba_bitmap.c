/* Bit ranges a word at a time: see lba_bitmap.h. */
#include "lba_bitmap.h"

#include <stdlib.h>

bool lba_bitmap_init(struct lba_bitmap *bm, uint64_t nbits)
{
    uint64_t nwords = (nbits + 63) / 64;

    /* calloc of a large block maps fresh zero pages: memory is used only where written. */
    bm->words = calloc(nwords ? nwords : 1, sizeof(uint64_t));
    bm->nbits = nbits;
    bm->set = 0;
    return bm->words != NULL;
}

void lba_bitmap_destroy(struct lba_bitmap *bm)
{
    free(bm->words);
    bm->words = NULL;
    bm->nbits = bm->set = 0;
}

/* Mask of the bits of word `index` that fall in [first, end). */
static uint64_t word_mask(uint64_t index, uint64_t first, uint64_t end)
{
    uint64_t lo = index * 64, hi = lo + 64;
    uint64_t from = first > lo ? first - lo : 0;
    uint64_t to = end < hi ? end - lo : 64;
    uint64_t upper = to == 64 ? ~UINT64_C(0) : (UINT64_C(1) << to) - 1;

    return upper & ~((UINT64_C(1) << from) - 1);
}

void lba_bitmap_set(struct lba_bitmap *bm, uint64_t first, uint64_t count)
{
    uint64_t end = first + count;

    for (uint64_t w = first / 64; count && w <= (end - 1) / 64; w++) {
        uint64_t mask = word_mask(w, first, end);

        bm->set += (uint64_t)__builtin_popcountll(mask & ~bm->words[w]);
        bm->words[w] |= mask;
    }
}

void lba_bitmap_clear(struct lba_bitmap *bm, uint64_t first, uint64_t count)
{
    uint64_t end = first + count;

    for (uint64_t w = first / 64; count && w <= (end - 1) / 64; w++) {
        uint64_t hit = bm->words[w] & word_mask(w, first, end);

        if (hit) {   /* only touch words that hold something: no page is faulted in */
            bm->set -= (uint64_t)__builtin_popcountll(hit);
            bm->words[w] &= ~hit;
        }
    }
}

bool lba_bitmap_any(const struct lba_bitmap *bm, uint64_t first, uint64_t count)
{
    uint64_t end = first + count;

    for (uint64_t w = first / 64; count && w <= (end - 1) / 64; w++) {
        if (bm->words[w] & word_mask(w, first, end)) {
            return true;
        }
    }
    return false;
}

uint64_t lba_bitmap_count_range(const struct lba_bitmap *bm, uint64_t first, uint64_t count)
{
    uint64_t end = first + count, total = 0;

    for (uint64_t w = first / 64; count && w <= (end - 1) / 64; w++) {
        total += (uint64_t)__builtin_popcountll(bm->words[w] & word_mask(w, first, end));
    }
    return total;
}

/* First bit in [from, end) equal to `value`, or end. */
static uint64_t find_bit(const struct lba_bitmap *bm, uint64_t from, uint64_t end, bool value)
{
    while (from < end) {
        uint64_t w = from / 64;
        uint64_t bits = (value ? bm->words[w] : ~bm->words[w]) & word_mask(w, from, end);

        if (bits) {
            return w * 64 + (uint64_t)__builtin_ctzll(bits);
        }
        from = (w + 1) * 64;
    }
    return end;
}

bool lba_bitmap_next_run(const struct lba_bitmap *bm, uint64_t from, uint64_t end,
                         uint64_t *start, uint64_t *length)
{
    uint64_t first = find_bit(bm, from, end, true);

    if (first >= end) {
        return false;
    }
    *start = first;
    *length = find_bit(bm, first, end, false) - first;
    return true;
}
