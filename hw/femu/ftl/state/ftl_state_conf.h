/* The CONF section (ftl_state_conf.c): every ftl_config key as text; its check is
 * public (ftl_state_check_config). */
#ifndef FEMU_FTL_STATE_FTL_STATE_CONF_H
#define FEMU_FTL_STATE_FTL_STATE_CONF_H

#include "femu_ftl/config.h"
#include "state_file.h"

int ftl_state_save_conf(const struct ftl_config *cfg, struct state_writer *w, char *err,
                        size_t errlen);

#endif
