/*
 * The NVM command set's I/O commands (cmd/io/nvm.c, poller), rows of the I/O command sets'
 * tables (top/cmd_tables.c). Copy is cmd/io/copy.h's.
 */
#ifndef HW_FEMU_CMD_NVM_H
#define HW_FEMU_CMD_NVM_H

#include "cmd/core/cmd_set.h"

FemuIoFn femu_nvm_flush;
FemuIoFn femu_nvm_write;
FemuIoFn femu_nvm_read;
FemuIoFn femu_nvm_write_uncor;
FemuIoFn femu_nvm_compare;
FemuIoFn femu_nvm_write_zeroes;
FemuIoFn femu_nvm_dsm;
FemuIoFn femu_nvm_verify;

#endif
