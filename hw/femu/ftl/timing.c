/*
 * The timing model: every LUN, and every channel bus when ch_xfer_lat > 0, is busy until
 * a known time; an operation starts at max(request time, resource idle) and pushes the
 * resource's idle time forward. Reads sense on the LUN then move data over the channel;
 * programs move data over the channel then program the LUN; the LUN stays reserved while
 * it waits for the bus because its page register is in use. A copyback senses into the
 * LUN's register and programs from it: no channel.
 *
 * Busy time (ftl_lun_busy_ns): every operation occupies its LUN over [start, end) with
 * start at or after the LUN's previous end, so each LUN keeps a FIFO of the intervals not
 * yet wholly in the past of the last sample (touching ones merged) and the sum of those
 * that are.
 */
#include "ftl_internal.h"

#include <stdlib.h>

/* Intervals a LUN keeps before it folds the oldest into its sum (only reached when no
 * one samples: a sample drops every interval it has passed). */
#define BUSY_RING_MAX 4096
#define BUSY_RING_FIRST 16

/* Room for one more interval: grow the ring, or fold its oldest into the sum. */
static void busy_make_room(struct lun_busy *b)
{
    if (b->cap < BUSY_RING_MAX) {
        uint32_t cap = b->cap ? b->cap * 2 : BUSY_RING_FIRST;
        struct busy_interval *ring = malloc(cap * sizeof(*ring));
        if (ring) {
            for (uint32_t i = 0; i < b->count; i++) {
                ring[i] = b->ring[(b->head + i) % b->cap];
            }
            free(b->ring);
            b->ring = ring;
            b->head = 0;
            b->cap = cap;
            return;
        }
        if (b->cap == 0) {
            return;     /* nothing to fold: the caller adds to the sum directly */
        }
    }
    struct busy_interval *old = &b->ring[b->head];
    b->done_ns += old->end - old->start;
    b->head = b->head + 1 == b->cap ? 0 : b->head + 1;
    b->count--;
}

static void busy_record(struct ftl *ftl, uint32_t lun, uint64_t start, uint64_t end)
{
    struct lun_busy *b = &ftl->lun_busy[lun];

    if (b->count) {
        uint32_t tail = b->head + b->count - 1;
        struct busy_interval *last = &b->ring[tail >= b->cap ? tail - b->cap : tail];
        if (last->end == start) {
            last->end = end;    /* back to back: one interval */
            return;
        }
    }
    if (start == end) {
        return;
    }
    if (b->count == b->cap) {
        busy_make_room(b);
        if (b->count == b->cap) {
            b->done_ns += end - start;  /* no ring at all (out of memory) */
            return;
        }
    }
    uint32_t at = b->head + b->count;
    b->ring[at >= b->cap ? at - b->cap : at] = (struct busy_interval){ start, end };
    b->count++;
}

uint64_t ftl_lun_busy_ns(struct ftl *ftl, uint64_t t_ns)
{
    uint64_t total = 0;

    for (uint32_t lun = 0; lun < ftl->luns; lun++) {
        struct lun_busy *b = &ftl->lun_busy[lun];
        while (b->count && b->ring[b->head].end <= t_ns) {
            b->done_ns += b->ring[b->head].end - b->ring[b->head].start;
            b->head = b->head + 1 == b->cap ? 0 : b->head + 1;
            b->count--;
        }
        total += b->done_ns;
        if (b->count && b->ring[b->head].start < t_ns) {
            total += t_ns - b->ring[b->head].start;     /* the interval under way */
        }
    }
    return total;
}

void busy_free(struct ftl *ftl)
{
    if (ftl->lun_busy) {
        for (uint32_t lun = 0; lun < ftl->luns; lun++) {
            free(ftl->lun_busy[lun].ring);
        }
        free(ftl->lun_busy);
    }
}

size_t busy_metadata_bytes(const struct ftl *ftl)
{
    size_t bytes = ftl->luns * sizeof(struct lun_busy);
    for (uint32_t lun = 0; lun < ftl->luns; lun++) {
        bytes += ftl->lun_busy[lun].cap * sizeof(struct busy_interval);
    }
    return bytes;
}

static uint64_t channel_transfer(struct ftl *ftl, uint32_t lun, uint64_t ready_ns)
{
    uint64_t *ch = &ftl->ch_avail_ns[lun % ftl->nchs];
    uint64_t end = max_u64(ready_ns, *ch) + ftl->cfg.ch_xfer_lat;
    *ch = end;
    return end;
}

uint64_t nand_read(struct ftl *ftl, uint32_t lun, uint64_t start_ns)
{
    uint64_t start = max_u64(start_ns, ftl->lun_avail_ns[lun]);
    uint64_t t = start + ftl->cfg.pg_rd_lat;
    if (ftl->cfg.ch_xfer_lat) {
        t = channel_transfer(ftl, lun, t);
    }
    ftl->lun_avail_ns[lun] = t;
    busy_record(ftl, lun, start, t);
    return t;
}

uint64_t nand_program(struct ftl *ftl, uint32_t lun, uint64_t start_ns)
{
    uint64_t start = max_u64(start_ns, ftl->lun_avail_ns[lun]);
    uint64_t t = start;
    if (ftl->cfg.ch_xfer_lat) {
        t = channel_transfer(ftl, lun, t);
    }
    t += ftl->cfg.pg_wr_lat;
    ftl->lun_avail_ns[lun] = t;
    busy_record(ftl, lun, start, t);
    return t;
}

uint64_t nand_copyback(struct ftl *ftl, uint32_t lun, uint64_t start_ns)
{
    uint64_t start = max_u64(start_ns, ftl->lun_avail_ns[lun]);
    uint64_t t = start + ftl->cfg.pg_rd_lat + ftl->cfg.pg_wr_lat;
    ftl->lun_avail_ns[lun] = t;
    busy_record(ftl, lun, start, t);
    return t;
}

uint64_t nand_erase(struct ftl *ftl, uint32_t lun, uint64_t start_ns)
{
    uint64_t start = max_u64(start_ns, ftl->lun_avail_ns[lun]);
    uint64_t t = start + ftl->cfg.blk_er_lat;
    ftl->lun_avail_ns[lun] = t;
    busy_record(ftl, lun, start, t);
    return t;
}
