/*
 * struct ftl: the one handle every layer of the FTL works on, and the records of the flash
 * it models (lines, blocks, write pointers). Every layer keeps its state here rather than
 * in a handle of its own, so the hot paths index the per-page arrays directly; where a
 * field belongs to one module, its comment names it. The modules built on a table of their
 * own (DFTL, the write buffer, the zoned namespace) keep only an opaque pointer here.
 *
 * Everything that says line means GC unit (flash/geometry.h: a line, or a block with
 * gc_unit=block); line_luns is how many LUNs one spans.
 */
#ifndef FEMU_FTL_FLASH_FTL_HANDLE_H
#define FEMU_FTL_FLASH_FTL_HANDLE_H

#include "femu_ftl/fdp.h"
#include "femu_ftl/ftl.h"

/* No line: the end of a list, a write pointer without an open line, no GC in progress. */
#define NO_LINE UINT32_MAX

enum line_state {
    LINE_FREE,      /* erased, in the free queue */
    LINE_OPEN,      /* owned by a write pointer, being programmed */
    LINE_FULL,      /* closed, every page valid: in the full list */
    LINE_VICTIM,    /* closed with invalid pages: in the victim heap */
    LINE_GC,        /* being collected (ftl->gc_line, inside one GC call) */
    LINE_DEAD,      /* every block factory bad: in no structure, never used */
    LINE_SLC,       /* closed in SLC mode (slc_cache): in the SLC FIFO, never a victim */
    LINE_MAPPED,    /* owned by a hybrid mapping (map/hybrid_tables.h): in no list, never
                     * a victim */
};

struct line {
    uint32_t valid;         /* valid pages */
    uint32_t invalid;       /* programmed pages whose data is stale */
    uint32_t heap_pos;      /* LINE_VICTIM: index in the victim heap */
    uint32_t prev, next;    /* LINE_FULL: full-list neighbours, LINE_SLC: SLC FIFO
                             * neighbours (NO_LINE at the ends) */
    uint32_t capacity;      /* pages of its good blocks: pgs_per_line without bad blocks */
    uint64_t written_ns;    /* closed lines: when the last page was programmed (the
                             * caller's time), the age cost-benefit GC weighs; after a
                             * restore it may lie before the clock's 0 (wrapped), so
                             * it is compared by signed difference */
    uint64_t close_seq;     /* closed lines: close order, 1 first (fifo GC) */
    uint8_t state;          /* enum line_state */
    uint8_t wp;             /* write pointer that opened the line (stream GC re-writes) */
    bool erase_owed;        /* free in the maps, its erase still owed (flash/debt.c) */
    bool slc;               /* used in SLC mode: the SLC write pointer's, or LINE_SLC */
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
    uint64_t opened_ns;     /* when line got its first page (FDP's RU time limit) */
};

/* The write pointer of translation pages (mapping=dftl), after the data ones. */
#define MAP_WP FTL_MAX_WRITE_POINTERS

/* Why a line is being collected: whose counters its work goes to (gc.c, flash/debt.c). */
enum gc_kind {
    GC_KIND_DATA,       /* data GC: gc_runs, gc_moved_pages, ... */
    GC_KIND_MAP,        /* a map line (translation pages): map_gc_* */
    GC_KIND_FALLBACK,   /* the defragmenting fallback of a starved stream: fallback_* */
};

struct lun_busy;    /* flash/timing.h: one LUN's busy intervals */
struct wc_slot;     /* place/write_count.h: exact counts past 16 bits */
struct dftl;        /* map/dftl_tables.h: cached mapping table, translation directory */
struct zns;         /* zns/zns_tables.h: the zone state machine and the zones' flash record */
struct wbuf;        /* wbuf/write_buffer_tables.h: the DRAM write buffer */
struct hybrid;      /* map/hybrid_tables.h: block, BAST and FAST mappings' tables */
struct rcache;      /* rcache/read_cache_entries.h: the DRAM read cache */
struct kv_stores;   /* kv/kv_tables.h: the key-value stores */

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
    uint16_t *heat;         /* [logical_pages] place/heat.c: aged counts (hot_decay), or NULL */
    uint64_t heat_ticks;    /* host page writes since the last halving of heat */
    uint64_t hot_pages;     /* placement=hotcold: logical pages classified hot now */
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
    uint32_t *gc_scratch;   /* [2 x lines] gc_policy.c: victims by group */
    uint32_t victim_count;  /* all pools */
    uint32_t victims_by_wp[MAP_WP + 1];    /* of them, those each write pointer opened */

    struct write_pointer wps[FTL_MAX_WRITE_POINTERS + 1];  /* data, then MAP_WP */
    uint32_t nwps;          /* data write pointers */

    /* The unit being collected (gc.c): NO_LINE between calls, since a collection is
     * done in the maps at once; gc_kind says whose counters its work goes to. */
    uint32_t gc_line;
    uint8_t gc_kind;        /* enum gc_kind */
    /* Paced GC's debt (flash/debt.c): a ring of gc_debt_count operations from
     * gc_debt_head (debt_capacity() slots), gc_debt_moves of them page moves. */
    struct gc_debt_op {
        uint32_t src, dst;
        uint32_t unit;      /* an erase: the unit; a move: gc_kind << 8 | write pointer */
    } *gc_debt;
    uint32_t gc_debt_head, gc_debt_count, gc_debt_moves;
    uint32_t gc_debt_units;     /* units whose erase is owed (erase_owed set) */
    uint32_t *gc_erase_luns;    /* [luns] gc.c: the LUNs of a deferred erase */
    bool gc_deferring;      /* a collection in progress records its flash work as debt */
    uint32_t *gc_lun_cursor;    /* [luns] gc.c: each LUN's next page of gc_line to look at */
    uint32_t gc_first_offset;   /* gc.c: no valid page of gc_line lies before this offset */
    /* the last background victim's counts: gc.c's rate of owed moves per host page */
    uint32_t gc_rate_valid, gc_rate_invalid;
    uint64_t gc_owed;       /* page moves host writes owe (units: gc.c) */

    uint64_t *lun_avail_ns; /* [luns] when each LUN is next idle */
    uint64_t *ch_avail_ns;  /* [nchs] when each channel bus is next idle */
    struct lun_busy *lun_busy;  /* [luns] busy intervals (timing.c) */
    /* The power state's speed (power/, set by the engine before each request): every
     * flash operation timed takes 100 / flash_perf_pcent times as long; 0 or 100: as
     * configured (timing.c) */
    uint32_t flash_perf_pcent;
    /* The counters as they will be at t_ns, the power states' time brought up to it: set
     * by the engine while it lives (engine.c), read by the statistics' rows */
    void (*counters_at)(void *opaque, uint64_t t_ns, struct ftl_counters *c);
    void *counters_opaque;

    /* slc_cache=on (flash/slc.h, gc/slc_fold.c): the SLC write pointer; the closed SLC
     * units oldest first (close order) through their prev/next links; the next page
     * offset of the oldest one folding looks at. slc_end is the offset past a unit's SLC
     * pages (slc_pgs_per_blk x line_luns: FEMU's striping keeps them first), 0 when off. */
    struct write_pointer slc_wp;
    uint32_t slc_head, slc_tail, slc_count;
    uint32_t slc_fold_off;
    uint32_t slc_end;
    uint64_t slc_valid_pages;   /* valid pages in SLC units (page_map.c keeps it), so the
                                 * gauge is O(1) like the others */

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
    struct rcache *rcache;      /* read_cache_pages > 0, else NULL (core/ftl.c) */
    struct zns *zns;            /* zoned=1, else NULL */
    struct hybrid *hybrid;      /* mapping=block|bast|fast, else NULL */
    /* Key-value stores (kv/, above core): NULL until the first ftl_kv_create. core may
     * not call kv by name, so kv sets kv_free (ftl_destroy calls it) when it makes the
     * list, and keeps kv_keys / kv_live_bytes (ftl_get_gauges reads them) and kv_host_bytes
     * (the host memory of its tables: ftl_metadata_bytes) up to date. */
    struct kv_stores *kv;
    void (*kv_free)(struct ftl *ftl);
    /* ftl_check's KV part (kv/kv_check.h), set with kv_free for the same reason */
    int (*kv_check)(const struct ftl *ftl, char *err, size_t errlen);
    uint64_t kv_keys, kv_live_bytes, kv_host_bytes;
    uint64_t *victim_hist[2];   /* [pgs_per_line + 1] victims by valid pages: data, map */
    /* read_retry.c: when each block ([blocks]) got its first page since its erase, and
     * host page reads by age class (expected steps, whole) x steps taken, each
     * [read_retry_max + 1] */
    uint64_t *block_programmed_ns;
    uint64_t *retry_hist;

    /* Power loss (core/power_cut.c). write_cache_off: the host switched the volatile write
     * cache off (ftl_set_write_cache). newest_ns: the newest time a host command or
     * background step gave, before which no cut may fall. inflight: host page programs
     * that may still be in flight (hostio/inflight.c), a ring from inflight_head in issue
     * order, pruned of those ended by the time of each new one. */
    bool write_cache_off;
    uint64_t newest_ns;
    struct inflight_prog {
        uint32_t lpn, ppa;
        uint64_t end_ns;
    } *inflight;
    uint32_t inflight_head, inflight_count, inflight_cap;

    /* placement=fdp (place/fdp.c): events not yet taken, a ring from fdp_event_head */
    struct ftl_fdp_event fdp_events[FTL_FDP_EVENT_RING];
    uint32_t fdp_event_head, fdp_event_count;
    uint64_t fdp_events_lost;

    /* ftl_set_unit_observer (flash/unit_events.h): units opened and chosen, or NULL */
    ftl_unit_observer unit_observer;
    void *unit_observer_ctx;
};

/* A host command or background step at now_ns: no power cut may come before it. */
static inline void ftl_note_time(struct ftl *ftl, uint64_t now_ns)
{
    if (now_ns > ftl->newest_ns) {
        ftl->newest_ns = now_ns;
    }
}

#endif
