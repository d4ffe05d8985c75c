/* The map sections (ftl_state_maps.c): L2P, P2L and the write counts. */
#ifndef FEMU_FTL_STATE_FTL_STATE_MAPS_H
#define FEMU_FTL_STATE_FTL_STATE_MAPS_H

#include "femu_ftl/ftl.h"
#include "state_file.h"

int ftl_state_save_maps(const struct ftl *ftl, struct state_writer *w, char *err,
                        size_t errlen);
int ftl_state_load_maps(struct ftl *ftl, struct state_reader *r, char *err, size_t errlen);

#endif
