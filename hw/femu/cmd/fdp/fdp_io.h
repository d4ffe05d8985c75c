/*
 * FDP's I/O commands (cmd/fdp/fdp_io.c, poller): I/O Management Receive and Send, rows of the
 * NVM command set's table (top/cmd_tables.c) while the controller offers FDP.
 */
#ifndef HW_FEMU_CMD_FDP_IO_H
#define HW_FEMU_CMD_FDP_IO_H

#include "cmd/core/cmd_set.h"

#define FEMU_CMD_IO_MGMT_RECV   0x12
#define FEMU_CMD_IO_MGMT_SEND   0x1d

FemuIoFn femu_fdp_io_mgmt_recv;
FemuIoFn femu_fdp_io_mgmt_send;

#endif
