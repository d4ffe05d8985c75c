/*
 * Realize's FTL configuration (top/realize_config.c): properties and config file resolved
 * into n->ftl_config.
 */
#ifndef HW_FEMU_TOP_REALIZE_CONFIG_H
#define HW_FEMU_TOP_REALIZE_CONFIG_H

#include "femu.h"

#define FEMU_ERR_LEN 512   /* an error message from the FTL's config parser */

/* Defaults, then the config file, then the explicit properties, into n->ftl_config. */
bool femu_resolve_config(FemuCtrl *n, Error **errp);

#endif
