"""The lab plots of runs: time series of one run, overlays of several, CDF of access counts.

``*_figure`` functions build and return figures (tests inspect them); ``plot_*`` functions
save them and return the written paths. Time on the x axis is seconds since the window
start, re-numbered as the lab notebooks did.
"""
import dataclasses

import numpy as np

from . import intervals, series, style
from .errors import AnalysisError
from .rows import whole


@dataclasses.dataclass(frozen=True)
class TimeSeries:
    stem: str          # file name without extension
    what: str          # title prefix
    ylabel: str
    source: callable   # run -> frame (see series.py): the lab files' own rows
    column: str        # value column in that frame
    binned: str = None  # intervals.py metric drawn instead when stats.csv has it
    count: bool = False  # a count per interval: integer axis


TIME_SERIES = (
    TimeSeries("iops", "IOPS", "IOPS (read + write)", series.iops, "total"),
    TimeSeries("throughput", "Throughput", "MiB/s (read + write)", series.throughput, "total"),
    TimeSeries("erased_blocks", "Erased blocks", "blocks erased by GC",
               series.erased_blocks, "value", "erased_blocks", count=True),
    TimeSeries("moved_pages", "Moved valid pages", "pages moved by GC",
               series.moved_pages, "value", "moved_pages", count=True),
    TimeSeries("waf", "WAF", "write amplification", series.waf, "value", "waf"),
)
# IOPS and throughput count the conventional namespace's commands (stats.csv); with a
# zoned namespace's (series.ZONED_COMMANDS) in the window, their titles say so
HOST_IO_STEMS = ("iops", "throughput")
# Drawn by plot_run only when the run has the data (DFTL runs; runs from before it lack
# the column and are plotted as they always were).
CMT_HIT_RATE = TimeSeries("cmt_hit_rate", "CMT hit rate", "CMT hits / lookups",
                          series.cmt_hit_rate, "value", "cmt_hit_rate")
OPTIONAL_SERIES = (CMT_HIT_RATE,)
VICTIMS_STEM = "gc_victims"
# ZNS+ plots, drawn when the run has ch_util.csv / zones.csv (older runs do not)
CH_UTIL_STEM = "ch_util"
ZONE_WP_STEM = "zone_wp"
ZONE_COLORS = {"empty": "0.6", "implicit_open": "C2", "explicit_open": "C0", "closed": "C1",
               "full": "C3", "read_only": "C4", "offline": "k", "other": "C7"}
COMPARE_METRICS = {
    # metric: (title, y label, lab-file source and column for runs without stats.csv);
    # with stats.csv every metric is drawn in the same bins (intervals.py)
    "iops": ("IOPS", "IOPS (read + write), mean {per}", series.interval_iops, "value"),
    "waf": ("WAF", "write amplification {per}", series.waf, "value"),
    "throughput": ("Throughput", "MiB/s (read + write), mean {per}", series.throughput,
                   "total"),
}
ZOOM_MAX_WRITES = 50
ZOOM_SHARE = 0.98   # the zoomed CDF ends where this share of the LPNs is reached
LOG_X_ABOVE = 1000  # full CDF gets a log x axis when some LPN was written more often


def series_rows(run, window, spec, width):
    """(rows with time_s, value and partial, ' per 10 s' or ''): the bins of intervals.py
    when stats.csv has the metric, else the lab file's rows inside the window; None
    without data."""
    if spec.binned and intervals.has_bins(run, spec.binned) and spec.source(run) is not None:
        rows = intervals.binned(run, window, spec.binned, width)
        return rows, f" {intervals.per_text(width)}"
    frame = spec.source(run)
    if frame is None:
        return None
    rows = series.within(frame, window).rename(columns={spec.column: "value"})
    return rows, " per interval" if spec.binned else ""


def timeseries_figure(run, window, spec):
    """One lab time series of ``run`` over ``window``; returns (figure, extremes) or None
    when the run has no data for it."""
    found = series_rows(run, window, spec, intervals.bin_seconds([window]))
    if found is None:
        return None
    rows, per = found
    x = rows["time_s"] - window.start_s
    y = rows["value"].astype(float)
    what = spec.what
    if spec.stem in HOST_IO_STEMS and _zoned_io_in(run, window):
        what += " of the conventional namespace (zoned I/O: nand.csv, summary.md)"
    figure, axes = style.new_figure(f"{what}{per} — {run.metadata.title()}", "time (s)",
                                    spec.ylabel + per)
    style.interval_line(axes, rows["start_s"] - window.start_s, x, y,
                        label=spec.ylabel + per)
    if spec.stem == "waf" and not y.notna().any():
        _say_why_no_waf(axes, run, window)
        return figure, None
    partial = rows["partial"].to_numpy(dtype=bool)
    style.mark_partial(axes, x[partial], y[partial], rows["interval_s"][partial])
    # a partial bin is no interval of its own (a count holds fewer by its length, a
    # rate over 2 ms is noise): marked hollow, never the interval's minimum or maximum
    whole = ~partial if (~partial).any() else np.ones(len(rows), bool)
    extremes = style.mark_extremes(axes, x[whole], y[whole])
    style.nice_ylim(axes, y)
    if spec.count:
        style.integer_axis(axes.yaxis)
    return figure, extremes


def _zoned_io_in(run, window):
    """Whether the window holds zone reads, writes, appends or Copy commands (nand.csv)."""
    return run.nand is not None and any(
        series.within(run.nand, window)[column].sum() > 0
        for column in series.ZONED_COMMANDS if column in run.nand)


def _say_why_no_waf(axes, run, window):
    """An axis without a WAF point says why instead of standing empty: no interval in the
    window wrote a host page (WAF undefined); zone writes, appends and Copy's pages to
    zones are not amplified (a zoned namespace has no device GC)."""
    why = "no WAF to draw:\nthe window wrote no page through the conventional FTL"
    if _zoned_io_in(run, window):
        why += ("\nits zone writes, appends and copies are not amplified (a zoned namespace"
                "\nhas no device GC): its flash pages are the NAND figures in summary.md")
    axes.set_xlim(0, max(window.length_s, 1e-3))
    axes.set_yticks([])
    axes.text(0.5, 0.5, why, transform=axes.transAxes, ha="center", va="center",
              fontsize=10)


def plot_run(run, window, out_dir, fmt="png"):
    """Save every time series the run has data for, and the histogram of valid pages per
    GC victim when it has gc_victims.csv; return their paths."""
    paths = []
    for spec in (*TIME_SERIES, *OPTIONAL_SERIES):
        built = timeseries_figure(run, window, spec)
        if built is not None:
            paths.append(style.save(built[0], out_dir, spec.stem, fmt))
    if not paths:
        raise AnalysisError(f"{run.path}: nothing to plot")
    victims = run_victims_figure(run)
    if victims is not None:
        paths.append(style.save(victims, out_dir, VICTIMS_STEM, fmt))
    channel = ch_util_figure(run, window)
    if channel is not None:
        paths.append(style.save(channel[0], out_dir, CH_UTIL_STEM, fmt))
    zone_map = zone_wp_figure(run)
    if zone_map is not None:
        paths.append(style.save(zone_map, out_dir, ZONE_WP_STEM, fmt))
    return paths


def ch_util_figure(run, window):
    """Busy chips over ``window``: ch_util.csv's 0.1 s rows with their max and min marked,
    nand.csv's per-second CH_util over them as steps, and a line at the LUN count when the
    run's configuration says it. (figure, extremes), or None without ch_util.csv rows in
    the window."""
    fine = series.busy_chips(run)
    rows = series.within(fine, window) if fine is not None else None
    if rows is None or not len(rows):
        return None
    x = rows["time_s"] - window.start_s
    figure, axes = style.new_figure(f"Channel utilisation — {run.metadata.title()}",
                                    "time (s)", "busy chips (LUNs busy, on average)")
    axes.plot(x, rows["value"], color="C0", linewidth=0.8, label="busy chips per 0.1 s")
    partial = rows["partial"].to_numpy(dtype=bool)
    style.mark_partial(axes, x[partial], rows["value"][partial], rows["interval_s"][partial])
    kept = whole(rows)
    extremes = style.mark_extremes(axes, kept["time_s"] - window.start_s, kept["value"])
    heights = list(rows["value"])
    per_second = series.ch_util(run)
    seconds = series.within(per_second, window) if per_second is not None else None
    if seconds is not None and len(seconds):
        # one step per second, from its start to its end
        edges = np.append(seconds["start_s"].to_numpy(), seconds["time_s"].iloc[-1])
        values = np.append(seconds["value"].to_numpy(), seconds["value"].iloc[-1])
        axes.plot(edges - window.start_s, values, drawstyle="steps-post", color="C1",
                  linewidth=1.6, label="CH_util per second")
        heights.extend(seconds["value"])
    luns = run.metadata.lun_count
    if luns:
        axes.axhline(luns, color="0.4", linestyle=":", linewidth=1.0,
                     label=f"all {luns} LUNs busy")
        heights.append(luns)
    style.nice_ylim(axes, heights)
    axes.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=9)   # off the data
    return figure, extremes


def zone_wp_figure(run):
    """The zone write-pointer map of zones.csv: one bar per zone, its height the written
    fraction (wp - start) / cap, coloured by state over a faint full-height bar of the
    same colour (so empty and offline zones show too); None without zones.csv."""
    zones = series.zone_fill(run)
    if zones is None:
        return None
    figure, axes = style.new_figure(f"Zone write pointers — {run.metadata.title()}",
                                    f"zone ({len(zones)} zones)",
                                    "written: (wp - start) / cap")
    for key in (*series.ZONE_STATES, "other"):
        part = zones[zones["state_key"] == key]
        if not len(part):
            continue
        color = ZONE_COLORS[key]
        axes.bar(part["zone"], np.ones(len(part)), width=1.0, color=color, alpha=0.15,
                 linewidth=0, gid="zone-background")
        mean = part["fill"].mean()
        axes.bar(part["zone"], part["fill"], width=1.0, color=color, linewidth=0,
                 gid="zone-fill", label=f"{key.replace('_', ' ')}: {len(part)} "
                                        f"zone{'s' if len(part) > 1 else ''}, "
                                        f"mean {mean:.0%} written")
    axes.set_axisbelow(True)   # the grid behind the bars
    axes.set_xlim(zones["zone"].min() - 0.5, zones["zone"].max() + 0.5)
    axes.set_ylim(0, 1.05)
    axes.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=9)
    return figure


def run_victims_figure(run):
    """Valid pages per GC victim when chosen, data and map victims, over the whole run
    (gc_victims.csv is written once, at the end); None without the file or any victim."""
    histogram = series.victim_histogram(run)
    if histogram is None:
        return None
    lines = [(f"{kind} victims", valid, counts, "-" if kind == "data" else "--", f"C{index}")
             for index, (kind, (valid, counts)) in enumerate(histogram.items())]
    return victims_figure(f"Valid pages per GC victim — {run.metadata.title()}", lines)


def victims_figure(title, lines):
    """Histogram lines of valid pages per victim: ``lines`` holds (label, valid pages,
    victims, linestyle, color) with valid pages and victims as arrays (sparse is fine);
    each line's label gets its victim count and mean, and a dotted line marks the mean."""
    figure, axes = style.new_figure(title, "valid pages of the victim when chosen",
                                    "victims")
    highest, peaks = 0.0, []
    for label, valid, counts, linestyle, color in lines:
        valid, counts = _dense(valid, counts)
        total = counts.sum()
        if total <= 0:
            continue
        mean = float((valid * counts).sum() / total)
        axes.step(valid, counts, where="mid", linestyle=linestyle, color=color,
                  linewidth=1.2, label=f"{label}: {int(total)}, mean {mean:.1f} valid")
        axes.fill_between(valid, counts, step="mid", color=color, alpha=0.15)
        axes.axvline(mean, color=color, linestyle=":", linewidth=1.0)
        highest = max(highest, float(valid[counts > 0].max()))
        peaks.extend(counts)
    axes.set_xlim(-0.5, highest + max(1.0, 0.05 * highest) + 0.5)
    style.nice_ylim(axes, peaks)
    style.integer_axis(axes.xaxis)   # whole pages, whole victims
    style.integer_axis(axes.yaxis)
    if axes.get_lines():
        axes.legend(loc="best", fontsize=9)
    return figure


def _dense(valid, counts):
    """Sparse (valid, count) pairs as one count per valid-page number from 0 up."""
    valid = np.asarray(valid, dtype=float)
    counts = np.asarray(counts, dtype=float)
    size = int(valid.max()) + 1 if len(valid) else 1
    dense = np.zeros(size)
    np.add.at(dense, valid.astype(int), counts)
    return np.arange(size, dtype=float), dense


def compare_figure(runs, windows, labels, metric):
    """One line per run of ``metric`` (see COMPARE_METRICS), each over its own window, all
    in the same bins (intervals.py) when every run has stats.csv; each run's min and max
    are marked and given in its legend entry (labels beside the points would collide)."""
    if metric not in COMPARE_METRICS:
        raise AnalysisError(f"--metric: expected one of {', '.join(COMPARE_METRICS)}, "
                            f"got '{metric}'")
    what, ylabel, source, column = COMPARE_METRICS[metric]
    width = intervals.bin_seconds(windows)
    binned = all(intervals.has_bins(run, metric) for run in runs)
    per = intervals.per_text(width) if binned else "per interval"
    figure, axes = style.new_figure(f"{what} {per} — {compare_title(runs)}", "time (s)",
                                    ylabel.format(per=per))
    everything = []
    for index, (run, window, label) in enumerate(zip(runs, windows, labels)):
        if binned:
            rows = intervals.binned(run, window, metric, width)
        else:
            frame = series.require(source(run), run, metric)
            rows = series.within(frame, window).rename(columns={column: "value"})
        x = rows["time_s"] - window.start_s
        y = rows["value"].astype(float)
        color = f"C{index % 10}"
        line = style.interval_line(axes, rows["start_s"] - window.start_s, x, y, color, label)
        partial = rows["partial"].to_numpy(dtype=bool)
        if partial.any():
            style.hollow(axes, x[partial], y[partial], color)
        whole = ~partial if (~partial).any() else np.ones(len(rows), bool)
        points = style.mark_extremes(axes, x[whole], y[whole], color=color, text=False)
        line.set_label(f"{label}: {style.extremes_text(points)}")
        everything.extend(y)
    title = "hollow: partial interval" if any(
        collection.get_gid() == "partial" for collection in axes.collections) else None
    axes.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=9, title=title,
                title_fontsize=8)   # off the data
    style.nice_ylim(axes, everything)
    return figure


def plot_compare(runs, windows, labels, metric, out_dir, fmt="png"):
    return [style.save(compare_figure(runs, windows, labels, metric), out_dir,
                       f"compare_{metric}", fmt)]


def access_cdf(run):
    """(sorted write counts, cumulative fraction of LPNs) from lpn_access_count.csv."""
    if run.lpn_access is None or not len(run.lpn_access):
        raise AnalysisError(f"{run.path}: no lpn_access_count.csv data for a CDF")
    counts = np.sort(run.lpn_access["Access_Count"].dropna().to_numpy(dtype=float))
    fraction = np.arange(1, len(counts) + 1) / len(counts)
    return counts, fraction


def cdf_figure(run, zoom_max=None):
    """CDF of per-LPN host write counts; ``zoom_max`` keeps counts <= it (the labs' 50),
    the x axis ending where ZOOM_SHARE of the LPNs is reached when that comes sooner (a
    skewed workload's curve is flat long before 50) and the y axis just under the first
    step."""
    counts, fraction = access_cdf(run)
    title = f"CDF of LPN write counts — {run.metadata.title()}"
    earlier = writes_before_run(run, counts)
    if earlier:
        before = (f"the ageing's {earlier:,} host page writes" if run.metadata.params.get("aged")
                  else f"{earlier:,} host page writes from before the statistics started")
        title += f"\n(counts include {before}, besides the run's {int(counts.sum()) - earlier:,})"
    if zoom_max is not None:
        keep = counts <= zoom_max
        counts, fraction = counts[keep], fraction[keep]
    figure, axes = style.new_figure(title, "host writes per LPN", "fraction of LPNs")
    axes.step(counts, fraction, where="post", color="C0", linewidth=1.2)
    axes.set_ylim(0, 1.02)
    if zoom_max is not None:
        reached = np.flatnonzero(fraction >= ZOOM_SHARE)
        end = max(5.0, min(float(zoom_max), counts[reached[0]] + 1.0)) if len(reached) \
            else float(zoom_max)
        axes.set_xlim(0, end)
        style.integer_axis(axes.xaxis)
        if len(counts):   # from just under the first step: the LPNs written least
            first = fraction[np.searchsorted(counts, counts[0], side="right") - 1]
            axes.set_ylim(np.floor(first * 10) / 10, 1.01)
        shown = f"; x axis to {end:g}, where {ZOOM_SHARE:.0%} of LPNs are" \
            if end < zoom_max else ""
        axes.set_title(f"{title}\n(LPNs written <= {zoom_max} times{shown})")
    elif len(counts) and counts[-1] > LOG_X_ABOVE:
        # skewed traffic (zipf, pareto): a few LPNs take thousands of writes and squeeze
        # the rest against the axis; symlog keeps 0 on the axis and spreads the tail
        axes.set_xscale("symlog", linthresh=1)
        axes.set_xlim(0, counts[-1] * 1.5)
        axes.set_xlabel("host writes per LPN (log scale)")
    return figure


def writes_before_run(run, counts):
    """Host page writes lpn_access_count.csv counts that the run did not make: an aged
    state's (the FTL restores its per-LPN counts), i.e. the file's total minus the host
    pages stats.csv counts over the whole run; 0 when they agree or without stats.csv."""
    if run.stats is None or "host_write_pages" not in run.stats:
        return 0
    return max(0, int(counts.sum()) - int(run.stats["host_write_pages"].sum()))


def plot_cdf(run, out_dir, fmt="png"):
    return [style.save(cdf_figure(run), out_dir, "cdf", fmt),
            style.save(cdf_figure(run, ZOOM_MAX_WRITES), out_dir,
                       f"cdf_zoom{ZOOM_MAX_WRITES}", fmt)]


def distinguishing_labels(runs):
    """Legend labels: the settings that differ between the runs (e.g. 'hot_threshold=6'),
    with the engine first when VM and ftl-sim runs are drawn together ('VM (TCG)',
    'ftl-sim'), else the folder names."""
    engines = [run.metadata.engine() for run in runs]
    mixed = len(set(engines)) > 1 and None not in engines
    settings = [{**run.metadata.config, **run.metadata.params} for run in runs]
    keys = sorted(set().union(*settings)) if settings else []
    if mixed:   # a VM run's conf and ftl-sim's effective config name different keys
        keys = [key for key in keys if all(key in one for one in settings)
                and not key.startswith("accel")]
    differing = [key for key in keys
                 if len({_canonical(one.get(key)) for one in settings}) > 1
                 and key != "config"]
    labels = [", ".join(f"{key}={one.get(key, '-')}" for key in differing) for one in settings]
    if mixed:
        labels = [", ".join(part for part in (engine, label) if part)
                  for engine, label in zip(engines, labels)]
    if len(runs) < 2 or not any(labels) or len(set(labels)) != len(labels):
        return [run.name for run in runs]
    return labels


def _canonical(value):
    """A setting as compared between runs: a conf file's 'on' / 'off' (a switch, or a
    count's off) is the 1 / 0 ftl-sim's summary writes for it."""
    text = str(value).lower()
    return repr({"on": 1, "off": 0}.get(text, value))


def compare_title(runs):
    """The workload, drive and placement the runs share, e.g. 'zipf:1.2 — drive lab-1g,
    placement hotcold'; what differs is in the legend."""
    parts = [_common_workload(runs)]
    shared = []
    for what, get in (("drive", lambda meta: meta.drive()),
                      ("placement", lambda meta: meta.get("placement"))):
        values = {get(run.metadata) for run in runs}
        if len(values) == 1 and None not in values:
            shared.append(f"{what} {values.pop()}")
    if shared:
        parts.append(", ".join(shared))
    return " — ".join(parts)


def _common_workload(runs):
    workloads = {run.metadata.workload() for run in runs}
    if len(workloads) == 1 and None not in workloads:
        return workloads.pop()
    return f"{len(runs)} runs"
