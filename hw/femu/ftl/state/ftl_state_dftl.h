/* DFTL's section (ftl_state_dftl.c), only with mapping=dftl; loaded after the maps:
 * its directory is read from the P2L. */
#ifndef FEMU_FTL_STATE_FTL_STATE_DFTL_H
#define FEMU_FTL_STATE_FTL_STATE_DFTL_H

#include "femu_ftl/ftl.h"
#include "state_file.h"

int ftl_state_save_dftl(const struct ftl *ftl, struct state_writer *w, char *err,
                        size_t errlen);
int ftl_state_load_dftl(struct ftl *ftl, struct state_reader *r, char *err, size_t errlen);

#endif
