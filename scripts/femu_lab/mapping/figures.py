"""The mapping lab's figures, one PNG per metric, grouped bars (a group per workload, a bar
per scheme, a panel per read-cache setting), from the table's rows:

    waf.png        WAF (log scale: block mapping's near its pages per block, page
                   mapping's near 1)
    erases.png     blocks erased in the measured part (log scale)
    merges.png     merges stacked by type (switch, partial, full); page and DFTL mapping
                   have none; one far above the rest (block mapping's copies, if counted
                   as full merges) is clipped, its total on the bar
    latency.png    mean and p99 latency (log scale)
    hit_rate.png   the read cache's hit rate (runs with the cache)
    cache_sweep.png  hit rate against the cache's size, a line per policy, and each
                   policy's minus LRU's (--cache-sweep)

A figure missing from a run (a counter this ftl-sim lacks) is an empty bar marked n/a;
a figure with no run at all says why in its panel.
"""
from pathlib import Path
from typing import List, Mapping, Optional, Sequence

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter
from matplotlib.transforms import blended_transform_factory

from femu_analysis import style

from .plan import SCHEMES

MERGE_TYPES = (("merge_switch", "switch", "#4c9a2a"), ("merge_partial", "partial", "#e0a800"),
               ("merge_full", "full", "#c0392b"))
STEMS = ("waf", "erases", "merges", "latency", "hit_rate")     # save_all's files
CLIP_RATIO = 3.0      # merges.png: a scheme this many times above the rest is clipped
PANEL_HEIGHT = 3.6
WIDTH = 13.0


def _ordered(values: Sequence[str]) -> List[str]:
    return list(dict.fromkeys(values))


def _value(rows: Sequence[Mapping], scheme: str, workload: str, key: str) -> Optional[float]:
    for row in rows:
        if row["scheme"] == scheme and row["workload"] == workload:
            return row.get(key)
    return None


def _scheme_color(scheme: str) -> str:
    return f"C{SCHEMES.index(scheme) % 10}" if scheme in SCHEMES else "C9"


def _figure(title: str, nrows: int, ncols: int = 1):
    figure = Figure(figsize=(WIDTH, 1.0 + PANEL_HEIGHT * nrows))
    FigureCanvasAgg(figure)
    axes = figure.subplots(nrows, ncols, squeeze=False)
    figure.suptitle(title)
    for ax in axes.flat:
        ax.grid(True, axis="y", linestyle="--", color="0.85", linewidth=0.8)
        ax.set_axisbelow(True)
    return figure, axes


def _plain_log(axes) -> None:
    """A log axis labelled 1, 2, 5, 10, ... (not 10^0): the values are read off it."""
    axes.set_yscale("log")
    axes.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    axes.yaxis.set_minor_formatter(FuncFormatter(
        lambda v, _: f"{v:g}" if f"{v:g}"[0] in "25" else ""))


def _mark_at_base(axes, x: float, text: str) -> None:
    """A bar that cannot be drawn (n/a; a 0 on a log axis) said at the axis' foot."""
    axes.text(x, 0.02, text, transform=blended_transform_factory(axes.transData,
                                                                  axes.transAxes),
              ha="center", va="bottom", fontsize=7, color="0.4", rotation=90)


def note_missing(figure: Figure, rows: Sequence[Mapping], keys: Sequence[str]) -> None:
    """A footnote saying what n/a means, when a bar of the figure is one."""
    if any(row.get(key) is None for row in rows for key in keys):
        figure.text(0.005, 0.005, "n/a: ftl-sim reported none for the run (no merges under "
                    "page or DFTL mapping, a counter this build lacks; a hit rate: no read)",
                    fontsize=8, color="0.4", ha="left", va="bottom")


def bars(axes, rows: Sequence[Mapping], key: str, label_fmt: str, log: bool = False,
         legend: bool = True) -> None:
    """Grouped bars of rows' `key`: a group per workload, a bar per scheme, each labelled."""
    workloads = _ordered([row["workload"] for row in rows])
    schemes = _ordered([row["scheme"] for row in rows])
    width = 0.8 / max(1, len(schemes))
    values = []
    rotation = 90 if len(schemes) * len(workloads) > 12 else 0
    for index, scheme in enumerate(schemes):
        heights = [_value(rows, scheme, w, key) for w in workloads]
        x = np.arange(len(workloads)) + (index - (len(schemes) - 1) / 2) * width
        plotted = [np.nan if h is None or (log and h <= 0) else float(h) for h in heights]
        drawn = axes.bar(x, plotted, width, label=scheme, color=_scheme_color(scheme))
        axes.bar_label(drawn, labels=[label_fmt.format(h) if np.isfinite(p) else ""
                                      for h, p in zip(heights, plotted)],
                       fontsize=7, padding=2, rotation=rotation)
        for xi, h, p in zip(x, heights, plotted):
            if not np.isfinite(p):
                _mark_at_base(axes, xi, "n/a" if h is None else label_fmt.format(h))
        values.extend(p for p in plotted if np.isfinite(p))
    axes.set_xticks(np.arange(len(workloads)), workloads)
    axes.set_xlim(-0.5, len(workloads) - 0.5)
    positive = [v for v in values if v > 0]
    if log and positive:
        _plain_log(axes)
        axes.set_ylim(min(positive) / 2, max(positive) * 6)
    else:
        axes.set_ylim(0, max(positive) * 1.25 if positive else 1.0)
    if legend:
        axes.legend(loc="upper left", fontsize=8, ncol=len(schemes))


def _by_cache(rows: Sequence[Mapping]) -> List[List[Mapping]]:
    return [[row for row in rows if row["cache"] == cache]
            for cache in _ordered([row["cache"] for row in rows])]


def _cache_title(cache: str) -> str:
    return "without the read cache" if cache == "off" else f"with the read cache ({cache} pages)"


def metric_figure(rows: Sequence[Mapping], key: str, title: str, ylabel: str,
                  label_fmt: str, log: bool) -> Figure:
    """A panel per read-cache setting, each grouped bars of `key`."""
    panels = _by_cache(rows)
    figure, axes = _figure(title, max(1, len(panels)))
    for ax, panel in zip(axes[:, 0], panels):
        bars(ax, panel, key, label_fmt, log)
        ax.set_title(_cache_title(panel[0]["cache"]), fontsize=10)
        ax.set_ylabel(ylabel)
    figure.tight_layout()
    note_missing(figure, rows, [key])
    return figure


def latency_figure(rows: Sequence[Mapping], title: str) -> Figure:
    """Mean (left) and p99 (right), a row of panels per read-cache setting."""
    panels = _by_cache(rows)
    figure, axes = _figure(title, max(1, len(panels)), 2)
    for row_axes, panel in zip(axes, panels):
        for ax, (key, what) in zip(row_axes, (("mean_latency_us", "mean"),
                                              ("p99_latency_us", "p99"))):
            bars(ax, panel, key, "{:.0f}", log=True, legend=ax is row_axes[0])
            ax.set_title(f"{what} latency, {_cache_title(panel[0]['cache'])}", fontsize=10)
            ax.set_ylabel(f"{what} latency (us)")
    figure.tight_layout()
    note_missing(figure, rows, ["mean_latency_us", "p99_latency_us"])
    return figure


def _merges_top(peaks: Mapping[str, float]) -> float:
    """The merges axis' top: above every scheme's tallest bar, unless one scheme's is more
    than CLIP_RATIO times any other's (block mapping: a full merge per write), when it is
    clipped there so the others stay readable."""
    ranked = sorted(peaks.values(), reverse=True) + [0.0, 0.0]
    if ranked[1] > 0 and ranked[0] > CLIP_RATIO * ranked[1]:
        return ranked[1] * 1.4
    return max(ranked[0], 1.0) * 1.25


def merges_figure(rows: Sequence[Mapping], title: str) -> Figure:
    """Merges stacked by type: a bar per scheme (named under it), a group per workload;
    each bar labelled with its total (a clipped bar's at the axis' top, with a ^)."""
    panels = _by_cache(rows)
    figure, axes = _figure(title, max(1, len(panels)))
    clipped = False
    for ax, panel in zip(axes[:, 0], panels):
        workloads = _ordered([row["workload"] for row in panel])
        schemes = _ordered([row["scheme"] for row in panel])
        width = 0.8 / max(1, len(schemes))
        ticks, names, totals, peaks = [], [], [], {}
        for index, scheme in enumerate(schemes):
            x = np.arange(len(workloads)) + (index - (len(schemes) - 1) / 2) * width
            bottom = np.zeros(len(workloads))
            counts = {key: [_value(panel, scheme, w, key) for w in workloads]
                      for key, _, _ in MERGE_TYPES}
            for key, name, color in MERGE_TYPES:
                heights = np.array([c or 0 for c in counts[key]], dtype=float)
                ax.bar(x, heights, width, bottom=bottom, color=color, edgecolor="white",
                       linewidth=0.5, label=name if index == 0 else None)
                bottom += heights
            for w_index, xi in enumerate(x):
                reported = [counts[key][w_index] for key, _, _ in MERGE_TYPES]
                totals.append((xi, None if all(v is None for v in reported)
                               else bottom[w_index]))
            peaks[scheme] = float(bottom.max()) if len(bottom) else 0.0
            ticks += list(x)
            names += [scheme] * len(workloads)
        top = _merges_top(peaks)
        ax.set_ylim(0, top)
        for xi, total in totals:
            if total is None:
                _mark_at_base(ax, xi, "n/a")
            elif total > top:
                clipped = True
                ax.text(xi, top * 0.98, f"{total:.0f} ^", ha="center", va="top", fontsize=7,
                        rotation=90, color="white", fontweight="bold")
            else:
                ax.text(xi, total, f"{total:.0f}", ha="center", va="bottom", fontsize=7,
                        rotation=90)
        ax.set_xticks(ticks, names, fontsize=7, rotation=90)
        for w_index, workload in enumerate(workloads):
            ax.text(w_index, -0.28, workload, ha="center", va="top", fontsize=9,
                    transform=blended_transform_factory(ax.transData, ax.transAxes))
        ax.set_ylabel("merges")
        ax.set_title(_cache_title(panel[0]["cache"]), fontsize=10)
        ax.legend(loc="lower right", bbox_to_anchor=(1.0, 1.0), fontsize=8, ncol=3,
                  frameon=False)
    figure.tight_layout()
    note_missing(figure, rows, [key for key, _, _ in MERGE_TYPES])
    if clipped:
        figure.text(0.995, 0.005, "N ^: a bar clipped at the axis' top, N its total",
                    fontsize=8, color="0.4", ha="right", va="bottom")
    return figure


def hit_rate_figure(rows: Sequence[Mapping], title: str) -> Figure:
    cached = [row for row in rows if row["cache"] != "off"]
    if not cached:
        figure, axes = _figure(title, 1)
        axes[0, 0].text(0.5, 0.5, "no run with the read cache (--cache-pages 0)",
                        ha="center", va="center", transform=axes[0, 0].transAxes)
        axes[0, 0].set_axis_off()
        return figure
    figure = metric_figure(cached, "rcache_hit_rate", title,
                           "hit rate (hits / (hits + misses))", "{:.2f}", log=False)
    for ax in figure.axes:
        ax.set_ylim(0, 1.15)
    return figure


def _sweep_lines(rows: Sequence[Mapping]):
    """{policy: ([sizes], [hit rates, NaN where none])}, sizes ascending."""
    lines = {}
    for policy in _ordered([row["policy"] for row in rows]):
        points = sorted((row["cache_pages"], row.get("rcache_hit_rate")) for row in rows
                        if row["policy"] == policy)
        lines[policy] = ([p for p, _ in points],
                         [np.nan if r is None else float(r) for _, r in points])
    return lines


def _size_axis(ax, sizes: Sequence[int]) -> None:
    ax.set_xscale("log", base=2)
    ax.set_xticks(sizes, [str(s) for s in sizes])
    ax.minorticks_off()
    ax.grid(True, axis="x", linestyle="--", color="0.85", linewidth=0.8)


def cache_sweep_figure(rows: Sequence[Mapping], title: str) -> Figure:
    """Hit rate against the cache's size (pages, log 2 axis), a line per policy; below it,
    when LRU is among them, each policy's hit rate minus LRU's at the same size (which
    policy wins where: the lines above nearly meet)."""
    lines = _sweep_lines(rows)
    against_lru = "lru" in lines and len(lines) > 1
    figure, axes = _figure(title, 2 if against_lru else 1)
    sizes = sorted({row["cache_pages"] for row in rows})
    ax = axes[0, 0]
    for index, (policy, (x, y)) in enumerate(lines.items()):
        ax.plot(x, y, marker="o", label=policy, color=f"C{index}")
    _size_axis(ax, sizes)
    rates = [v for _, y in lines.values() for v in y if np.isfinite(v)]
    if rates:
        ax.set_ylim(max(0.0, min(rates) - 0.05), min(1.0, max(rates) + 0.05))
    ax.set_ylabel("hit rate (hits / (hits + misses))")
    ax.legend(loc="lower right", fontsize=9, title="policy")
    if against_lru:
        lru = dict(zip(*lines["lru"]))
        diff = axes[1, 0]
        for index, (policy, (x, y)) in enumerate(lines.items()):
            gains = [v - lru.get(size, np.nan) for size, v in zip(x, y)]
            diff.plot(x, gains, marker="o", label=policy, color=f"C{index}")
        diff.axhline(0.0, color="0.5", linewidth=0.8)
        _size_axis(diff, sizes)
        diff.set_ylabel("hit rate - LRU's")
        diff.set_title("each policy against LRU at the same size", fontsize=10)
    axes[-1, 0].set_xlabel("read cache size (4 KiB pages)")
    figure.tight_layout()
    return figure


def save_all(rows: Sequence[Mapping], folder: Path, suffix: str = "") -> List[Path]:
    """waf, erases, merges, latency and hit_rate PNGs into folder; their paths."""
    made = {
        "waf": metric_figure(rows, "waf", "WAF per scheme and workload" + suffix,
                             "WAF (flash programs / host pages)", "{:.2f}", log=True),
        "erases": metric_figure(rows, "nand_erases", "Blocks erased per scheme and "
                                "workload" + suffix, "blocks erased", "{:.0f}", log=True),
        "merges": merges_figure(rows, "Merges by type per scheme and workload" + suffix),
        "latency": latency_figure(rows, "Latency per scheme and workload" + suffix),
        "hit_rate": hit_rate_figure(rows, "Read cache hit rate per scheme and workload"
                                    + suffix),
    }
    return [style.save(made[stem], folder, stem) for stem in STEMS]


def save_sweep(rows: Sequence[Mapping], folder: Path, suffix: str = "") -> Path:
    return style.save(cache_sweep_figure(rows, "Read cache hit rate against its size"
                                         + suffix), folder, "cache_sweep")
