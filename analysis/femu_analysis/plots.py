"""The lab plots of runs: time series of one run, overlays of several, CDF of access counts.

``*_figure`` functions build and return figures (tests inspect them); ``plot_*`` functions
save them and return the written paths. Time on the x axis is seconds since the window
start, re-numbered as the lab notebooks did.
"""
import dataclasses

import numpy as np

from . import series, style
from .errors import AnalysisError


@dataclasses.dataclass(frozen=True)
class TimeSeries:
    stem: str          # file name without extension
    what: str          # title prefix
    ylabel: str
    source: callable   # run -> frame (see series.py)
    column: str        # value column in that frame


TIME_SERIES = (
    TimeSeries("iops", "IOPS", "IOPS (read + write)", series.iops, "total"),
    TimeSeries("throughput", "Throughput", "MB/s (read + write)", series.throughput, "total"),
    TimeSeries("erased_blocks", "Erased blocks", "blocks erased by GC per interval",
               series.erased_blocks, "value"),
    TimeSeries("moved_pages", "Moved valid pages", "pages moved by GC per interval",
               series.moved_pages, "value"),
    TimeSeries("waf", "WAF", "write amplification per interval", series.waf, "value"),
)
# Drawn by plot_run only when the run has the data (DFTL runs; runs from before it lack
# the column and are plotted as they always were).
CMT_HIT_RATE = TimeSeries("cmt_hit_rate", "CMT hit rate", "CMT hits / lookups per interval",
                          series.cmt_hit_rate, "value")
OPTIONAL_SERIES = (CMT_HIT_RATE,)
VICTIMS_STEM = "gc_victims"
# ZNS+ plots, drawn when the run has ch_util.csv / zones.csv (older runs do not)
CH_UTIL_STEM = "ch_util"
ZONE_WP_STEM = "zone_wp"
ZONE_COLORS = {"empty": "0.6", "implicit_open": "C2", "explicit_open": "C0", "closed": "C1",
               "full": "C3", "read_only": "C4", "offline": "k", "other": "C7"}
COMPARE_METRICS = {
    # metric: (title, y label, source, column); IOPS and WAF per 10 s, as the labs overlay
    "iops": ("IOPS", "IOPS (mean per interval)", series.interval_iops, "value"),
    "waf": ("WAF", "write amplification per interval", series.waf, "value"),
    "throughput": ("Throughput", "MB/s (read + write)", series.throughput, "total"),
}
ZOOM_MAX_WRITES = 50
LOG_X_ABOVE = 1000  # full CDF gets a log x axis when some LPN was written more often


def timeseries_figure(run, window, spec):
    """One lab time series of ``run`` over ``window``; returns (figure, extremes) or None
    when the run has no data for it."""
    frame = spec.source(run)
    if frame is None:
        return None
    rows = series.within(frame, window)
    x = rows["time_s"] - window.start_s
    y = rows[spec.column]
    figure, axes = style.new_figure(f"{spec.what} — {run.metadata.title()}", "time (s)",
                                    spec.ylabel)
    axes.plot(x, y, color="C0", linewidth=1.2, label=spec.ylabel)
    extremes = style.mark_extremes(axes, x, y)
    style.nice_ylim(axes, y)
    return figure, extremes


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
    extremes = style.mark_extremes(axes, x, rows["value"])
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
    """One line per run of ``metric`` (see COMPARE_METRICS), each over its own window."""
    if metric not in COMPARE_METRICS:
        raise AnalysisError(f"--metric: expected one of {', '.join(COMPARE_METRICS)}, "
                            f"got '{metric}'")
    what, ylabel, source, column = COMPARE_METRICS[metric]
    figure, axes = style.new_figure(f"{what} per run — {_common_workload(runs)}", "time (s)",
                                    ylabel)
    everything = []
    for index, (run, window, label) in enumerate(zip(runs, windows, labels)):
        frame = series.require(source(run), run, metric)
        rows = series.within(frame, window)
        x = rows["time_s"] - window.start_s
        axes.plot(x, rows[column], color=f"C{index % 10}", linewidth=1.2, label=label)
        style.mark_extremes(axes, x, rows[column], color=f"C{index % 10}")
        everything.extend(rows[column])
    axes.legend(loc="best", fontsize=9)
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
    """CDF of per-LPN host write counts; ``zoom_max`` keeps counts <= it (the labs' 50)."""
    counts, fraction = access_cdf(run)
    title = f"CDF of LPN write counts — {run.metadata.title()}"
    if zoom_max is not None:
        keep = counts <= zoom_max
        counts, fraction = counts[keep], fraction[keep]
        title += f" (<= {zoom_max} writes)"
    figure, axes = style.new_figure(title, "host writes per LPN", "fraction of LPNs")
    axes.step(counts, fraction, where="post", color="C0", linewidth=1.2)
    axes.set_ylim(0, 1.02)
    if zoom_max is not None:
        axes.set_xlim(0, zoom_max)
    elif len(counts) and counts[-1] > LOG_X_ABOVE:
        # skewed traffic (zipf, pareto): a few LPNs take thousands of writes and squeeze
        # the rest against the axis; symlog keeps 0 on the axis and spreads the tail
        axes.set_xscale("symlog", linthresh=1)
        axes.set_xlim(0, counts[-1] * 1.5)
        axes.set_xlabel("host writes per LPN (log scale)")
    return figure


def plot_cdf(run, out_dir, fmt="png"):
    return [style.save(cdf_figure(run), out_dir, "cdf", fmt),
            style.save(cdf_figure(run, ZOOM_MAX_WRITES), out_dir,
                       f"cdf_zoom{ZOOM_MAX_WRITES}", fmt)]


def distinguishing_labels(runs):
    """Legend labels: the settings that differ between the runs (e.g. 'hot_threshold=6'),
    else the folder names."""
    settings = [{**run.metadata.config, **run.metadata.params} for run in runs]
    keys = sorted(set().union(*settings)) if settings else []
    differing = [key for key in keys
                 if len({repr(one.get(key)) for one in settings}) > 1 and key != "config"]
    if not differing or len(runs) < 2:
        return [run.name for run in runs]
    labels = [", ".join(f"{key}={one.get(key, '-')}" for key in differing) for one in settings]
    return labels if len(set(labels)) == len(labels) else [run.name for run in runs]


def _common_workload(runs):
    workloads = {run.metadata.workload() for run in runs}
    if len(workloads) == 1 and None not in workloads:
        return workloads.pop()
    return f"{len(runs)} runs"
