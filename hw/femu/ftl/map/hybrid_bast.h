/* BAST's write path and table upkeep (hybrid_bast.c), called by hybrid.c only. */
#ifndef FEMU_FTL_MAP_HYBRID_BAST_H
#define FEMU_FTL_MAP_HYBRID_BAST_H

#include "flash/ftl_handle.h"

/* hybrid_place's BAST part, after the old copy is unmapped. */
int bast_place(struct ftl *ftl, uint32_t lpn, uint64_t now_ns, uint32_t *ppa, uint64_t *done);
/* An empty log block that format erases leaves BAST's tables. */
void bast_forget_log(struct ftl *ftl, uint32_t unit);

#endif
