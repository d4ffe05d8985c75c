/*
 * Per-LPN host write counts (write_count.c), what hot/cold placement classifies pages by:
 * exact, saturating at UINT32_MAX. Counts below WC_OVERFLOW are in write_count16; a page
 * marked WC_OVERFLOW has its count in the overflow table. wc_overflow_set fails (changing
 * nothing) only when the table cannot grow.
 */
#ifndef FEMU_FTL_PLACE_WRITE_COUNT_H
#define FEMU_FTL_PLACE_WRITE_COUNT_H

#include "flash/ftl_handle.h"

#define WC_OVERFLOW UINT16_MAX
struct wc_slot {
    uint32_t lpn_plus1;     /* 0: empty */
    uint32_t count;         /* >= WC_OVERFLOW while write_count16[lpn] is WC_OVERFLOW */
};
uint32_t wc_overflow_get(const struct ftl *ftl, uint32_t lpn);
bool wc_overflow_set(struct ftl *ftl, uint32_t lpn, uint32_t count);
const struct wc_slot *wc_overflow_find(const struct ftl *ftl, uint32_t lpn);  /* or NULL */

static inline uint32_t wc_get(const struct ftl *ftl, uint32_t lpn)
{
    uint32_t c = ftl->write_count16[lpn];
    return __builtin_expect(c != WC_OVERFLOW, 1) ? c : wc_overflow_get(ftl, lpn);
}

static inline bool wc_set(struct ftl *ftl, uint32_t lpn, uint32_t count)
{
    if (__builtin_expect(count < WC_OVERFLOW, 1)) {
        ftl->write_count16[lpn] = (uint16_t)count;
        return true;
    }
    return wc_overflow_set(ftl, lpn, count);
}

/* One more host write of lpn (saturating); *before gets the count it had. */
static inline bool wc_increment(struct ftl *ftl, uint32_t lpn, uint32_t *before)
{
    uint32_t c = ftl->write_count16[lpn];
    if (__builtin_expect(c < WC_OVERFLOW - 1, 1)) {
        ftl->write_count16[lpn] = (uint16_t)(c + 1);
        *before = c;
        return true;
    }
    c = wc_get(ftl, lpn);
    *before = c;
    return wc_set(ftl, lpn, c == UINT32_MAX ? c : c + 1);
}

#endif
