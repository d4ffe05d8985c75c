/* The write buffer's section (ftl_state_wbuf.c), only with write_buffer_sectors > 0. */
#ifndef FEMU_FTL_STATE_FTL_STATE_WBUF_H
#define FEMU_FTL_STATE_FTL_STATE_WBUF_H

#include "femu_ftl/ftl.h"
#include "state_file.h"

int ftl_state_save_wbuf(const struct ftl *ftl, struct state_writer *w, char *err,
                        size_t errlen);
int ftl_state_load_wbuf(struct ftl *ftl, struct state_reader *r, char *err, size_t errlen);

#endif
