/* The zoned namespace's section (ftl_state_zns.c), only when zoned=1. */
#ifndef FEMU_FTL_STATE_FTL_STATE_ZNS_H
#define FEMU_FTL_STATE_FTL_STATE_ZNS_H

#include "femu_ftl/ftl.h"
#include "state_file.h"

int ftl_state_save_zns(const struct ftl *ftl, struct state_writer *w, char *err,
                       size_t errlen);
int ftl_state_load_zns(struct ftl *ftl, struct state_reader *r, char *err, size_t errlen);

#endif
