/*
 * FTL internals shared by its modules; not part of the API.
 *
 * Physical page addresses (ppa) are flat 32-bit indices laid out in write-pointer order:
 *
 *     ppa = line * pgs_per_line + offset,   offset = page * luns + lun,   lun = l * nchs + ch
 *
 * so FEMU's striping (channel first, then LUN, then page) is just offset + 1, and the block
 * holding a page is (line, lun). A line's block on every LUN is block index `line` there
 * (plane line / blks_per_pl, block line % blks_per_pl).
 */
#ifndef FEMU_FTL_INTERNAL_H
#define FEMU_FTL_INTERNAL_H

#include "ftl.h"

/* P2L markers (never valid LPNs: logical pages < phys pages <= UINT32_MAX - 2). */
#define P2L_FREE    UINT32_MAX          /* erased, not yet programmed */
#define P2L_INVALID (UINT32_MAX - 1)    /* programmed, data superseded or trimmed */
/* L2P marker */
#define L2P_UNMAPPED UINT32_MAX
#define NO_LINE UINT32_MAX

enum line_state {
    LINE_FREE,      /* erased, in the free queue */
    LINE_OPEN,      /* owned by a write pointer, being programmed */
    LINE_FULL,      /* closed, every page valid: in the full list */
    LINE_VICTIM,    /* closed with invalid pages: in the victim heap */
    LINE_GC,        /* being collected */
};

struct line {
    uint32_t valid;         /* valid pages */
    uint32_t invalid;       /* programmed pages whose data is stale */
    uint32_t heap_pos;      /* LINE_VICTIM: index in the victim heap */
    uint32_t prev, next;    /* LINE_FULL: full-list neighbours (NO_LINE at the ends) */
    uint8_t state;          /* enum line_state */
    uint8_t wp;             /* write pointer that opened the line (stream GC re-writes) */
};

struct block {
    uint32_t valid;
    uint32_t invalid;
    uint32_t erase_count;
};

struct write_pointer {
    uint32_t line;          /* open line or NO_LINE; an open line always has a free page */
    uint32_t offset;        /* next page offset in the line */
};

struct ftl {
    struct ftl_config cfg;
    struct ftl_geometry geo;
    uint32_t pgs_per_line;  /* geo.pgs_per_line, narrowed for the hot paths */
    uint32_t luns;
    uint32_t nchs;
    uint32_t secs_per_pg;
    /* Shift and mask replacing the hot paths' divisions when the sizes are powers of two
     * (every shipped configuration); 0 when they are not. */
    uint32_t line_shift, lun_mask;

    uint32_t *l2p;          /* [logical_pages] ppa or L2P_UNMAPPED */
    uint64_t *mapped_bits;  /* [mapped_words] bit lpn set iff l2p[lpn] is mapped: trim
                             * skips unmapped runs 64 pages at a time, so a deallocate
                             * costs the pages it unmaps, not the range it names */
    uint64_t mapped_words;
    uint32_t *p2l;          /* [phys_pages] lpn or a P2L marker */
    uint32_t *write_count;  /* [logical_pages] host writes, saturating */
    struct block *blocks;   /* [lines * luns], index line * luns + lun */
    struct line *lines;     /* [lines] */

    uint32_t *free_queue;   /* ring of free line ids, FIFO to spread erases */
    uint32_t free_head, free_count;
    uint32_t full_head, full_tail, full_count;
    uint32_t *victim_heap;  /* binary min-heap of line ids keyed on valid pages */
    uint32_t victim_count;

    struct write_pointer wps[FTL_MAX_WRITE_POINTERS];
    uint32_t nwps;

    uint64_t *lun_avail_ns; /* [luns] when each LUN is next idle */
    uint64_t *ch_avail_ns;  /* [nchs] when each channel bus is next idle */

    struct ftl_counters ctr;
    uint64_t valid_pages;
    uint64_t max_lpn_plus_one;
};

static inline void mapped_set(struct ftl *ftl, uint64_t lpn)
{
    ftl->mapped_bits[lpn / 64] |= UINT64_C(1) << (lpn % 64);
}

static inline void mapped_clear(struct ftl *ftl, uint64_t lpn)
{
    ftl->mapped_bits[lpn / 64] &= ~(UINT64_C(1) << (lpn % 64));
}

static inline uint32_t ppa_line(const struct ftl *ftl, uint32_t ppa)
{
    return ftl->line_shift ? ppa >> ftl->line_shift : ppa / ftl->pgs_per_line;
}

/* luns divides pgs_per_line, so the LUN is the page address modulo luns. */
static inline uint32_t ppa_lun(const struct ftl *ftl, uint32_t ppa)
{
    return ftl->lun_mask ? ppa & ftl->lun_mask : ppa % ftl->luns;
}

static inline struct block *ppa_block(struct ftl *ftl, uint32_t ppa)
{
    return &ftl->blocks[(uint64_t)ppa_line(ftl, ppa) * ftl->luns + ppa_lun(ftl, ppa)];
}

static inline uint64_t max_u64(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

/* line_lists.c: free queue, full list, victim heap and line state changes */
void lines_init(struct ftl *ftl);
uint32_t free_queue_pop(struct ftl *ftl);           /* NO_LINE when empty */
void free_queue_push(struct ftl *ftl, uint32_t line);
void line_close(struct ftl *ftl, uint32_t line);     /* open -> full list or victim heap */
uint32_t victim_peek(const struct ftl *ftl);         /* NO_LINE when empty */
void victim_remove(struct ftl *ftl, uint32_t line);
void line_page_invalidated(struct ftl *ftl, uint32_t line);  /* after valid--, invalid++ */

/* placement.c: write pointers and the classifiers that choose one */
uint32_t placement_for_host(const struct ftl *ftl, uint32_t lpn, uint32_t stream);
uint32_t placement_for_gc(const struct ftl *ftl, uint32_t lpn, uint32_t victim_line);
/* Program lpn into the next page of write pointer wp (FEMU striping) and map it there;
 * a line that fills up is closed. With fallback, use another write pointer's open line
 * when no free line is left. Returns false (nothing changed) when no page is free. */
bool wp_place(struct ftl *ftl, uint32_t wp, bool fallback, uint32_t lpn, uint32_t *ppa);

/* timing.c: per-LUN and per-channel occupancy; each returns the operation's end time */
uint64_t nand_read(struct ftl *ftl, uint32_t lun, uint64_t start_ns);
uint64_t nand_program(struct ftl *ftl, uint32_t lun, uint64_t start_ns);
uint64_t nand_erase(struct ftl *ftl, uint32_t lun, uint64_t start_ns);

/* map.c: mapping updates that keep maps, block/line counts and lists in step */
void map_invalidate(struct ftl *ftl, uint32_t ppa);
void map_bind(struct ftl *ftl, uint32_t lpn, uint32_t ppa);

/* gc.c */
int gc_collect_line(struct ftl *ftl, uint32_t victim, uint64_t now_ns);
int gc_foreground(struct ftl *ftl, uint64_t now_ns);

#endif
