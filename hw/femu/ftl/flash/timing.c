/*
 * The timing model: every LUN, and every channel bus when ch_xfer_lat > 0, is busy until
 * a known time; an operation starts at max(request time, resource idle) and pushes the
 * resource's idle time forward. Reads sense on the LUN then move data over the channel;
 * programs move data over the channel then program the LUN; the LUN stays reserved while
 * it waits for the bus because its page register is in use. A copyback senses into the
 * LUN's register and programs from it: no channel.
 *
 * Busy time (ftl_lun_busy_ns): every operation occupies its LUN over [start, end) with
 * start at or after the LUN's previous end (its idle time), so a LUN's busy time is a
 * sequence of disjoint intervals. The last one is open: it runs from open_start to the
 * LUN's idle time, and an operation starting right then only moves the idle time (the
 * hot path pays one compare). An operation after a gap closes it into a FIFO of intervals
 * not yet wholly before the last sample; a sample moves those it has passed into a sum.
 */
#include "flash/timing.h"

#include <stdlib.h>

#include "base/max_u64.h"

/* Closed intervals a LUN keeps before it folds the oldest into its sum. A sample drops
 * every interval it has passed, so this is reached only with more gaps than this between
 * two samples, and the fold stays exact unless the next sample falls before the end of
 * that oldest interval. Small, so a run nobody samples (ftl-bench) stays in cache. */
#define BUSY_RING_MAX 256
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

/* An operation starts at start, after a gap since the LUN's last end idle_ns: the open
 * interval [open_start, idle_ns) is closed and a new one opens at start. */
static void busy_gap(struct ftl *ftl, uint32_t lun, uint64_t idle_ns, uint64_t start)
{
    struct lun_busy *b = &ftl->lun_busy[lun];

    if (idle_ns > b->open_start) {
        if (b->count == b->cap) {
            busy_make_room(b);
        }
        if (b->count < b->cap) {
            uint32_t at = b->head + b->count;
            b->ring[at >= b->cap ? at - b->cap : at] =
                (struct busy_interval){ b->open_start, idle_ns };
            b->count++;
        } else {
            b->done_ns += idle_ns - b->open_start;  /* no ring at all (out of memory) */
        }
    }
    b->open_start = start;
}

uint64_t ftl_lun_busy_ns(struct ftl *ftl, uint64_t t_ns)
{
    uint64_t total = 0;

    ftl_note_time(ftl, t_ns);   /* what it forgets before t_ns, a power cut cannot undo */

    for (uint32_t lun = 0; lun < ftl->luns; lun++) {
        struct lun_busy *b = &ftl->lun_busy[lun];
        uint64_t idle = ftl->lun_avail_ns[lun];
        while (b->count && b->ring[b->head].end <= t_ns) {
            b->done_ns += b->ring[b->head].end - b->ring[b->head].start;
            b->head = b->head + 1 == b->cap ? 0 : b->head + 1;
            b->count--;
        }
        if (b->count == 0 && idle <= t_ns) {
            b->done_ns += idle - b->open_start;     /* the open interval is past: keep it */
            b->open_start = idle;                   /* open (empty) for a back-to-back op */
        }
        total += b->done_ns;
        if (b->count) {
            if (b->ring[b->head].start < t_ns) {
                total += t_ns - b->ring[b->head].start;     /* the interval under way */
            }
        } else if (idle > t_ns && b->open_start < t_ns) {
            total += t_ns - b->open_start;      /* the open interval, under way */
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
    uint64_t end = max_u64(ready_ns, *ch) + flash_stretch(ftl, ftl->cfg.ch_xfer_lat);
    *ch = end;
    return end;
}

/* When an operation asked for at start_ns starts on lun: once the LUN is idle. A start
 * after the LUN's idle time leaves a gap in its busy time. */
static inline uint64_t lun_start(struct ftl *ftl, uint32_t lun, uint64_t start_ns)
{
    uint64_t idle = ftl->lun_avail_ns[lun];
    if (start_ns > idle) {
        busy_gap(ftl, lun, idle, start_ns);
        return start_ns;
    }
    return idle;
}

void timing_restart(struct ftl *ftl, uint64_t now_ns)
{
    for (uint32_t lun = 0; lun < ftl->luns; lun++) {
        if (ftl->lun_avail_ns[lun] < now_ns) {
            busy_gap(ftl, lun, ftl->lun_avail_ns[lun], now_ns);
            ftl->lun_avail_ns[lun] = now_ns;
        }
    }
    for (uint32_t ch = 0; ch < ftl->nchs; ch++) {
        ftl->ch_avail_ns[ch] = max_u64(ftl->ch_avail_ns[ch], now_ns);
    }
}

/* The newest closed interval of a LUN (count > 0). */
static struct busy_interval *busy_newest(struct lun_busy *b)
{
    uint32_t at = b->head + b->count - 1;
    return &b->ring[at >= b->cap ? at - b->cap : at];
}

/* A LUN busy past now_ns stops at now_ns: its busy time after now_ns never happened. */
static void busy_stop(struct ftl *ftl, uint32_t lun, uint64_t now_ns)
{
    struct lun_busy *b = &ftl->lun_busy[lun];

    if (b->open_start >= now_ns) {
        /* The open interval lies wholly ahead: the newest closed one that began before
         * now_ns (clipped there) is open again, or nothing was busy. */
        while (b->count && busy_newest(b)->start >= now_ns) {
            b->count--;
        }
        if (b->count) {
            struct busy_interval *last = busy_newest(b);
            b->open_start = last->start;
            ftl->lun_avail_ns[lun] = last->end < now_ns ? last->end : now_ns;
            b->count--;
            return;
        }
        b->open_start = now_ns;
    }
    ftl->lun_avail_ns[lun] = now_ns;
}

void timing_power_cut(struct ftl *ftl, uint64_t now_ns)
{
    for (uint32_t lun = 0; lun < ftl->luns; lun++) {
        if (ftl->lun_avail_ns[lun] > now_ns) {
            busy_stop(ftl, lun, now_ns);
        }
    }
    for (uint32_t ch = 0; ch < ftl->nchs; ch++) {
        if (ftl->ch_avail_ns[ch] > now_ns) {
            ftl->ch_avail_ns[ch] = now_ns;
        }
    }
    timing_restart(ftl, now_ns);
}

/* The energy model's tallies (ftl.h): the LUN's busy time by kind, booked with the
 * operation, and the page each read or program moves over the channel bus, whether or
 * not the bus is timed (ch_xfer_lat 0 leaves its time out, not its energy). */
static inline void tally_sense(struct ftl *ftl, uint64_t lat)
{
    ftl->ctr.nand_sense_ns += lat;
}

static inline void tally_program(struct ftl *ftl, uint64_t lat)
{
    ftl->ctr.nand_program_ns += lat;
}

uint64_t nand_read_lat(struct ftl *ftl, uint32_t lun, uint64_t start_ns, uint64_t lat)
{
    uint64_t start = lun_start(ftl, lun, start_ns);
    uint64_t t = start + flash_stretch(ftl, lat);
    tally_sense(ftl, lat);
    ftl->ctr.ch_bytes += ftl->geo.page_bytes;
    if (ftl->cfg.ch_xfer_lat) {
        t = channel_transfer(ftl, lun, t);
    }
    ftl->lun_avail_ns[lun] = t;
    return t;
}

uint64_t nand_program_lat(struct ftl *ftl, uint32_t lun, uint64_t start_ns, uint64_t lat)
{
    uint64_t start = lun_start(ftl, lun, start_ns);
    uint64_t t = start;
    tally_program(ftl, lat);
    ftl->ctr.ch_bytes += ftl->geo.page_bytes;
    if (ftl->cfg.ch_xfer_lat) {
        t = channel_transfer(ftl, lun, t);
    }
    t += flash_stretch(ftl, lat);
    ftl->lun_avail_ns[lun] = t;
    return t;
}

uint64_t nand_erase_lat(struct ftl *ftl, uint32_t lun, uint64_t start_ns, uint64_t lat)
{
    uint64_t start = lun_start(ftl, lun, start_ns);
    uint64_t t = start + flash_stretch(ftl, lat);
    ftl->ctr.nand_erase_ns += lat;
    ftl->lun_avail_ns[lun] = t;
    return t;
}

uint64_t nand_read(struct ftl *ftl, uint32_t lun, uint64_t start_ns)
{
    return nand_read_lat(ftl, lun, start_ns, ftl->cfg.pg_rd_lat);
}

uint64_t nand_program(struct ftl *ftl, uint32_t lun, uint64_t start_ns)
{
    return nand_program_lat(ftl, lun, start_ns, ftl->cfg.pg_wr_lat);
}

uint64_t nand_copyback(struct ftl *ftl, uint32_t lun, uint64_t start_ns)
{
    uint64_t start = lun_start(ftl, lun, start_ns);
    uint64_t t = start + flash_stretch(ftl, ftl->cfg.pg_rd_lat + ftl->cfg.pg_wr_lat);
    tally_sense(ftl, ftl->cfg.pg_rd_lat);
    tally_program(ftl, ftl->cfg.pg_wr_lat);
    ftl->lun_avail_ns[lun] = t;
    return t;
}

uint64_t nand_erase(struct ftl *ftl, uint32_t lun, uint64_t start_ns)
{
    return nand_erase_lat(ftl, lun, start_ns, ftl->cfg.blk_er_lat);
}
