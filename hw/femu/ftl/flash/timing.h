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

/* Each returns the operation's end time. */
uint64_t nand_read(struct ftl *ftl, uint32_t lun, uint64_t start_ns);
/* A read whose sensing takes sense_ns (retries: more than pg_rd_lat), then the channel. */
uint64_t nand_read_sensing(struct ftl *ftl, uint32_t lun, uint64_t start_ns, uint64_t sense_ns);
uint64_t nand_program(struct ftl *ftl, uint32_t lun, uint64_t start_ns);
uint64_t nand_erase(struct ftl *ftl, uint32_t lun, uint64_t start_ns);
/* Copyback: sense into the LUN's register and program from it, no channel transfer. */
uint64_t nand_copyback(struct ftl *ftl, uint32_t lun, uint64_t start_ns);
void busy_free(struct ftl *ftl);
size_t busy_metadata_bytes(const struct ftl *ftl);

#endif
