/*
 * Garbage collection over lines. The victim is the closed line gc_policy chooses
 * (gc_policy.c; greedy, the default, takes the fewest valid pages); its valid pages are
 * read and re-written through the write pointers (classified like host writes), its
 * blocks erased, and the line returns to the free queue. Foreground GC (before a host page
 * write, free lines <= the high threshold) takes any victim and collects it whole;
 * background GC (free lines <= the low threshold, after each request) only a victim with
 * at least 1/8 of its pages invalid, in one of two modes:
 *
 * line (FEMU): the whole victim's flash work is queued on the LUNs at once, and every
 * host command that arrives meanwhile waits behind its thousands of page moves.
 *
 * paced: line GC's victims (the maps change at once, as with line GC), but their flash
 * time is charged later (flash/debt.c), and counted when charged: each host page written
 * owes the last victim's valid/invalid page moves (collecting it gains `invalid` free
 * pages for `valid` moves, so that rate keeps free space level) plus the debt over the
 * free pages ahead of the first freed unit whose erase is owed; after every request,
 * moves whose source and destination LUNs are idle at that instant are charged for free
 * (idle flash time); a victim's pages move LUN by LUN (read and program on one LUN); and
 * opening a unit whose erase is owed, or foreground GC, charges what is owed at once. A
 * burst of line GC's collections is taken only as far as host pages can pay for it near
 * the level rate (debt_takes); the rest of it waits. So paced GC changes when the flash
 * is busy and, in a burst, when a victim is collected, not what it chooses: its WAF
 * stays within a few per cent of line GC's. (An
 * earlier paced GC moved a unit's pages a few at a time between host pages, which
 * interleaved GC's survivors, mostly cold, with fresh host data in the same open unit; on
 * skewed traffic that cost up to a third more WAF than line GC, which writes them in one
 * run.) A collection's moved pages take their new places at once, so their programs may
 * run after host pages placed behind them in the same block: the model keeps the order of
 * work on each LUN, not NAND's in-order programming within a block.
 */
#include "gc/gc.h"

#include "flash/debt.h"
#include "flash/erase.h"
#include "flash/geometry.h"
#include "flash/line_lists.h"
#include "flash/p2l.h"
#include "flash/timing.h"
#include "gc/gc_policy.h"
#include "gc/slc_fold.h"
#include "map/dftl.h"
#include "map/page_map.h"
#include "map/write_pointers.h"
#include "place/placement.h"

/* A collected line is erased and freed: one GC run of its kind (a fallback run counts
 * once for all the lines it compacts: gc_fallback). */
static void gc_erase_line(struct ftl *ftl, uint32_t id, uint64_t now_ns)
{
    uint32_t blocks;

    if (ftl->gc_deferring) {
        blocks = line_erase_untimed(ftl, id, ftl->gc_erase_luns);
        for (uint32_t i = 0; i < blocks; i++) {
            debt_push_erase(ftl, ftl->gc_erase_luns[i], id);
        }
    } else {
        line_erase(ftl, id, now_ns, &blocks);
    }
    switch (ftl->gc_kind) {
    case GC_KIND_MAP:
        ftl->ctr.map_gc_erased_blocks += blocks;
        ftl->ctr.map_gc_runs++;
        break;
    case GC_KIND_FALLBACK:
        ftl->ctr.fallback_erased_blocks += blocks;
        ftl->ctr.fallback_lines++;
        break;
    default:
        ftl->ctr.gc_erased_blocks += blocks;
        ftl->ctr.gc_runs++;
        break;
    }
}

/* Whether the page at ppa holds data GC must move. */
static bool page_is_valid(const struct ftl *ftl, uint32_t ppa)
{
    return p2l_get(ftl, ppa) < P2L_INVALID;
}

/* Move the valid page at ppa of the victim line to a write pointer's next page. */
static int gc_move_page(struct ftl *ftl, uint32_t victim, uint32_t ppa, uint64_t now_ns)
{
    uint32_t lpn = p2l_get(ftl, ppa);
    uint32_t wp = placement_for_gc(ftl, lpn, victim);
    uint32_t new_ppa;

    if (!wp_place(ftl, wp, true, lpn, &new_ppa, now_ns)) {
        return FTL_E_NOSPC;  /* only on an inconsistent geometry */
    }
    uint32_t new_wp = ftl->lines[ppa_line(ftl, new_ppa)].wp;
    if (ftl->gc_deferring) {
        debt_push_move(ftl, ppa_lun(ftl, ppa), ppa_lun(ftl, new_ppa), ftl->gc_kind, new_wp);
    } else {
        nand_program(ftl, ppa_lun(ftl, new_ppa), nand_read(ftl, ppa_lun(ftl, ppa), now_ns));
        count_gc_move(ftl, ftl->gc_kind, new_wp);
    }
    map_invalidate(ftl, ppa);
    if (ftl->dftl) {
        if (lpn < ftl->geo.logical_pages) {
            dftl_note_update(ftl, lpn);     /* the moved page's entry changed */
        } else {
            /* a translation page (map GC): the directory follows it */
            dftl_tpage_bind(ftl, (uint32_t)(lpn - ftl->geo.logical_pages), new_ppa);
        }
    }
    return FTL_OK;
}

/* Take the victim out of the heap and start collecting it at its first page. A map line
 * is map GC whoever asked; fallback says a starved stream's compaction asked. */
static void gc_begin(struct ftl *ftl, uint32_t victim, bool fallback)
{
    struct line *l = &ftl->lines[victim];
    bool map = l->wp == MAP_WP;

    ftl->gc_kind = map ? GC_KIND_MAP : fallback ? GC_KIND_FALLBACK : GC_KIND_DATA;
    ftl->victim_hist[map][l->valid]++;
    if (map) {
        ftl->ctr.map_gc_victim_valid_pages += l->valid;
    } else {
        ftl->ctr.gc_victim_valid_pages += l->valid;
    }
    victim_remove(ftl, victim);
    l->state = LINE_GC;
    ftl->gc_line = victim;
}

/* The LUN the write pointer wp programs next. */
static uint32_t wp_next_lun(const struct ftl *ftl, uint32_t wp)
{
    const struct write_pointer *w = &ftl->wps[wp];

    return w->line == NO_LINE ? 0 : ppa_lun(ftl, w->offset);
}

/* The next valid page of the line under collection on one LUN (advancing that LUN's
 * cursor to it), or false when that LUN has none left. */
static bool next_valid_on(struct ftl *ftl, uint32_t lun, uint32_t *ppa)
{
    uint32_t base = ftl->gc_line * ftl->pgs_per_line;
    uint32_t *cursor = &ftl->gc_lun_cursor[lun];

    while (*cursor < ftl->pgs_per_line && !page_is_valid(ftl, base + *cursor)) {
        *cursor += ftl->luns;
    }
    *ppa = base + *cursor;
    return *cursor < ftl->pgs_per_line;
}

/*
 * The page paced GC moves next: one on the LUN it will be programmed on, so its read and
 * program queue on one LUN back to back. A page read on another LUN would leave the
 * programming LUN idle until that read, queued behind the other LUN's backlog, is done;
 * those gaps, not the moves, would then bound throughput. Only hot/cold placement needs a
 * page to know its write pointer (the first valid one in offset order is asked); the
 * others know it from the line. Which pages move is line GC's choice; only the order
 * differs. (A line spans every LUN: paced GC needs gc_unit=line.)
 */
static bool pick_lun_matched(struct ftl *ftl, uint32_t *ppa)
{
    uint32_t base = ftl->gc_line * ftl->pgs_per_line, want;

    if (ftl->lines[ftl->gc_line].valid == 0) {
        return false;
    }
    if (ftl->cfg.placement == FTL_PLACEMENT_HOTCOLD) {
        /* Pages of the line under collection only ever turn invalid, so the search for
         * the first valid one resumes where the last one ended (scanning from offset 0
         * each time made a collection quadratic in the line's pages). */
        uint32_t *off = &ftl->gc_first_offset;
        while (!page_is_valid(ftl, base + *off)) {
            (*off)++;   /* the line has a valid page */
        }
        want = wp_next_lun(ftl, placement_for_gc(ftl, p2l_get(ftl, base + *off), ftl->gc_line));
    } else {
        want = wp_next_lun(ftl, placement_for_gc(ftl, 0, ftl->gc_line));
    }
    for (uint32_t i = 0, lun = want; i < ftl->luns; i++) {
        if (next_valid_on(ftl, lun, ppa)) {
            return true;
        }
        lun = lun + 1 == ftl->luns ? 0 : lun + 1;
    }
    return false;  /* unreachable: the line has a valid page */
}

/* Move the valid pages of the line under collection in offset order (line GC, and block
 * units, whose pages all sit on one LUN). */
static int move_in_offset_order(struct ftl *ftl, uint64_t now_ns)
{
    uint32_t base = ftl->gc_line * ftl->pgs_per_line;

    for (uint32_t off = 0; off < ftl->pgs_per_line && ftl->lines[ftl->gc_line].valid; off++) {
        if (page_is_valid(ftl, base + off)) {
            int rc = gc_move_page(ftl, ftl->gc_line, base + off, now_ns);
            if (rc != FTL_OK) {
                return rc;
            }
        }
    }
    return FTL_OK;
}

/* Move them LUN-matched (paced GC deferring its flash work: pick_lun_matched). */
static int move_lun_matched(struct ftl *ftl, uint64_t now_ns)
{
    uint32_t ppa;

    for (uint32_t lun = 0; lun < ftl->luns; lun++) {
        /* a bad block has no page to move: its cursor starts at the end */
        bool bad = block_index_is_bad(ftl, unit_block_index(ftl, ftl->gc_line, lun));
        ftl->gc_lun_cursor[lun] = bad ? ftl->pgs_per_line : lun;
    }
    ftl->gc_first_offset = 0;
    while (pick_lun_matched(ftl, &ppa)) {
        int rc = gc_move_page(ftl, ftl->gc_line, ppa, now_ns);
        if (rc != FTL_OK) {
            return rc;
        }
    }
    return FTL_OK;
}

/* Move every valid page of the line under collection, then rewrite the translation pages
 * of moved entries no CMT slot held (dftl, one read-modify-write per page touched) and
 * erase the line. */
static int gc_move_all(struct ftl *ftl, uint64_t now_ns)
{
    bool matched = ftl->gc_deferring && !ftl->block_mode;
    int rc = matched ? move_lun_matched(ftl, now_ns) : move_in_offset_order(ftl, now_ns);

    if (rc != FTL_OK) {
        return rc;
    }
    if (ftl->dftl) {
        dftl_write_pending(ftl, true, now_ns);
    }
    gc_erase_line(ftl, ftl->gc_line, now_ns);
    ftl->gc_line = NO_LINE;
    return FTL_OK;
}

static int gc_collect(struct ftl *ftl, uint32_t victim, bool fallback, uint64_t now_ns)
{
    gc_begin(ftl, victim, fallback);
    int rc = gc_move_all(ftl, now_ns);
    if (rc != FTL_OK && ftl->gc_line != NO_LINE) {
        /* Only reachable on an inconsistent geometry: file the line back, report. */
        line_close(ftl, ftl->gc_line, now_ns);
        ftl->gc_line = NO_LINE;
    }
    return rc;
}

int gc_collect_line(struct ftl *ftl, uint32_t victim, uint64_t now_ns)
{
    return gc_collect(ftl, victim, false, now_ns);
}

/*
 * The defragmenting fallback of a stream without a victim line: every victim line of the
 * other data streams is compacted (its valid pages go back to their own stream's write
 * pointer) so their invalid pages become free lines the starved stream can open. One run,
 * however many lines. Returns FTL_E_NOSPC when there was nothing to compact.
 */
static int gc_fallback(struct ftl *ftl, uint32_t stream, uint64_t now_ns)
{
    uint32_t n = 0, all = victims_list(ftl, GC_ANY_LUN, ftl->gc_scratch);

    for (uint32_t k = 0; k < all; k++) {
        uint32_t id = ftl->gc_scratch[k];
        uint32_t wp = ftl->lines[id].wp;
        if (wp != stream && wp != MAP_WP) {
            ftl->gc_scratch[n++] = id;
        }
    }
    if (n == 0) {
        return FTL_E_NOSPC;
    }
    ftl->ctr.fallback_runs++;
    for (uint32_t i = 0; i < n; i++) {
        /* collecting one line never removes another from the victims: moved pages land
         * in open lines, and no other collection runs meanwhile */
        int rc = gc_collect(ftl, ftl->gc_scratch[i], true, now_ns);
        if (rc != FTL_OK) {
            return rc;
        }
    }
    return FTL_OK;
}

/* With gc_unit=block: the LUN with the fewest free blocks, the bank that needs space. */
static uint32_t neediest_lun(const struct ftl *ftl)
{
    uint32_t best = 0;
    for (uint32_t p = 1; p < ftl->npools; p++) {
        if (ftl->pool_count[p] < ftl->pool_count[best]) {
            best = p;
        }
    }
    return best;
}

/* The policy's victim among the group's lines; with gc_unit=block among the blocks of the
 * LUN that needs space most, or of any LUN when it has none. */
static uint32_t policy_victim_in_neediest_lun(struct ftl *ftl, uint64_t now_ns,
                                              uint32_t group)
{
    if (ftl->block_mode) {
        uint32_t victim = gc_policy_victim(ftl, now_ns, group, neediest_lun(ftl));
        if (victim != NO_LINE) {
            return victim;
        }
    }
    return gc_policy_victim(ftl, now_ns, group, GC_ANY_LUN);
}

/*
 * The next foreground victim for a host page of `stream` in *victim; NO_LINE after a
 * fallback run (look again). FTL_E_NOSPC when nothing can be collected.
 */
static int foreground_victim(struct ftl *ftl, uint64_t now_ns, uint32_t stream,
                             uint32_t *victim)
{
    *victim = NO_LINE;
    uint32_t group = GC_ANY_GROUP;
    if (placement_host_handles(ftl) && ftl->cfg.gc_scope == FTL_GC_SCOPE_STREAM) {
        group = stream;
        if (!gc_group_has_victim(ftl, stream)) {
            int rc = gc_fallback(ftl, stream, now_ns);
            if (rc != FTL_E_NOSPC) {
                return rc;
            }
            /* nothing to compact: only a map line can still help */
        }
    }
    *victim = policy_victim_in_neediest_lun(ftl, now_ns, group);
    return *victim == NO_LINE ? FTL_E_NOSPC : FTL_OK;
}

int gc_foreground(struct ftl *ftl, uint64_t now_ns, uint32_t stream)
{
    if (ftl->hybrid) {
        return FTL_OK;  /* its writes merge instead (map/hybrid.c) */
    }
    /* Folding an SLC unit frees almost a whole unit, and GC never sees SLC units: fold
     * first, collect normal victims only if still short. */
    if (ftl->cfg.slc_cache) {
        int rc = slc_relieve(ftl, now_ns);
        if (rc != FTL_OK) {
            return rc;
        }
    }
    /* Each round gains at least one free page, so the loop ends; the bound only guards
     * against a broken invariant turning into a hang. */
    uint64_t rounds = 0;
    while (ftl->free_count <= ftl->geo.gc_thres_lines_high) {
        uint32_t victim;
        if (++rounds > ftl->geo.phys_pages) {
            return FTL_E_NOSPC;
        }
        if (rounds == 1) {
            gc_settle(ftl, now_ns);     /* paced GC's owed work first, as line GC did it */
        }
        int rc = foreground_victim(ftl, now_ns, stream, &victim);
        if (rc == FTL_OK && victim != NO_LINE) {
            rc = gc_collect_line(ftl, victim, now_ns);
        }
        if (rc != FTL_OK) {
            return rc;
        }
    }
    return FTL_OK;
}

/* Whether line id may be collected in the background: at least 1/8 of its good pages
 * invalid (bad blocks hold nothing). */
static bool worth_collecting(const struct ftl *ftl, uint32_t id)
{
    return ftl->lines[id].invalid >= ftl->lines[id].capacity / 8;
}

/* The background victim when one is due: free lines at or below the threshold and the
 * line the policy chooses worth collecting. */
static uint32_t background_victim(struct ftl *ftl, uint64_t now_ns)
{
    if (ftl->free_count > ftl->geo.gc_thres_lines) {
        return NO_LINE;
    }
    uint32_t victim = policy_victim_in_neediest_lun(ftl, now_ns, GC_ANY_GROUP);
    return victim != NO_LINE && worth_collecting(ftl, victim) ? victim : NO_LINE;
}

/* Owed moves are counted in 1/2^16 of a move. */
#define OWED_SHIFT 16
/*
 * A paced collection is made only while the rate it leads to stays within 1/GC_DEBT_SLACK
 * of the victim's level rate (gc_paced): the host then keeps at least
 * GC_DEBT_SLACK / (GC_DEBT_SLACK + 1) of the write rate it has at the level rate.
 */
#define GC_DEBT_SLACK 2

/* Free pages the host and GC can fill before they reach a unit whose erase is owed. */
static uint64_t pages_ahead(const struct ftl *ftl)
{
    uint64_t owed_pages = (uint64_t)ftl->gc_debt_units * ftl->pgs_per_line;
    return ftl->free_pages > owed_pages ? ftl->free_pages - owed_pages : 0;
}

void gc_host_page_written(struct ftl *ftl)
{
    if (ftl->gc_debt_moves == 0 || ftl->gc_rate_invalid == 0) {
        return;
    }
    /*
     * The last victim's valid/invalid (the level rate: what keeps free space level), plus
     * the debt over the free pages the host can write before it reaches a unit whose
     * erase is owed (freed units queue behind the others): the debt is paid by then, so
     * opening that unit finds nothing owed and no host write waits out a burst.
     */
    uint64_t ahead = pages_ahead(ftl);
    ahead = ahead > ftl->pgs_per_line ? ahead : ftl->pgs_per_line;
    ftl->gc_owed += ((uint64_t)ftl->gc_rate_valid << OWED_SHIFT) / ftl->gc_rate_invalid +
                    ((uint64_t)ftl->gc_debt_moves << OWED_SHIFT) / ahead;
}

void gc_settle(struct ftl *ftl, uint64_t now_ns)
{
    debt_charge(ftl, UINT64_MAX, now_ns);
}

/*
 * Whether the debt takes victim's moves: with them owed, and their pages placed in the
 * free pages ahead, the debt's share of a host page (debt / pages ahead) stays within
 * 1/GC_DEBT_SLACK of the victim's level rate (valid / invalid). An empty victim owes no
 * move. Cross-multiplied in 128 bits: no division rounds the decision.
 */
static bool debt_takes(const struct ftl *ftl, uint32_t victim)
{
    uint64_t valid = ftl->lines[victim].valid, invalid = ftl->lines[victim].invalid;
    uint64_t ahead = pages_ahead(ftl);

    if (valid == 0) {
        return true;
    }
    if (ahead <= valid) {
        return false;
    }
    return (unsigned __int128)(ftl->gc_debt_moves + valid) * invalid * GC_DEBT_SLACK <=
           (unsigned __int128)valid * (ahead - valid);
}

/*
 * After a request: the moves host writes owe and those idle LUNs take, then line GC's
 * decision, whose flash work joins the debt if the debt takes it (debt_takes). Line GC
 * collects in bursts (one after every request while free lines are short and victims
 * qualify: right after a sequential fill, dozens at once, whose moves fill every free
 * unit and soon reach the units whose erases they owe); the debt takes a burst only as
 * far as the host can pay it at a rate near the level rate, and the rest waits for it.
 */
static int gc_paced(struct ftl *ftl, uint64_t now_ns)
{
    if (ftl->gc_owed >= (UINT64_C(1) << OWED_SHIFT)) {
        uint64_t moves = ftl->gc_owed >> OWED_SHIFT;
        ftl->gc_owed &= (UINT64_C(1) << OWED_SHIFT) - 1;
        debt_charge(ftl, moves, now_ns);
    }
    debt_charge_idle(ftl, now_ns);
    uint32_t victim = background_victim(ftl, now_ns);
    if (victim == NO_LINE || !debt_takes(ftl, victim)) {
        return 0;
    }
    uint32_t gained = ftl->lines[victim].invalid, valid = ftl->lines[victim].valid;
    debt_make_room(ftl, now_ns);
    ftl->gc_deferring = true;
    int rc = gc_collect_line(ftl, victim, now_ns);
    ftl->gc_deferring = false;
    if (rc != FTL_OK) {
        gc_settle(ftl, now_ns);
        return rc;
    }
    ftl->gc_rate_valid = valid;
    ftl->gc_rate_invalid = gained;
    debt_charge_idle(ftl, now_ns);    /* idle LUNs start on it now */
    return 1;
}

int ftl_background_gc(struct ftl *ftl, uint64_t now_ns)
{
    if (ftl->hybrid) {
        return 0;   /* block-level mappings merge in the foreground, never collect pages */
    }
    (void)ftl_background_fold(ftl, now_ns);     /* LUNs the request left idle */
    if (ftl->cfg.gc_mode == FTL_GC_PACED) {
        return gc_paced(ftl, now_ns);
    }
    uint32_t victim = background_victim(ftl, now_ns);
    if (victim == NO_LINE) {
        return 0;
    }
    int rc = gc_collect_line(ftl, victim, now_ns);
    return rc == FTL_OK ? 1 : rc;
}
