/*
 * Block-level mappings (mapping=block|bast|fast; docs/ftl.md): every logical block (LBN =
 * lpn / pgs_per_blk) has a data block that holds page o at offset o; BAST and FAST add
 * log blocks that take the pages the data block cannot, and merge them back. The page
 * map stays the truth of where each page is, so reads, trim and the map checks work
 * unchanged; map/hybrid_write.h decides where writes go and runs the merges. Every entry
 * point is only called when ftl->hybrid is set.
 */
#ifndef FEMU_FTL_MAP_HYBRID_H
#define FEMU_FTL_MAP_HYBRID_H

#include "flash/ftl_handle.h"

int hybrid_init(struct ftl *ftl);           /* after lines_init: FTL_OK or FTL_E_NOMEM */
void hybrid_free(struct ftl *ftl);
size_t hybrid_metadata_bytes(const struct ftl *ftl);
/* The map a device keeps in DRAM: 4 bytes per logical block, plus a page map (4 bytes a
 * page) for each log block. */
uint64_t hybrid_device_map_bytes(const struct ftl *ftl);

#endif
