/*
 * Block-level mappings (mapping=block|bast|fast; docs/ftl.md): every logical block (LBN =
 * lpn / pgs_per_blk) has a data block that holds page o at offset o; BAST and FAST add
 * log blocks that take the pages the data block cannot, and merge them back. The page
 * map stays the truth of where each page is, so reads, trim and the map checks work
 * unchanged; these calls only decide where writes go and run the merges. Every entry
 * point is only called when ftl->hybrid is set.
 */
#ifndef FEMU_FTL_MAP_HYBRID_H
#define FEMU_FTL_MAP_HYBRID_H

#include "flash/ftl_handle.h"

int hybrid_init(struct ftl *ftl);           /* after lines_init: FTL_OK or FTL_E_NOMEM */
void hybrid_free(struct ftl *ftl);
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
size_t hybrid_metadata_bytes(const struct ftl *ftl);
/* The map a device keeps in DRAM: 4 bytes per logical block, plus a page map (4 bytes a
 * page) for each log block. */
uint64_t hybrid_device_map_bytes(const struct ftl *ftl);

#endif
