/* The write pointers (write_pointers.c): programming the next page of one. */
#ifndef FEMU_FTL_MAP_WRITE_POINTERS_H
#define FEMU_FTL_MAP_WRITE_POINTERS_H

#include "flash/ftl_handle.h"

/* Program lpn into the next page of write pointer wp (FEMU striping) and map it there;
 * a line that fills up is closed. With fallback, use another write pointer's open line
 * when no free line is left. Returns false (nothing changed) when no page is free. */
bool wp_place(struct ftl *ftl, uint32_t wp, bool fallback, uint32_t lpn, uint32_t *ppa,
              uint64_t now_ns);

/* Close wp's open line as it is (FDP: a reclaim unit closed before it is full): its
 * unwritten good pages are never programmed and count as invalid, so GC reclaims them
 * like stale data. Returns those pages; 0, changing nothing, when wp has no open line. */
/* slc_cache: program lpn into the next SLC page of the SLC write pointer (opening a free
 * unit in SLC mode when it has none) and map it there; a unit whose SLC pages are all
 * written joins the SLC FIFO. Whether the cache has room is the caller's (gc/slc_fold.c)
 * question. false (nothing changed) when no unit is free. */
bool slc_place(struct ftl *ftl, uint32_t lpn, uint32_t *ppa, uint64_t now_ns);

uint64_t wp_close_early(struct ftl *ftl, uint32_t wp, uint64_t now_ns);

#endif
