/*
 * The command sets' tables (top/cmd_tables.c): realize installs them in the controller
 * before any namespace exists; dispatch and log page 05h (cmd/core/cmd_set.c) read them
 * there.
 */
#ifndef HW_FEMU_TOP_CMD_TABLES_H
#define HW_FEMU_TOP_CMD_TABLES_H

#include "femu.h"

void femu_cmd_tables_install(FemuCtrl *n);

#endif
