/* Simple Copy (copy.c): the ranges (the sources) to dest, in the zoned namespace (zoned)
 * or through the conventional FTL; the engine's FTL_OP_COPY. */
#ifndef FEMU_FTL_CORE_COPY_H
#define FEMU_FTL_CORE_COPY_H

#include "femu_ftl/ftl.h"

int ftl_copy(struct ftl *ftl, const struct ftl_range *src, uint32_t nsrc, uint64_t dest,
             bool zoned, uint64_t now_ns, uint64_t *done_ns);

#endif
