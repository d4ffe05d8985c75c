/*
 * Media errors (cmd/health/media.c, poller): the uncorrectable marks (n->uncorrectable, FTL
 * sectors), what a completion from the FTL does with them, Get LBA Status and the LBA
 * Status Information log.
 */
#ifndef HW_FEMU_CMD_MEDIA_H
#define HW_FEMU_CMD_MEDIA_H

#include "femu.h"

#define FEMU_LOG_LBA_STATUS         0x0e    /* LBA Status Information log page */

void femu_media_mark(FemuCtrl *n, uint64_t first, uint64_t count);
void femu_media_clear(FemuCtrl *n, uint64_t first, uint64_t count);
/* Whether LBAs [slba, slba + nlb) of ns hold a mark; *lba: the first LBA that does. */
bool femu_media_marked(FemuCtrl *n, const FemuNamespace *ns, uint64_t slba, uint64_t nlb,
                       uint64_t *lba);
/* A request the FTL served is back: marks, error log, media error count. */
void femu_media_done(FemuCtrl *n, FemuRequest *req);
uint16_t femu_get_lba_status(FemuCtrl *n, const NvmeCmd *cmd, FemuRequest *req);
/* The LBA Status Information log page (*buf from g_malloc), built without changing
 * anything (with rae, the page an earlier RAE read kept, if any); returns its size. */
size_t femu_lba_status_log(FemuCtrl *n, uint8_t **buf, bool rae);
/* The host got that page: with rae it is kept for the next RAE reads; without, the
 * alert is re-armed and nothing is kept. */
void femu_lba_status_log_read(FemuCtrl *n, bool rae, const uint8_t *buf, size_t size);
/* Controller reset and unrealize: no alert outstanding, no page kept for RAE reads. */
void femu_media_reset(FemuCtrl *n);

#endif
