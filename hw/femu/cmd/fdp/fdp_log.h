/*
 * The FDP log pages (cmd/fdp/fdp_log.c, poller): 20h FDP Configurations, 21h Reclaim Unit
 * Handle Usage, 22h FDP Statistics, 23h FDP Events, rows of Get Log Page's table
 * (cmd/admin/log.c). Each is the endurance group's, named by LSI; each builder returns the
 * status for an LSI (or a state) it refuses.
 */
#ifndef HW_FEMU_CMD_FDP_LOG_H
#define HW_FEMU_CMD_FDP_LOG_H

#include "femu.h"

#define FEMU_LOG_FDP_CONFIGS    0x20
#define FEMU_LOG_FDP_RUH_USAGE  0x21
#define FEMU_LOG_FDP_STATS      0x22
#define FEMU_LOG_FDP_EVENTS     0x23

#define FEMU_FDP_STATS_LOG_BYTES    64

/* Pages of their own size: *buf is g_malloc memory of *size bytes the caller frees. */
uint16_t femu_fdp_configs_log(FemuCtrl *n, uint16_t lsi, uint8_t **buf, size_t *size);
uint16_t femu_fdp_usage_log(FemuCtrl *n, uint16_t lsi, uint8_t **buf, size_t *size);
/* Fixed-size pages into a zeroed buf: FEMU_FDP_STATS_LOG_BYTES, and
 * FEMU_FDP_EVENTS_LOG_BYTES (backend/fdp_events.h); lsp bit 0 picks host events. */
uint16_t femu_fdp_stats_log(FemuCtrl *n, uint16_t lsi, uint8_t *buf);
uint16_t femu_fdp_events_log_page(FemuCtrl *n, uint16_t lsi, uint8_t lsp, uint8_t *buf);

#endif
