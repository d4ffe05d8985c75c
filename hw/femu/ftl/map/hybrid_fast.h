/* FAST's write path and table upkeep (hybrid_fast.c), called by hybrid.c only. */
#ifndef FEMU_FTL_MAP_HYBRID_FAST_H
#define FEMU_FTL_MAP_HYBRID_FAST_H

#include "flash/ftl_handle.h"

/* hybrid_place's FAST part, after the old copy is unmapped. */
int fast_place(struct ftl *ftl, uint32_t lpn, uint64_t now_ns, uint32_t *ppa, uint64_t *done);
/* An empty log block that format erases leaves FAST's tables. */
void fast_forget_log(struct ftl *ftl, uint32_t unit);

#endif
