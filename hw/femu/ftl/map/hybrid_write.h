/* Writes under a block-level mapping (hybrid_write.c): where each page goes, after the
 * merges it needs; format's erases. Only called when ftl->hybrid is set. */
#ifndef FEMU_FTL_MAP_HYBRID_WRITE_H
#define FEMU_FTL_MAP_HYBRID_WRITE_H

#include "flash/ftl_handle.h"

/* Place a written page of lpn (a host page or a Copy's destination page): its old copy
 * is invalidated, the merges the scheme needs run now (foreground: their flash work
 * starts at now_ns and ends by *merge_done, now_ns if none), and lpn is mapped to *ppa,
 * whose program the caller prices. FTL_E_NOSPC, changing nothing, without a free block
 * (a valid geometry always has one). */
int hybrid_place(struct ftl *ftl, uint32_t lpn, uint64_t now_ns, uint32_t *ppa,
                 uint64_t *merge_done);
/* Format with erase: every hybrid block left without a valid page is erased (from now_ns)
 * and leaves the tables. Returns when the last erase ends; *blocks gets the count. */
uint64_t hybrid_erase_empty(struct ftl *ftl, uint64_t now_ns, uint64_t *blocks);

#endif
