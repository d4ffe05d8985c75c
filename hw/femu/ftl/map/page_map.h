/*
 * The page map (page_map.c): where each logical page lives, and the updates that keep the
 * map, the reverse map, block and line counts and the line lists in step. The map stores
 * ppa + 1 (mod 2^32), so L2P_UNMAPPED is stored as 0: a map fresh from calloc reads as
 * all unmapped and costs memory only where written.
 */
#ifndef FEMU_FTL_MAP_PAGE_MAP_H
#define FEMU_FTL_MAP_PAGE_MAP_H

#include "flash/ftl_handle.h"

#define L2P_UNMAPPED UINT32_MAX         /* as l2p_get() returns it; stored 0 */

static inline void mapped_set(struct ftl *ftl, uint64_t lpn)
{
    ftl->mapped_bits[lpn / 64] |= UINT64_C(1) << (lpn % 64);
}

static inline void mapped_clear(struct ftl *ftl, uint64_t lpn)
{
    ftl->mapped_bits[lpn / 64] &= ~(UINT64_C(1) << (lpn % 64));
}

static inline uint32_t l2p_get(const struct ftl *ftl, uint64_t lpn)
{
    return ftl->l2p_plus1[lpn] - 1;     /* 0 - 1 = L2P_UNMAPPED */
}

static inline void l2p_set(struct ftl *ftl, uint64_t lpn, uint32_t ppa)
{
    ftl->l2p_plus1[lpn] = ppa + 1;
}

void map_invalidate(struct ftl *ftl, uint32_t ppa);
void map_bind(struct ftl *ftl, uint32_t lpn, uint32_t ppa);

#endif
