/* Names of the engine's operations, for ftl-sim's messages. */
#ifndef FTL_SIM_OP_NAMES_H
#define FTL_SIM_OP_NAMES_H

#include "femu_ftl/engine.h"

/* "read", "zone write", ...; "request" for an unknown one. */
const char *sim_op_name(enum ftl_op op);

#endif
