/* Write placement (placement.c): the classifiers that choose a page's write pointer. */
#ifndef FEMU_FTL_PLACE_PLACEMENT_H
#define FEMU_FTL_PLACE_PLACEMENT_H

#include "flash/ftl_handle.h"

uint32_t placement_for_host(const struct ftl *ftl, uint32_t lpn, uint32_t stream);
uint32_t placement_for_gc(const struct ftl *ftl, uint32_t lpn, uint32_t victim_line);

#endif
