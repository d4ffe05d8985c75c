/*
 * The timing model: every LUN, and every channel bus when ch_xfer_lat > 0, is busy until
 * a known time; an operation starts at max(request time, resource idle) and pushes the
 * resource's idle time forward. Reads sense on the LUN then move data over the channel;
 * programs move data over the channel then program the LUN; the LUN stays reserved while
 * it waits for the bus because its page register is in use.
 */
#include "ftl_internal.h"

static uint64_t channel_transfer(struct ftl *ftl, uint32_t lun, uint64_t ready_ns)
{
    uint64_t *ch = &ftl->ch_avail_ns[lun % ftl->nchs];
    uint64_t end = max_u64(ready_ns, *ch) + ftl->cfg.ch_xfer_lat;
    *ch = end;
    return end;
}

uint64_t nand_read(struct ftl *ftl, uint32_t lun, uint64_t start_ns)
{
    uint64_t t = max_u64(start_ns, ftl->lun_avail_ns[lun]) + ftl->cfg.pg_rd_lat;
    if (ftl->cfg.ch_xfer_lat) {
        t = channel_transfer(ftl, lun, t);
    }
    ftl->lun_avail_ns[lun] = t;
    return t;
}

uint64_t nand_program(struct ftl *ftl, uint32_t lun, uint64_t start_ns)
{
    uint64_t t = max_u64(start_ns, ftl->lun_avail_ns[lun]);
    if (ftl->cfg.ch_xfer_lat) {
        t = channel_transfer(ftl, lun, t);
    }
    t += ftl->cfg.pg_wr_lat;
    ftl->lun_avail_ns[lun] = t;
    return t;
}

uint64_t nand_erase(struct ftl *ftl, uint32_t lun, uint64_t start_ns)
{
    uint64_t t = max_u64(start_ns, ftl->lun_avail_ns[lun]) + ftl->cfg.blk_er_lat;
    ftl->lun_avail_ns[lun] = t;
    return t;
}
