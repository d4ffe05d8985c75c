/*
 * The victim gc_policy chooses among the victim lines (gc_policy.c; NO_LINE when there is
 * none), not yet taken out of the heap. group GC_ANY_GROUP: every victim line (greedy's is
 * victim_peek()); a data write pointer s: the lines of s and the map lines (per-stream
 * GC, placement=stream).
 */
#ifndef FEMU_FTL_GC_GC_POLICY_H
#define FEMU_FTL_GC_GC_POLICY_H

#include "flash/ftl_handle.h"

#define GC_ANY_GROUP UINT32_MAX
/* lun (gc_unit=block): only that LUN's blocks, GC_ANY_LUN (flash/line_lists.h): all. */
uint32_t gc_policy_victim(struct ftl *ftl, uint64_t now_ns, uint32_t group, uint32_t lun);
/* Whether some victim line (closed, with an invalid page) belongs to write pointer wp. */
bool gc_group_has_victim(const struct ftl *ftl, uint32_t wp);

#endif
