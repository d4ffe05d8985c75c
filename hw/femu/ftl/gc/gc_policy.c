/*
 * GC victim policies (gc_policy). Every policy chooses among the victim lines: closed,
 * holding at least one invalid page (LINE_VICTIM), so any choice frees space and
 * foreground GC finds a victim whenever one exists. Greedy reads the heap's top in O(1);
 * the others scan the heap's array, O(victim lines) per choice, which is cheap because
 * a choice is made once per collected line and lines are few. The heap's array order is
 * a function of the call sequence, so random draws over it are deterministic too.
 * Per-stream GC (gc_scope=stream) chooses among one stream's lines and the map lines;
 * with gc_unit=block the choice is among one LUN's blocks.
 *
 * With write pointers the host chooses (streams, FDP handles) and gc_scope=global, each
 * write pointer's lines are a group: the policy picks each group's victim, and among those
 * the cost-benefit score picks (ties: the lower write pointer). Within a group greedy is
 * best, but across groups fewest-valid is not: a hot handle's lines empty fast and a cold
 * one's slowly, and greedy, taking whichever is emptiest now, collects every group at the
 * same valid fraction, which splits the spare space by data size as if the data were
 * mixed. Weighing the space freed by how long the line's data has stayed put collects cold
 * lines at a higher valid fraction and hot ones at a lower, the split that minimises the
 * total copying (hot data gets the spare, as the hot/cold analysis of greedy FTLs shows:
 * tests/ftl-sim/test_fdp_model.py). With one group (one handle in use) this is the policy
 * itself, victim for victim.
 */
#include "gc/gc_policy.h"

#include <stdlib.h>

#include "flash/fault.h"
#include "flash/line_lists.h"
#include "place/placement.h"

/*
 * The lines a choice is made among: the whole heap's array, or (per-stream GC) the lines
 * of one group copied out of it in array order, so draws stay deterministic.
 */
struct candidates {
    const uint32_t *ids;
    uint32_t n;
    bool whole_heap;    /* ids is the victim heap: its top has the fewest valid pages */
};

static uint32_t victim_at(const struct candidates *c, uint32_t pos)
{
    return c->ids[pos];
}

/* Greedy: the fewest valid pages, as FEMU (the heap's key; a scan for a group, the first
 * in array order on a tie). */
static uint32_t pick_greedy(struct ftl *ftl, const struct candidates *c, uint64_t now_ns)
{
    (void)now_ns;
    if (c->whole_heap) {
        return victim_peek(ftl);
    }
    uint32_t best = NO_LINE;
    for (uint32_t pos = 0; pos < c->n; pos++) {
        uint32_t id = victim_at(c, pos);
        if (best == NO_LINE || ftl->lines[id].valid < ftl->lines[best].valid) {
            best = id;
        }
    }
    return best;
}

/*
 * Cost-benefit compares (1 - u) / 2u x age with u = valid / capacity: reading the
 * valid pages and writing them back costs 2u, and the space freed (1 - u) is worth
 * more the longer the line's data has stayed put, since cold data is likely to stay.
 * Scaled by capacity the score is (capacity - valid) x age / (2 valid). Two scores are
 * compared by cross-multiplying in 128 bits so no rounding or division decides a tie.
 */
#define CB_MAX_AGE_NS (UINT64_C(1) << 60)

struct cb_score {
    unsigned __int128 num;  /* (capacity - valid) x (age + 1) */
    uint64_t den;           /* 2 valid; 0: an empty line, better than any other */
};

static struct cb_score cb_score_of(const struct ftl *ftl, uint32_t id, uint64_t now_ns)
{
    const struct line *l = &ftl->lines[id];
    /* the signed difference: a restored line's time may lie before the clock's 0
     * (state_time_rebase); + 1: lines written at this very instant still rank by how
     * empty they are; the cap (36 years) keeps the products below in 128 bits */
    uint64_t age = (int64_t)(now_ns - l->written_ns) > 0 ? now_ns - l->written_ns : 0;
    age = (age < CB_MAX_AGE_NS ? age : CB_MAX_AGE_NS) + 1;
    return (struct cb_score){ .num = (unsigned __int128)(l->capacity - l->valid) * age,
                              .den = 2 * (uint64_t)l->valid };
}

/* a's score is strictly above b's. */
static bool cb_better(struct cb_score a, struct cb_score b)
{
    if (a.den == 0 || b.den == 0) {
        return a.den == 0 && (b.den != 0 || a.num > b.num);   /* empty: the older wins */
    }
    /* num < 2^93 and den < 2^33: the products fit in 128 bits */
    return a.num * b.den > b.num * a.den;
}

static uint32_t pick_cost_benefit(struct ftl *ftl, const struct candidates *c,
                                  uint64_t now_ns)
{
    uint32_t best = NO_LINE;
    struct cb_score best_score = { 0, 1 };

    for (uint32_t pos = 0; pos < c->n; pos++) {
        uint32_t id = victim_at(c, pos);
        struct cb_score s = cb_score_of(ftl, id, now_ns);
        if (best == NO_LINE || cb_better(s, best_score)) {
            best = id;
            best_score = s;
        }
    }
    return best;
}

static uint32_t pick_random(struct ftl *ftl, const struct candidates *c, uint64_t now_ns)
{
    (void)now_ns;
    if (c->n == 0) {
        return NO_LINE;
    }
    return victim_at(c, (uint32_t)rng_state_below(&ftl->gc_rng, c->n));
}

/* FIFO: the line closed first (the smallest close_seq), whatever it holds. */
static uint32_t pick_fifo(struct ftl *ftl, const struct candidates *c, uint64_t now_ns)
{
    uint32_t best = NO_LINE;

    (void)now_ns;
    for (uint32_t pos = 0; pos < c->n; pos++) {
        uint32_t id = victim_at(c, pos);
        if (best == NO_LINE || ftl->lines[id].close_seq < ftl->lines[best].close_seq) {
            best = id;
        }
    }
    return best;
}

/* Whether heap position pos is among the first n drawn. */
static bool drawn_before(const uint32_t *drawn, uint32_t n, uint32_t pos)
{
    for (uint32_t i = 0; i < n; i++) {
        if (drawn[i] == pos) {
            return true;
        }
    }
    return false;
}

/*
 * d-choices: the fewest valid pages among d distinct lines drawn uniformly. With d at
 * least the number of victims every line is a candidate, so the answer is greedy's (its
 * heap top, ties included). Otherwise distinct positions are drawn by rejection: d <= 64
 * and fewer than the victims, so a redraw is rare enough and the check is short.
 */
static uint32_t pick_dchoice(struct ftl *ftl, const struct candidates *c, uint64_t now_ns)
{
    uint32_t d = (uint32_t)ftl->cfg.gc_dchoice_d, drawn[64], n = 0, best = NO_LINE;

    if (d >= c->n) {
        return pick_greedy(ftl, c, now_ns);
    }
    while (n < d) {
        uint32_t pos = (uint32_t)rng_state_below(&ftl->gc_rng, c->n);
        if (drawn_before(drawn, n, pos)) {
            continue;
        }
        drawn[n++] = pos;
        uint32_t id = victim_at(c, pos);
        if (best == NO_LINE || ftl->lines[id].valid < ftl->lines[best].valid) {
            best = id;
        }
    }
    return best;
}

typedef uint32_t (*victim_picker)(struct ftl *ftl, const struct candidates *c,
                                  uint64_t now_ns);

static const victim_picker pickers[] = {
    [FTL_GC_GREEDY] = pick_greedy,
    [FTL_GC_COST_BENEFIT] = pick_cost_benefit,
    [FTL_GC_RANDOM] = pick_random,
    [FTL_GC_FIFO] = pick_fifo,
    [FTL_GC_DCHOICE] = pick_dchoice,
};

static bool in_group(const struct ftl *ftl, uint32_t id, uint32_t group)
{
    uint32_t wp = ftl->lines[id].wp;
    return group == GC_ANY_GROUP || wp == group || wp == MAP_WP;
}

bool gc_group_has_victim(const struct ftl *ftl, uint32_t wp)
{
    for (uint32_t p = 0; p < ftl->npools; p++) {
        const uint32_t *ids = ftl->victim_heap + (size_t)p * ftl->pool_cap;
        for (uint32_t k = 0; k < ftl->heap_count[p]; k++) {
            if (ftl->lines[ids[k]].wp == wp) {
                return true;
            }
        }
    }
    return false;
}

/*
 * gc_scope=global with host-chosen write pointers: each group's pick, then the best of
 * those by cost-benefit. NO_LINE with *single set when the victims are all in one group
 * (the caller then asks the policy over them all, as without groups).
 */
static uint32_t pick_across_groups(struct ftl *ftl, uint64_t now_ns, uint32_t lun,
                                   bool *single)
{
    uint32_t groups = 0;
    for (uint32_t w = 0; w <= MAP_WP; w++) {
        groups += ftl->victims_by_wp[w] != 0;
    }
    *single = groups <= 1;      /* O(write pointers): the common case of one handle in use */
    if (*single) {
        return NO_LINE;
    }
    uint32_t all = victims_list(ftl, lun, ftl->gc_scratch);
    /* a group is a write pointer, the map's (MAP_WP) last */
    uint32_t count[MAP_WP + 1] = { 0 }, start[MAP_WP + 2];
    uint32_t *sorted = ftl->gc_scratch + all;   /* gc_scratch holds 2 x units */

    groups = 0;
    for (uint32_t k = 0; k < all; k++) {
        groups += count[ftl->lines[ftl->gc_scratch[k]].wp]++ == 0;
    }
    *single = groups <= 1;      /* one LUN's victims may be one group's */
    if (*single) {
        return NO_LINE;
    }
    /* each group's lines together, in heap array order (draws stay deterministic) */
    start[0] = 0;
    for (uint32_t g = 0; g <= MAP_WP; g++) {
        start[g + 1] = start[g] + count[g];
    }
    for (uint32_t k = 0; k < all; k++) {
        sorted[start[ftl->lines[ftl->gc_scratch[k]].wp]++] = ftl->gc_scratch[k];
    }
    uint32_t picks[MAP_WP + 1], npicks = 0, begin = 0;
    for (uint32_t g = 0; g <= MAP_WP; g++) {
        if (count[g]) {
            struct candidates c = { sorted + begin, count[g], false };
            picks[npicks++] = pickers[ftl->cfg.gc_policy](ftl, &c, now_ns);
        }
        begin += count[g];
    }
    struct candidates across = { picks, npicks, false };
    return pick_cost_benefit(ftl, &across, now_ns);
}

uint32_t gc_policy_victim(struct ftl *ftl, uint64_t now_ns, uint32_t group, uint32_t lun)
{
    if (group == GC_ANY_GROUP && ftl->cfg.gc_scope == FTL_GC_SCOPE_GLOBAL &&
        placement_host_handles(ftl)) {
        bool single;
        uint32_t victim = pick_across_groups(ftl, now_ns, lun, &single);
        if (!single) {
            return victim;
        }
    }
    /* one pool, no filter: the heap itself */
    struct candidates c = { ftl->victim_heap, ftl->victim_count, true };

    if (group == GC_ANY_GROUP && ftl->cfg.gc_policy == FTL_GC_GREEDY) {
        /* the heap tops: O(1) for a LUN, O(pools) for all */
        return lun == GC_ANY_LUN ? victim_peek(ftl) : victim_peek_pool(ftl, lun);
    }
    if (group != GC_ANY_GROUP || lun != GC_ANY_LUN || ftl->npools > 1) {
        uint32_t n = 0, all = victims_list(ftl, lun, ftl->gc_scratch);
        for (uint32_t k = 0; k < all; k++) {
            if (in_group(ftl, ftl->gc_scratch[k], group)) {
                ftl->gc_scratch[n++] = ftl->gc_scratch[k];
            }
        }
        c = (struct candidates){ ftl->gc_scratch, n, false };
    }
    /* the configuration was validated: the policy indexes the table */
    return pickers[ftl->cfg.gc_policy](ftl, &c, now_ns);
}
