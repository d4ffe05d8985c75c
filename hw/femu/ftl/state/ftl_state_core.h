/* The core sections (ftl_state_core.c): scalars, counters, write pointers, GC,
 * blocks, lines and their queues. */
#ifndef FEMU_FTL_STATE_FTL_STATE_CORE_H
#define FEMU_FTL_STATE_FTL_STATE_CORE_H

#include "femu_ftl/ftl.h"
#include "state_file.h"

int ftl_state_save_core(const struct ftl *ftl, struct state_writer *w, uint64_t now_ns,
                        char *err, size_t errlen);
int ftl_state_load_core(struct ftl *ftl, struct state_reader *r, uint64_t now_ns,
                        char *err, size_t errlen);

#endif
