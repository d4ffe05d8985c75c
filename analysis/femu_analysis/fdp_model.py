"""The analytic WAF of data placement: what separating classes of data onto their own
reclaim unit handles (FDP) can do at best, to compare ftl-sim's figures with.

Each class i has n_i logical pages, receives a fraction f_i of the (uniformly random,
single-page) writes within itself, and is given its own spare S_i physical pages beyond
its data. Its WAF is the FIFO / LRU model's for uniform traffic (Desnoyers; Hu et al.):
a unit collected after the class wrote (n_i + S_i)(1 - u) new pages still holds the
fraction u of its pages that were not overwritten since,

    u = exp(-(1 - u) (n_i + S_i) / n_i),      WAF_i = 1 / (1 - u),

u being the fixed point below 1 (u = 1 always solves it too). The device's WAF is
sum f_i WAF_i, and the best split of the spare S = sum S_i minimises it. Greedy victim
choice does a little better than FIFO on uniform traffic, so the model is the figure a
placement that keeps the classes apart should come near, not a bound.

The spare is the flash GC can use: good pages less the logical pages less the units
foreground GC keeps free (and, if one counts them out, the open units) times the pages
of a unit.
"""
import math

TOLERANCE = 1e-12


def victim_utilization(ratio):
    """The fixed point u in [0, 1) of u = exp(-(1 - u) * ratio), ratio = physical / logical
    pages of the class (> 1). Bisection: g(u) = u - exp(-(1 - u) ratio) is negative at 0
    and positive just below 1 (its slope at 1 is 1 - ratio < 0), and has one root there."""
    if not ratio > 1:
        raise ValueError(f"physical / logical pages must be above 1 (got {ratio})")
    low, high = 0.0, 1.0 - 1e-15
    # the root is below 1/ratio (u e^{-ratio u} = e^{-ratio} has its maximum at 1/ratio)
    high = min(high, 1.0 / ratio)
    for _ in range(200):
        mid = (low + high) / 2
        if mid - math.exp(-(1.0 - mid) * ratio) < 0:
            low = mid
        else:
            high = mid
        if high - low < TOLERANCE:
            break
    return (low + high) / 2


def class_waf(logical_pages, spare_pages):
    """WAF of one class with its own spare: 1 / (1 - u); infinite without spare."""
    if spare_pages <= 0:
        return math.inf
    u = victim_utilization((logical_pages + spare_pages) / logical_pages)
    return 1.0 / (1.0 - u)


def spare_pages(good_pages, logical_pages, reserve_units, pages_per_unit, open_units=0):
    """Pages beyond the data that GC can use: good - logical - (reserve + open units) x
    pages per unit."""
    return good_pages - logical_pages - (reserve_units + open_units) * pages_per_unit


def mixed_waf(classes, spares):
    """sum f_i WAF_i for classes [(logical_pages, write_fraction), ...] and their spares."""
    return sum(fraction * class_waf(pages, spare)
               for (pages, fraction), spare in zip(classes, spares))


def optimal_split(classes, total_spare):
    """The best split of total_spare between two classes [(n_h, f_h), (n_c, f_c)]:
    (waf, [S_h, S_c]). The total is convex in S_h, so a golden-section search finds it."""
    if len(classes) != 2:
        raise ValueError("optimal_split takes two classes")
    if total_spare <= 0:
        raise ValueError(f"no spare to split (got {total_spare} pages)")

    def total(first):
        return mixed_waf(classes, (first, total_spare - first))

    golden = (math.sqrt(5) - 1) / 2
    low, high = 0.0, float(total_spare)
    a, b = high - golden * (high - low), low + golden * (high - low)
    fa, fb = total(a), total(b)
    while high - low > 1e-6 * total_spare:
        if fa < fb:
            high, b, fb = b, a, fa
            a = high - golden * (high - low)
            fa = total(a)
        else:
            low, a, fa = a, b, fb
            b = low + golden * (high - low)
            fb = total(b)
    best = (low + high) / 2
    return total(best), [best, total_spare - best]


def hot_cold_optimum(logical_pages, hot_fraction_of_lbas, hot_fraction_of_writes,
                     total_spare):
    """The textbook case: hot_fraction_of_lbas of the logical pages (rounded as ftl-sim's
    --dist hotcold rounds) receive hot_fraction_of_writes of the writes, each class on its
    own handle. Returns (waf, [S_hot, S_cold])."""
    hot = max(1, math.floor(logical_pages * hot_fraction_of_lbas + 0.5))
    classes = [(hot, hot_fraction_of_writes), (logical_pages - hot, 1 - hot_fraction_of_writes)]
    return optimal_split(classes, total_spare)


def spare_of(summary: dict, open_units: int = 0) -> int:
    """The spare GC can use on the geometry of an ftl-sim run (its --summary JSON), as
    spare_pages counts it: good pages less the logical ones less the units foreground GC
    keeps free (open_units more if asked)."""
    cfg = summary["config"]
    page = summary["geometry"]["page_bytes"]
    blocks_per_lun = cfg["blks_per_pl"] * cfg["pls_per_lun"]
    luns = cfg["luns_per_ch"] * cfg["nchs"]
    per_unit = cfg["pgs_per_blk"] * (1 if cfg["gc_unit"] == "block" else luns)
    units = blocks_per_lun * (luns if cfg["gc_unit"] == "block" else 1)
    reserve = (100 - cfg["gc_thres_pcent_high"]) * units // 100
    bad = blocks_per_lun * cfg["bad_blk_pcent"] // 100 * luns * cfg["pgs_per_blk"]
    good = summary["geometry"]["raw_bytes"] // page - bad
    logical = summary["geometry"]["logical_bytes"] // page
    return spare_pages(good, logical, reserve, per_unit, open_units)
