/*
 * lba_bitmap: one bit per logical block, set while the block holds data the host wrote,
 * with a running count. The controller reports that count as NUSE and consults the bits
 * before zeroing a partial host page, so deallocating never-written blocks allocates
 * nothing. Plain C11, no QEMU header, no globals; one caller at a time.
 */
#ifndef FEMU_LBA_BITMAP_H
#define FEMU_LBA_BITMAP_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Caller-owned; treat the fields as private. */
struct lba_bitmap {
    uint64_t *words;
    uint64_t nbits;
    uint64_t set;       /* bits set: kept in step by set/clear */
};

/* All bits clear. False when the memory cannot be had (nothing to destroy then). */
bool lba_bitmap_init(struct lba_bitmap *bm, uint64_t nbits);
void lba_bitmap_destroy(struct lba_bitmap *bm);

/* [first, first + count) must lie inside the bitmap; callers check ranges first. */
void lba_bitmap_set(struct lba_bitmap *bm, uint64_t first, uint64_t count);
void lba_bitmap_clear(struct lba_bitmap *bm, uint64_t first, uint64_t count);
bool lba_bitmap_any(const struct lba_bitmap *bm, uint64_t first, uint64_t count);
/* Bits set in [first, first + count). */
uint64_t lba_bitmap_count_range(const struct lba_bitmap *bm, uint64_t first, uint64_t count);
/* The first run of set bits that starts in [from, end), cut at end: false when none. */
bool lba_bitmap_next_run(const struct lba_bitmap *bm, uint64_t from, uint64_t end,
                         uint64_t *start, uint64_t *length);

static inline uint64_t lba_bitmap_count(const struct lba_bitmap *bm)
{
    return bm->set;
}

#ifdef __cplusplus
}
#endif

#endif
