/* The pseudo-SLC write cache's policy (slc_fold.c): whether a host page goes to the cache,
 * and folding its units into normal ones. ftl_background_fold is public (ftl.h). */
#ifndef FEMU_FTL_GC_SLC_FOLD_H
#define FEMU_FTL_GC_SLC_FOLD_H

#include "flash/ftl_handle.h"

/* SLC units the cache may hold now: slc_static_units + floor(slc_dynamic_pcent / 100 x
 * (logical pages - valid pages) / pages per unit). */
uint64_t slc_max_units(const struct ftl *ftl);
/* The cache's capacity now (slc_max_units x pages of an SLC unit), and its valid pages. */
uint64_t slc_capacity_pages(const struct ftl *ftl);
uint64_t slc_used_pages(const struct ftl *ftl);
/* Before a host page, free units at or below the foreground GC threshold: fold the oldest
 * SLC units (each frees almost a whole unit) until above it or none is left; GC of normal
 * victims comes after, if still needed. */
int slc_relieve(struct ftl *ftl, uint64_t now_ns);
/* Whether the next host page goes to the cache (its open unit has a page, or the rule and
 * the free units allow a new one); with slc_when_full=fold, oldest units are folded first
 * until it does or none is left. *rc is set when a fold failed. */
bool slc_admit(struct ftl *ftl, uint64_t now_ns, int *rc);

#endif
