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
 *
 * With gc_unit=block the unit GC and allocation work on is one block, and the layout is
 *
 *     ppa = unit * pgs_per_blk + page,   unit = line * luns + lun
 *
 * so a unit is the block (line, lun) with the same index as in line mode, its pages are
 * consecutive, and the "lines" below (struct line, the lists) are blocks. Everything that
 * says line means GC unit; line_luns is how many LUNs one spans.
 */
#ifndef FEMU_FTL_INTERNAL_H
#define FEMU_FTL_INTERNAL_H

#include "ftl.h"
#include "zns.h"

/*
 * P2L markers (never valid LPNs: logical pages < phys pages <= UINT32_MAX - 2) and the
 * L2P marker, as l2p_get() / p2l_get() return them. The maps store value + 1 (mod 2^32),
 * so P2L_FREE and L2P_UNMAPPED are stored as 0: maps fresh from calloc read as all erased
 * and all unmapped, and cost memory only where written.
 */
#define P2L_FREE    UINT32_MAX          /* erased, not yet programmed (stored 0) */
#define P2L_INVALID (UINT32_MAX - 1)    /* programmed, data superseded or trimmed */
#define L2P_UNMAPPED UINT32_MAX         /* stored 0 */
#define NO_LINE UINT32_MAX

enum line_state {
    LINE_FREE,      /* erased, in the free queue */
    LINE_OPEN,      /* owned by a write pointer, being programmed */
    LINE_FULL,      /* closed, every page valid: in the full list */
    LINE_VICTIM,    /* closed with invalid pages: in the victim heap */
    LINE_GC,        /* being collected (paced GC keeps one across requests: ftl->gc_line) */
    LINE_DEAD,      /* every block factory bad: in no structure, never used */
};

struct line {
    uint32_t valid;         /* valid pages */
    uint32_t invalid;       /* programmed pages whose data is stale */
    uint32_t heap_pos;      /* LINE_VICTIM: index in the victim heap */
    uint32_t prev, next;    /* LINE_FULL: full-list neighbours (NO_LINE at the ends) */
    uint32_t capacity;      /* pages of its good blocks: pgs_per_line without bad blocks */
    uint64_t written_ns;    /* closed lines: when the last page was programmed (the
                             * caller's time), the age cost-benefit GC weighs */
    uint64_t close_seq;     /* closed lines: close order, 1 first (fifo GC) */
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
    uint32_t offset;        /* next page offset in the line, always on a good block */
    uint32_t next_pool;     /* gc_unit=block: the LUN whose free list opens the next block */
};

/* The write pointer of translation pages (mapping=dftl), after the data ones. */
#define MAP_WP FTL_MAX_WRITE_POINTERS

/* timing.c: one LUN's busy time (ftl_lun_busy_ns): the open interval [open_start, the
 * LUN's idle time), the closed ones not yet wholly before the last sample, oldest first in
 * a ring, and the busy time of those that are. */
struct busy_interval {
    uint64_t start, end;
};
struct lun_busy {
    uint64_t open_start;
    struct busy_interval *ring;
    uint32_t head, count, cap;
    uint64_t done_ns;
};

struct dftl;    /* dftl.c: cached mapping table, translation directory */
struct zns;     /* zns.c: the zone state machine and the zones' flash record */
struct wbuf;    /* write_buffer.c: the DRAM write buffer */

struct ftl {
    struct ftl_config cfg;
    struct ftl_geometry geo;
    uint32_t pgs_per_line;  /* pages per unit (geo.pgs_per_unit), narrowed for the hot paths */
    uint32_t nunits;        /* geo.units: lines, or blocks with gc_unit=block */
    uint32_t line_luns;     /* LUNs one unit spans: luns, or 1 with gc_unit=block */
    bool block_mode;        /* gc_unit=block */
    uint32_t luns;
    uint32_t nchs;
    uint32_t secs_per_pg;
    /* Shift and mask replacing the hot paths' divisions when the sizes are powers of two
     * (every shipped configuration); 0 when they are not. */
    uint32_t line_shift, lun_mask;

    uint32_t *l2p_plus1;    /* [logical_pages] ppa + 1, 0 unmapped: use l2p_get/l2p_set */
    uint64_t *mapped_bits;  /* [mapped_words] bit lpn set iff l2p[lpn] is mapped: trim
                             * skips unmapped runs 64 pages at a time, so a deallocate
                             * costs the pages it unmaps, not the range it names */
    uint64_t mapped_words;
    uint32_t *p2l_plus1;    /* [phys_pages] lpn + 1 or marker + 1: use p2l_get/p2l_set */
    uint16_t *write_count16;   /* [logical_pages] host writes, or WC_OVERFLOW: wc_get */
    struct wc_slot *wc_slots;  /* write_count.c: exact counts of pages marked WC_OVERFLOW */
    uint32_t wc_nslots, wc_used;
    struct block *blocks;   /* [lines * luns], index line * luns + lun */
    uint64_t *bad_bits;     /* [(blocks + 63) / 64] bit line * luns + lun: a factory bad
                             * block, never programmed nor erased (bad_blk_pcent) */
    struct line *lines;     /* [lines] */

    /* Free units: FIFO rings (to spread erases), one pool, or one per LUN with
     * gc_unit=block; pool p holds its ring in free_queue[p * pool_cap, (p + 1) * pool_cap). */
    uint32_t *free_queue;
    uint32_t *pool_head, *pool_count;   /* [npools] */
    uint32_t npools, pool_cap;
    uint32_t free_count;    /* all pools */
    uint32_t full_head, full_tail, full_count;
    /* Victim lines: a binary min-heap keyed on valid pages per free pool (one, or one per
     * LUN with gc_unit=block); pool p's is victim_heap[p * pool_cap, + heap_count[p]). */
    uint32_t *victim_heap;
    uint32_t *heap_count;   /* [npools] */
    uint32_t *gc_scratch;   /* [lines] gc_policy.c: one group's victims */
    uint32_t victim_count;  /* all pools */

    struct write_pointer wps[FTL_MAX_WRITE_POINTERS + 1];  /* data, then MAP_WP */
    uint32_t nwps;          /* data write pointers */

    /* Paced background GC (gc.c): the line being collected a few pages at a time. */
    uint32_t gc_line;       /* in state LINE_GC, or NO_LINE */
    uint32_t gc_cursor;     /* offset in gc_line before which no valid page is left */
    uint32_t *gc_lun_cursor;   /* [luns] the same, counting only that LUN's pages */
    uint32_t gc_rate_valid, gc_rate_invalid;   /* the victim's counts when chosen */
    uint64_t gc_owed;       /* page moves host writes owe (units: gc.c) */
    uint8_t gc_kind;        /* enum gc_kind of gc_line: which counters its work goes to */

    uint64_t *lun_avail_ns; /* [luns] when each LUN is next idle */
    uint64_t *ch_avail_ns;  /* [nchs] when each channel bus is next idle */
    struct lun_busy *lun_busy;  /* [luns] busy intervals (timing.c) */

    struct ftl_counters ctr;
    uint64_t valid_pages;
    uint64_t max_lpn_plus_one;

    /* Wear (erase.c), kept up to date as blocks are erased so that ftl_get_wear is O(1):
     * the minimum moves only when the last good block holding it is erased. */
    uint32_t erase_min, erase_max;
    uint64_t erase_min_blocks;  /* good blocks whose erase count is erase_min */
    uint64_t erase_sum;
    uint64_t good_blocks;

    uint64_t read_error_lpn;    /* the LPN the last failed read or verify failed on */
    uint64_t fault_rng;         /* fault.c: generator state, seeded from fault_seed */
    uint64_t free_pages;        /* good pages of the lines in the free queue */
    uint64_t gc_rng;            /* gc_policy.c: random and dchoice draws, from fault_seed */
    uint64_t close_seq_next;    /* the close_seq line_close gave last (0: none yet) */

    struct dftl *dftl;          /* mapping=dftl, else NULL */
    struct wbuf *wbuf;          /* write_buffer_sectors > 0, else NULL */
    struct zns *zns;            /* zoned=1, else NULL */
    uint64_t *victim_hist[2];   /* [pgs_per_line + 1] victims by valid pages: data, map */
};

static inline void mapped_set(struct ftl *ftl, uint64_t lpn)
{
    ftl->mapped_bits[lpn / 64] |= UINT64_C(1) << (lpn % 64);
}

static inline void mapped_clear(struct ftl *ftl, uint64_t lpn)
{
    ftl->mapped_bits[lpn / 64] &= ~(UINT64_C(1) << (lpn % 64));
}

static inline bool block_index_is_bad(const struct ftl *ftl, uint64_t index)
{
    return ftl->bad_bits[index / 64] >> (index % 64) & 1;
}

static inline uint32_t l2p_get(const struct ftl *ftl, uint64_t lpn)
{
    return ftl->l2p_plus1[lpn] - 1;     /* 0 - 1 = L2P_UNMAPPED */
}

static inline void l2p_set(struct ftl *ftl, uint64_t lpn, uint32_t ppa)
{
    ftl->l2p_plus1[lpn] = ppa + 1;
}

/* An LPN, P2L_FREE or P2L_INVALID. */
static inline uint32_t p2l_get(const struct ftl *ftl, uint64_t ppa)
{
    return ftl->p2l_plus1[ppa] - 1;
}

static inline void p2l_set(struct ftl *ftl, uint64_t ppa, uint32_t lpn)
{
    ftl->p2l_plus1[ppa] = lpn + 1;
}

/*
 * Per-LPN host write counts (write_count.c): exact, saturating at UINT32_MAX. Counts below
 * WC_OVERFLOW are in write_count16; a page marked WC_OVERFLOW has its count in the
 * overflow table. wc_overflow_set fails (changing nothing) only when the table cannot grow.
 */
#define WC_OVERFLOW UINT16_MAX
struct wc_slot {
    uint32_t lpn_plus1;     /* 0: empty */
    uint32_t count;         /* >= WC_OVERFLOW while write_count16[lpn] is WC_OVERFLOW */
};
uint32_t wc_overflow_get(const struct ftl *ftl, uint32_t lpn);
bool wc_overflow_set(struct ftl *ftl, uint32_t lpn, uint32_t count);
const struct wc_slot *wc_overflow_find(const struct ftl *ftl, uint32_t lpn);  /* or NULL */

static inline uint32_t wc_get(const struct ftl *ftl, uint32_t lpn)
{
    uint32_t c = ftl->write_count16[lpn];
    return __builtin_expect(c != WC_OVERFLOW, 1) ? c : wc_overflow_get(ftl, lpn);
}

static inline bool wc_set(struct ftl *ftl, uint32_t lpn, uint32_t count)
{
    if (__builtin_expect(count < WC_OVERFLOW, 1)) {
        ftl->write_count16[lpn] = (uint16_t)count;
        return true;
    }
    return wc_overflow_set(ftl, lpn, count);
}

/* One more host write of lpn (saturating); *before gets the count it had. */
static inline bool wc_increment(struct ftl *ftl, uint32_t lpn, uint32_t *before)
{
    uint32_t c = ftl->write_count16[lpn];
    if (__builtin_expect(c < WC_OVERFLOW - 1, 1)) {
        ftl->write_count16[lpn] = (uint16_t)(c + 1);
        *before = c;
        return true;
    }
    c = wc_get(ftl, lpn);
    *before = c;
    return wc_set(ftl, lpn, c == UINT32_MAX ? c : c + 1);
}

static inline uint32_t ppa_line(const struct ftl *ftl, uint32_t ppa)
{
    return ftl->line_shift ? ppa >> ftl->line_shift : ppa / ftl->pgs_per_line;
}

/* luns divides pgs_per_line, so the LUN is the page address modulo luns; with
 * gc_unit=block it is the unit modulo luns. */
static inline uint32_t ppa_lun(const struct ftl *ftl, uint32_t ppa)
{
    uint32_t x = ftl->block_mode ? ppa_line(ftl, ppa) : ppa;
    return ftl->lun_mask ? x & ftl->lun_mask : x % ftl->luns;
}

/* The index (line * luns + lun) of block k < line_luns of unit `unit`. */
static inline uint64_t unit_block_index(const struct ftl *ftl, uint32_t unit, uint32_t k)
{
    return ftl->block_mode ? unit : (uint64_t)unit * ftl->luns + k;
}

/* The LUN of block k of a unit. */
static inline uint32_t unit_block_lun(const struct ftl *ftl, uint32_t unit, uint32_t k)
{
    return ftl->block_mode ? unit % ftl->luns : k;
}

static inline struct block *ppa_block(struct ftl *ftl, uint32_t ppa)
{
    uint32_t unit = ppa_line(ftl, ppa);
    return &ftl->blocks[unit_block_index(ftl, unit, ppa_lun(ftl, ppa))];
}

/* The free pool a unit returns to: its LUN's with gc_unit=block, else the one. */
static inline uint32_t unit_pool(const struct ftl *ftl, uint32_t unit)
{
    return ftl->block_mode ? unit % ftl->luns : 0;
}

static inline uint64_t max_u64(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

/* line_lists.c: free queue, full list, victim heap and line state changes */
void lines_init(struct ftl *ftl);
/* A free unit from pool `pool` (the next pools in turn when it is empty); NO_LINE when
 * every pool is empty. */
uint32_t free_queue_pop(struct ftl *ftl, uint32_t pool);
void free_queue_push(struct ftl *ftl, uint32_t line);
/* open -> full list or victim heap; now_ns: when its last page was programmed */
void line_close(struct ftl *ftl, uint32_t line, uint64_t now_ns);
uint32_t victim_peek(const struct ftl *ftl);         /* fewest valid of all; NO_LINE: none */
uint32_t victim_peek_pool(const struct ftl *ftl, uint32_t pool);    /* the same in one pool */
/* The victim lines of one LUN's pool (GC_ANY_LUN: all), copied into out (room for every
 * line); returns how many. Pool by pool, each in its heap's array order. */
uint32_t victims_list(const struct ftl *ftl, uint32_t lun, uint32_t *out);
void victim_remove(struct ftl *ftl, uint32_t line);
void line_page_invalidated(struct ftl *ftl, uint32_t line);  /* after valid--, invalid++ */

/* placement.c: the classifiers that choose a write pointer */
uint32_t placement_for_host(const struct ftl *ftl, uint32_t lpn, uint32_t stream);
uint32_t placement_for_gc(const struct ftl *ftl, uint32_t lpn, uint32_t victim_line);
/* write_pointers.c: Program lpn into the next page of write pointer wp (FEMU striping) and map it there;
 * a line that fills up is closed. With fallback, use another write pointer's open line
 * when no free line is left. Returns false (nothing changed) when no page is free. */
bool wp_place(struct ftl *ftl, uint32_t wp, bool fallback, uint32_t lpn, uint32_t *ppa,
              uint64_t now_ns);

/* timing.c: per-LUN and per-channel occupancy; each returns the operation's end time */
uint64_t nand_read(struct ftl *ftl, uint32_t lun, uint64_t start_ns);
uint64_t nand_program(struct ftl *ftl, uint32_t lun, uint64_t start_ns);
uint64_t nand_erase(struct ftl *ftl, uint32_t lun, uint64_t start_ns);
/* Copyback: sense into the LUN's register and program from it, no channel transfer. */
uint64_t nand_copyback(struct ftl *ftl, uint32_t lun, uint64_t start_ns);
void busy_free(struct ftl *ftl);
size_t busy_metadata_bytes(const struct ftl *ftl);

/* map.c: mapping updates that keep maps, block/line counts and lists in step */
void map_invalidate(struct ftl *ftl, uint32_t ppa);
void map_bind(struct ftl *ftl, uint32_t lpn, uint32_t ppa);

/* Whether page offset `off` of line `line` lies on a factory bad block. */
static inline bool page_is_bad(const struct ftl *ftl, uint32_t line, uint32_t off)
{
    return block_index_is_bad(ftl, unit_block_index(ftl, line, off % ftl->line_luns));
}

/* The first page offset at or after off on a good block of line (pgs_per_line if none).
 * A line without bad blocks answers at once, so the hot paths pay one compare. */
static inline uint32_t line_next_good(const struct ftl *ftl, uint32_t line, uint32_t off)
{
    if (ftl->lines[line].capacity == ftl->pgs_per_line) {
        return off;
    }
    while (off < ftl->pgs_per_line && page_is_bad(ftl, line, off)) {
        off++;
    }
    return off;
}

/* fault.c: the seeded generator, factory bad blocks and read failures */
/* Seed the generator and choose the bad blocks (bad_bits, good_blocks, line capacities). */
void faults_init(struct ftl *ftl);
/* Whether the host flash read about to happen fails (read_uncor_ppm > 0: one draw). */
bool fault_read_fails(struct ftl *ftl);
/* Uniform in [0, n) for n > 0 from a generator state seeded like the fault generator. */
uint64_t rng_state_below(uint64_t *state, uint64_t n);

/* erase.c: erasing lines and the wear it leaves */
/* The wear figures recomputed from every good block's erase count: O(blocks). */
struct wear_figures {
    uint32_t min, max;          /* min 0 when there is no good block */
    uint64_t at_min, sum;       /* blocks at the minimum; total erases */
};
void wear_scan(const struct ftl *ftl, struct wear_figures *out);
void wear_init(struct ftl *ftl);
/* Erase every good block of line id (each on its LUN, from now_ns), mark its pages erased
 * and put it in the free queue. Returns when the last erase ends (now_ns if none);
 * *blocks gets the number of blocks erased. Counts nand_erases, not who asked. */
uint64_t line_erase(struct ftl *ftl, uint32_t id, uint64_t now_ns, uint32_t *blocks);
/* A good block (index line * luns + lun) was erased: its erase count and the wear. */
void block_erased(struct ftl *ftl, uint64_t index);

/*
 * zns.c: the zoned namespace (zoned=1; only called when ftl->zns is set). Flash side:
 * zone sectors are absolute zoned sectors; a write or read that leaves the zone's
 * capacity (one zone) or the namespace is FTL_E_INVAL.
 */
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

/* copy.c: Simple Copy of ranges (the sources) to dest, in the zoned namespace (zoned) or
 * through the conventional FTL. */
int ftl_copy(struct ftl *ftl, const struct ftl_range *src, uint32_t nsrc, uint64_t dest,
             bool zoned, uint64_t now_ns, uint64_t *done_ns);

/*
 * gc_policy.c: the victim gc_policy chooses among the victim lines (NO_LINE when there
 * is none), not yet taken out of the heap. group GC_ANY_GROUP: every victim line (greedy's
 * is victim_peek()); a data write pointer s: the lines of s and the map lines (per-stream
 * GC, placement=stream).
 */
#define GC_ANY_GROUP UINT32_MAX
#define GC_ANY_LUN UINT32_MAX
/* lun (gc_unit=block): only that LUN's blocks, GC_ANY_LUN: all. */
uint32_t gc_policy_victim(struct ftl *ftl, uint64_t now_ns, uint32_t group, uint32_t lun);
/* Whether some victim line (closed, with an invalid page) belongs to write pointer wp. */
bool gc_group_has_victim(const struct ftl *ftl, uint32_t wp);

/* Why a line is being collected: whose counters its work goes to. */
enum gc_kind {
    GC_KIND_DATA,       /* data GC: gc_runs, gc_moved_pages, ... */
    GC_KIND_MAP,        /* a map line (translation pages): map_gc_* */
    GC_KIND_FALLBACK,   /* the defragmenting fallback of a starved stream: fallback_* */
};

/* host_page.c: the per-page host paths the write buffer and the direct path share */
/*
 * Program host page lpn (foreground GC first when free lines are low, the dftl lookup,
 * placement, mapping, the page program from data_ready_ns). Counts the program
 * (nand_user_programs, the write pointer's host pages), not the host write: the caller
 * counts that when it accepts the write. Raises *done to when the page is on flash.
 */
int host_program_page(struct ftl *ftl, uint32_t lpn, uint32_t stream, uint64_t now_ns,
                      uint64_t data_ready_ns, uint64_t *done);
/* What accepting a host page changed, so that a page that cannot be placed after all can
 * be taken back. */
struct host_page_undo {
    uint32_t count_before;      /* its write count before */
    uint64_t max_before;        /* the highest LPN written + 1 before */
};
/* A host write of lpn was accepted: its write count (for hot/cold and the per-LPN file),
 * host_write_pages and the highest LPN written. false: the count could not be kept. */
bool host_page_accepted(struct ftl *ftl, uint32_t lpn, struct host_page_undo *undo);
/* The accepted page was not written after all: every figure goes back. */
void host_page_withdrawn(struct ftl *ftl, uint32_t lpn, const struct host_page_undo *undo);
/* Read lpn's flash page for the host (dftl lookup first); unmapped pages cost nothing.
 * Raises *done; returns whether the read failed (read_uncor_ppm). */
bool flash_read_page(struct ftl *ftl, uint32_t lpn, uint64_t now_ns, uint64_t *done);

/* The sectors of page lpn that [slba, slba + nlb) covers: bit i for sector i of the page
 * (secs_per_pg <= 64 wherever it is used: the write buffer's pages). */
static inline uint64_t page_sector_mask(const struct ftl *ftl, uint64_t lpn, uint64_t slba,
                                        uint64_t nlb)
{
    uint64_t spp = ftl->secs_per_pg, first = lpn * spp;
    uint64_t lo = slba > first ? slba - first : 0;
    uint64_t end = slba + nlb - first;  /* exclusive, may lie past the page */
    uint64_t hi = end < spp ? end : spp;
    uint64_t upto = hi >= 64 ? UINT64_MAX : (UINT64_C(1) << hi) - 1;
    return upto & ~((UINT64_C(1) << lo) - 1);
}

/* dftl.c (mapping=dftl); every entry point is only called when ftl->dftl is set */
int dftl_init(struct ftl *ftl);             /* FTL_OK or FTL_E_NOMEM */
void dftl_free(struct ftl *ftl);
/* lpn's mapping entry is needed at now_ns; returns when it is in the CMT (now_ns on a
 * hit). update: the caller is about to change it (it becomes dirty). */
uint64_t dftl_lookup(struct ftl *ftl, uint32_t lpn, bool update, uint64_t now_ns);
/* lpn's mapping changed without a host lookup (GC moved it, trim or format unmapped it):
 * a cached entry turns dirty, else its translation page is queued for a rewrite. */
void dftl_note_update(struct ftl *ftl, uint32_t lpn);
/* Rewrite the queued translation pages (read-modify-write each once). gc: count them in
 * gc_map_updates. Returns when the last program ends (now_ns if none). */
uint64_t dftl_write_pending(struct ftl *ftl, bool gc, uint64_t now_ns);
/* Translation page tvpn was just placed at ppa (rewritten, or moved by map GC): the
 * directory follows. map_bind leaves this to the callers of wp_place with a translation
 * page: the directory is DFTL's, and the map layer knows nothing of it. */
void dftl_tpage_bind(struct ftl *ftl, uint32_t tvpn, uint32_t ppa);
int dftl_check(const struct ftl *ftl, char *err, size_t errlen);
uint64_t dftl_written_tpages(const struct ftl *ftl);    /* on flash now */
size_t dftl_metadata_bytes(const struct ftl *ftl);

/* write_buffer.c (write_buffer_sectors > 0); only called when ftl->wbuf is set */
int wbuf_init(struct ftl *ftl);             /* FTL_OK or FTL_E_NOMEM */
void wbuf_free(struct ftl *ftl);
/* A host write into the buffer (range checked by the caller); flushes LRU pages past the
 * watermark. *done_ns: buf_wr_lat after arrival, or when the flushes that made room end. */
int wbuf_write(struct ftl *ftl, const struct ftl_io *io, uint64_t *done_ns);
/* Whether every sector of lpn set in mask (bit i: sector i of the page) is buffered. */
bool wbuf_covers(const struct ftl *ftl, uint32_t lpn, uint64_t mask);
/* Write every buffered page to flash; *done_ns when the last program ends. */
int wbuf_flush_all(struct ftl *ftl, uint64_t now_ns, uint64_t *done_ns);
/* Forget buffered pages in [start, end) (trim, format): their data is gone. */
void wbuf_drop(struct ftl *ftl, uint64_t start, uint64_t end);
uint64_t wbuf_sectors(const struct ftl *ftl);
int wbuf_check(const struct ftl *ftl, char *err, size_t errlen);
size_t wbuf_metadata_bytes(const struct ftl *ftl);

/* gc.c */
int gc_collect_line(struct ftl *ftl, uint32_t victim, uint64_t now_ns);
/* Foreground GC before a host page of `stream` (placement=stream: its lines, else any). */
int gc_foreground(struct ftl *ftl, uint64_t now_ns, uint32_t stream);
/* A host page was programmed: paced GC owes the line under collection its share of moves. */
void gc_host_page_written(struct ftl *ftl);

#endif
