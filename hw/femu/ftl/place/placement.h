/* Write placement (placement.c): the classifiers that choose a page's write pointer. */
#ifndef FEMU_FTL_PLACE_PLACEMENT_H
#define FEMU_FTL_PLACE_PLACEMENT_H

#include "flash/ftl_handle.h"

/* The write pointers a host write may name (ftl_io.stream): nstreams with placement=stream,
 * fdp_ruhs with fdp; 0 when placement chooses on its own (stream is ignored). */
uint32_t placement_host_handles(const struct ftl *ftl);
uint32_t placement_for_host(const struct ftl *ftl, uint32_t lpn, uint32_t stream);
uint32_t placement_for_gc(const struct ftl *ftl, uint32_t lpn, uint32_t victim_line);

#endif
