/* Garbage collection (gc.c): foreground, whole lines, and paced GC's share of host writes;
 * background GC is public (ftl_background_gc). */
#ifndef FEMU_FTL_GC_GC_H
#define FEMU_FTL_GC_GC_H

#include "flash/ftl_handle.h"

int gc_collect_line(struct ftl *ftl, uint32_t victim, uint64_t now_ns);
/* Foreground GC before a host page of `stream` (with host-chosen write pointers and
 * gc_scope=stream: that stream's lines, else any). */
int gc_foreground(struct ftl *ftl, uint64_t now_ns, uint32_t stream);
/* A host page was programmed: paced GC's debt grows by its share of moves. */
void gc_host_page_written(struct ftl *ftl);
/* Charge every move and erase paced GC still owes the flash, starting at now_ns. */
void gc_settle(struct ftl *ftl, uint64_t now_ns);

#endif
