/*
 * The reverse map: what each physical page holds, an LPN (a translation page's id past the
 * logical pages with mapping=dftl) or one of two markers, never valid LPNs (logical pages
 * < phys pages <= UINT32_MAX - 2). The map stores value + 1 (mod 2^32), so P2L_FREE is
 * stored as 0: a map fresh from calloc reads as all erased and costs memory only where
 * written.
 */
#ifndef FEMU_FTL_FLASH_P2L_H
#define FEMU_FTL_FLASH_P2L_H

#include "flash/ftl_handle.h"

#define P2L_FREE    UINT32_MAX          /* erased, not yet programmed (stored 0) */
#define P2L_INVALID (UINT32_MAX - 1)    /* programmed, data superseded or trimmed */

/* An LPN, P2L_FREE or P2L_INVALID. */
static inline uint32_t p2l_get(const struct ftl *ftl, uint64_t ppa)
{
    return ftl->p2l_plus1[ppa] - 1;
}

static inline void p2l_set(struct ftl *ftl, uint64_t ppa, uint32_t lpn)
{
    ftl->p2l_plus1[ppa] = lpn + 1;
}

#endif
