/*
 * The Key Value command set's I/O commands (cmd/io/kv.c, poller), rows of the KV command
 * set's table (top/cmd_tables.c, CSI 01h). The FTL admits each command (ftl_kv_admit_*,
 * under engine_lock) before any value byte moves; the namespace's value bytes live in
 * its kv_values store (store/kv_values.h).
 */
#ifndef HW_FEMU_CMD_KV_H
#define HW_FEMU_CMD_KV_H

#include "cmd/core/cmd_set.h"

/* Opcodes (KV Command Set 1.0; SPDK's enum spdk_nvme_kv_opcode agrees). */
#define FEMU_KV_CMD_STORE       0x01
#define FEMU_KV_CMD_RETRIEVE    0x02
#define FEMU_KV_CMD_LIST        0x06
#define FEMU_KV_CMD_DELETE      0x10
#define FEMU_KV_CMD_EXIST       0x14

FemuIoFn femu_kv_store;
FemuIoFn femu_kv_retrieve;
FemuIoFn femu_kv_delete;
FemuIoFn femu_kv_exist;
FemuIoFn femu_kv_list;

#endif
