/*
 * dist.h - random item distributions with fio's --random_distribution
 * spellings and meanings, for choosing I/O offsets in ftl-sim.
 *
 * Accepted text (as fio spells it):
 *   random                 uniform over [0, nitems)
 *   zipf[:THETA[:CENTER]]  Zipf: item of popularity rank k (1-based) is hit
 *                          with probability proportional to k^-THETA.
 *                          THETA > 0 (fio's default 1.1 when omitted).
 *                          Sampling is exact for any THETA, so unlike fio
 *                          THETA = 1.0 is also accepted.
 *   pareto[:H[:CENTER]]    fio's Pareto: raw = floor(nitems * u^p) with
 *                          u uniform in [0,1) and p = log(H) / log(1 - H).
 *                          0 < H < 1 (fio's default 0.2).  The hottest
 *                          fraction min(H, 1-H) of the items gets a share
 *                          max(H, 1-H) of the hits (H = 0.2: 20% of the
 *                          items get 80%); H = 0.5 is uniform.  Smaller H
 *                          below 0.5 means more skew.
 *   normal[:DEV[:CENTER]]  fio's "normal": the rounded-up mean of 12 uniform
 *                          draws over [0, nitems] (an Irwin-Hall bell with
 *                          standard deviation nitems/12, i.e. 8.3% of the
 *                          range), plus a uniform jitter of width DEV% of
 *                          the range (capped at 50%), halved until it stays
 *                          in range.  0 <= DEV < 100 (default 0, as in fio).
 *                          So the standard deviation is
 *                          sqrt(1/144 + w^2/12) * nitems with
 *                          w = min(DEV/100, 0.5): from 8.3% (DEV 0) to
 *                          16.7% (DEV >= 50).  Like fio, the bell shapes
 *                          popularity; the items themselves are scattered
 *                          (below), so offsets are not bell-shaped.
 *   hotcold:H:W            not fio's (fio has no such spelling; its nearest,
 *                          zoned:W/H:..., is not supported here): H percent
 *                          of the items, the first (lowest) ones, receive W
 *                          percent of the hits, uniform within each part.
 *                          0 < H < 100, 0 <= W <= 100, both required; the
 *                          hot part is round(nitems * H / 100) items, at
 *                          least 1 and, with 2 items or more, at most
 *                          nitems - 1. No scatter: dist_hot_items() says
 *                          where the hot part ends (ftl-sim --fdp-hot puts
 *                          its writes on their own FDP handle).
 *
 * Placement (fio scatters the hot items rather than putting them at the
 * lowest offsets): the raw value is mapped to an item by a bijection,
 *   item = ((raw - peak) * M + base) mod nitems,
 * where peak is the most probable raw value, M is a golden-ratio multiplier
 * coprime with nitems (the mod-nitems analogue of fio's golden-ratio hash),
 * and base is where the most probable item lands: CENTER * nitems when
 * CENTER (0..1) is given, else the middle for normal (fio's default 0.5)
 * and a fixed pseudo-random point for zipf and pareto (fio: "random").
 * Every item is reachable; the mapping depends only on the spec and nitems.
 * `zoned` and `zoned_abs` are not supported.
 *
 * Errors: functions that can fail return -1 / NULL and write a one-line
 * message naming the offending text into err[errlen] (err may be NULL).
 * dist_parse's messages start with "--dist: ", ftl-sim's option for it.
 */
#ifndef FTL_SIM_DIST_H
#define FTL_SIM_DIST_H

#include <stddef.h>
#include <stdint.h>

#include "rng.h"

enum dist_kind {
    DIST_RANDOM,
    DIST_ZIPF,
    DIST_PARETO,
    DIST_NORMAL,
    DIST_HOTCOLD,
};

struct dist_spec {
    enum dist_kind kind;
    double param;   /* zipf theta, pareto H, normal DEV (%), hotcold H (% of the
                     * items); 0 for random */
    double center;  /* 0..1, or negative when not given (fio's default); hotcold: -1 */
    double share;   /* hotcold: W, the percent of hits the hot part gets; else 0 */
};

/* Largest nitems for the non-uniform kinds (ranks are computed in doubles). */
#define DIST_MAX_ITEMS (UINT64_C(1) << 53)

struct dist;

/* Parse fio's spelling ("zipf:1.2", "normal", ...) into *out.
 * Returns 0, or -1 with a message for unknown names, non-numbers, values
 * out of fio's ranges and extra fields. */
int dist_parse(const char *text, struct dist_spec *out, char *err,
               size_t errlen);

/* Build a sampler over nitems (> 0) items: O(1) time and memory.
 * Returns NULL with a message for an invalid spec or nitems. */
struct dist *dist_create(const struct dist_spec *spec, uint64_t nitems,
                         char *err, size_t errlen);

/* Next item index in [0, nitems), hot items scattered (see above).
 * O(1): one or two draws for random/pareto, ~1.015 tries on average for
 * zipf, 13 draws for normal.  The dist is read-only; all state is in r. */
uint64_t dist_next(const struct dist *d, struct rng *r);

/* The value before scattering, in [0, nitems): for zipf the popularity
 * rank minus one (0 = hottest), for pareto fio's floor(nitems * u^p), for
 * normal the position on the bell, for random the item itself.
 * dist_next(d, r) == dist_scatter(d, dist_next_raw(d, r)). */
uint64_t dist_next_raw(const struct dist *d, struct rng *r);

/* The bijection from raw values to items (raw >= nitems is reduced
 * mod nitems first). */
uint64_t dist_scatter(const struct dist *d, uint64_t raw);

/* hotcold: the items of the hot part, [0, dist_hot_items); 0 for the other kinds. */
uint64_t dist_hot_items(const struct dist *d);

/* Number of items the sampler was created for. */
uint64_t dist_nitems(const struct dist *d);

/* Free a sampler; NULL is fine. */
void dist_destroy(struct dist *d);

/* Canonical text for a spec ("zipf:1.2", "normal", "pareto:0.5:0.25"),
 * written into buf and returned; parses back to the same spec. */
const char *dist_name(const struct dist_spec *spec, char *buf, size_t len);

#endif
