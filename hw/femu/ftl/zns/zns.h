/*
 * The zoned namespace's flash side (zns.c; zoned=1, only called when ftl->zns is set); its
 * admission is public (femu_ftl/zns.h). Zone sectors are absolute zoned sectors; a write
 * or read that leaves the zone's capacity (one zone) or the namespace is FTL_E_INVAL.
 */
#ifndef FEMU_FTL_ZNS_ZNS_H
#define FEMU_FTL_ZNS_ZNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "femu_ftl/zns.h"

int zns_init(struct ftl *ftl);              /* FTL_OK or FTL_E_NOMEM */
void zns_free(struct ftl *ftl);
size_t zns_metadata_bytes(const struct ftl *ftl);
int zns_check(const struct ftl *ftl, char *err, size_t errlen);
/* Room for ftl_zone_count zone numbers (the engine's Zone Management Send list). */
uint64_t *zns_changed_scratch(struct ftl *ftl);
/* Zone page p's LUN and block index (NULL: not wanted). */
void zns_page_place(const struct ftl *ftl, uint64_t zone, uint64_t page, uint32_t *lun,
                    uint64_t *block);
/* Pages of the zone on flash: [0, this) (the flash record, not admission's). */
uint64_t zns_programmed_pages(const struct ftl *ftl, uint64_t zone);
/* Data for [slba, slba + nlb) reached the device: the zone pages it completes,
 * [*first_page, *end_page), are for the caller to program. */
int zns_write_pages(struct ftl *ftl, uint64_t slba, uint64_t nlb, uint64_t *first_page,
                    uint64_t *end_page);
/* A zone write or append (counted as which) at its sectors: programs the pages it
 * completes, each on its own LUN from now_ns; done at the last program, or buf_wr_lat
 * after now_ns when it completes none (its data waits in the page buffer). */
int zns_write(struct ftl *ftl, uint64_t slba, uint64_t nlb, bool append, uint64_t now_ns,
              uint64_t *done_ns);
/* A zone read: senses every programmed page the range touches (zones may be crossed). */
int zns_read(struct ftl *ftl, uint64_t slba, uint64_t nlb, uint64_t now_ns, uint64_t *done_ns);
/* Zone Management Send's flash side for one zone the action changed: a reset erases the
 * blocks holding programmed pages and forgets them, offline forgets them, finish counts. */
int zns_manage(struct ftl *ftl, enum ftl_zone_action action, uint64_t zone, uint64_t now_ns,
               uint64_t *done_ns);

/* Programs zone pages [first, end), each on its own LUN from now_ns; the last program's
 * end (now_ns when none). Counts them in zone_programs. */
uint64_t zns_program_pages(struct ftl *ftl, uint64_t zone, uint64_t first, uint64_t end,
                           uint64_t now_ns);

/*
 * Zone Random Write Areas, flash side (zns_zrwa.c). The window is controller memory: a
 * write into it costs a transfer there (zrwa_xfer_ns), a rewrite no program; commits
 * program whole pages through zns_program_pages. Each acts on the flash record alone.
 */
uint64_t zrwa_xfer_ns(const struct ftl *ftl, uint64_t sectors);
/* A write at zone-relative [off, off + nlb) of a zone holding a ZRWA. */
int zns_zrwa_write(struct ftl *ftl, uint64_t zone, uint64_t off, uint64_t nlb,
                   uint64_t now_ns, uint64_t *done_ns);
/* When a read of zone-relative [lo, hi) has its window part from memory done. */
uint64_t zns_zrwa_read(const struct ftl *ftl, uint64_t zone, uint64_t lo, uint64_t hi,
                       uint64_t now_ns);
/* Flush Explicit ZRWA Range to LBA elba (admitted). */
int zns_zrwa_flush(struct ftl *ftl, uint64_t elba, uint64_t now_ns, uint64_t *done_ns);
/* Open with ZRWAA of an empty zone; Finish's commit of the window (its end); a reset's or
 * offline's drop of it. */
void zns_zrwa_open(struct ftl *ftl, uint64_t zone);
uint64_t zns_zrwa_finish(struct ftl *ftl, uint64_t zone, uint64_t now_ns);
void zns_zrwa_drop(struct ftl *ftl, uint64_t zone);
/* A power cut (ftl_power_cut): without plp every window's data is lost, its committed
 * data stays; the sectors lost (up to each window's high mark). */
uint64_t zns_zrwa_power_cut(struct ftl *ftl, bool plp);
int zns_zrwa_check(const struct ftl *ftl, char *err, size_t errlen);

#endif
