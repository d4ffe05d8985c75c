/* ftl_check()'s part for the hybrid mappings (mapping=block|bast|fast): their tables
 * (map/hybrid_tables.h) against the page map and the units' states. */
#ifndef FEMU_FTL_CORE_FTL_CHECK_HYBRID_H
#define FEMU_FTL_CORE_FTL_CHECK_HYBRID_H

#include <stddef.h>

#include "femu_ftl/ftl.h"

/* 0 when ftl->hybrid's tables hold together; else -1 and one line in err. */
int ftl_check_hybrid(const struct ftl *ftl, char *err, size_t errlen);

#endif
