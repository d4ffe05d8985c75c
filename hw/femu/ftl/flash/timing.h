/* The timing model (timing.c): per-LUN and per-channel occupancy, and the LUNs' busy time. */
#ifndef FEMU_FTL_FLASH_TIMING_H
#define FEMU_FTL_FLASH_TIMING_H

#include "flash/ftl_handle.h"

/* One LUN's busy time (ftl_lun_busy_ns): the open interval [open_start, the LUN's idle
 * time), the closed ones not yet wholly before the last sample, oldest first in a ring,
 * and the busy time of those that are. */
struct busy_interval {
    uint64_t start, end;
};
struct lun_busy {
    uint64_t open_start;
    struct busy_interval *ring;
    uint32_t head, count, cap;
    uint64_t done_ns;
};

/* A latency as the drive's power state runs it (ftl->flash_perf_pcent): lat x 100 / perf,
 * rounded down; lat itself at full speed. */
static inline uint64_t flash_stretch(const struct ftl *ftl, uint64_t lat)
{
    uint32_t perf = ftl->flash_perf_pcent;
    return perf == 0 || perf >= 100 ? lat : lat * 100 / perf;   /* lat <= 100 s: no wrap */
}

/* Each returns the operation's end time. */
uint64_t nand_read(struct ftl *ftl, uint32_t lun, uint64_t start_ns);
uint64_t nand_program(struct ftl *ftl, uint32_t lun, uint64_t start_ns);
uint64_t nand_erase(struct ftl *ftl, uint32_t lun, uint64_t start_ns);
/* The same at another latency (a block used in SLC mode: flash/slc.h; a read's retries:
 * flash/read_retry.h). An operation asked
 * for at a start_ns before the LUN's idle time starts at that idle time. */
uint64_t nand_read_lat(struct ftl *ftl, uint32_t lun, uint64_t start_ns, uint64_t lat);
uint64_t nand_program_lat(struct ftl *ftl, uint32_t lun, uint64_t start_ns, uint64_t lat);
uint64_t nand_erase_lat(struct ftl *ftl, uint32_t lun, uint64_t start_ns, uint64_t lat);
/* Copyback: sense into the LUN's register and program from it, no channel transfer. */
uint64_t nand_copyback(struct ftl *ftl, uint32_t lun, uint64_t start_ns);
/* The flash starts (again) at now_ns, a restore's time: every LUN and channel idle from
 * then, none before, so no idle time before the restore is spent (background folding
 * only uses idle time a LUN had). */
void timing_restart(struct ftl *ftl, uint64_t now_ns);
/* A power cut at now_ns: every operation stops there (the LUNs' busy time after it is
 * taken back), then the flash starts again as after timing_restart(now_ns). */
void timing_power_cut(struct ftl *ftl, uint64_t now_ns);
void busy_free(struct ftl *ftl);
size_t busy_metadata_bytes(const struct ftl *ftl);

#endif
