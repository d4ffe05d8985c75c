"""Energy and power states (`femu-plot energy RUN_DIR...`), for runs with energy=on
(docs/energy.md).

Per run, power.png (power_<label>.png with several): the mean power of each stats.csv
interval (power_w, watts) over the window (energy_window: the one given, else the workload
phase, else the whole run) and, under it, the power state the interval spent most of its
time in (the largest of its ps<N>_ms columns; a tie goes to the lower state) as a step
line, with the share of the interval spent in non-operational states (the configuration's
ps<N>_nonop) shaded, and the intervals more than half non-operational shaded above too.
A run with one power state (no ps<N>_ms columns) gets the power panel alone.

With two runs or more, energy_waf.png and energy_waf.csv: joules per GiB written by the
host against WAF, a point per run, labelled by its setting. Each run's totals are its
measured part as ftl-sim's summary.json gives them (energy_j, j_per_gib_written, waf),
else stats.csv's energy_j and host_write_bytes summed over the window (the phase's exact
counts where phases.csv snapshots them) with the window's WAF.

A run without the columns a figure needs is one line naming the file and the column.
"""
import math
import re

import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from . import series, style
from .errors import AnalysisError
from .summary import summarize
from .window import Window, find_window, phase_counts

POWER_STEM = "power"
WAF_STEM = "energy_waf"
GIB = float(1 << 30)
ENERGY_COLUMNS = ("energy_j", "power_w")
STATE_COLUMN = re.compile(r"^ps(\d+)_ms$")
NONOP_SHADE = "0.80"
TOTAL_COLUMNS = ["label", "run", "energy_j", "host_write_gib", "j_per_gib_written", "waf",
                 "mean_power_w", "source"]


def energy_window(run, explicit=None):
    """The window the figures cover: the one given, else the workload phase of a run with
    phase markers, else the whole run (idle stretches are what power states are about, so
    the sustained-I/O guess of other plots would cut what matters here)."""
    if explicit is not None or run.phases is not None:
        return find_window(run, explicit)
    return Window(0.0, math.inf, "whole run")


def _stats_file(run):
    return run.path / "stats.csv"


def energy_rows(run, window):
    """stats.csv's rows inside the window; AnalysisError naming the file and the first
    energy column it lacks."""
    frame = run.stats
    if frame is None:
        raise AnalysisError(f"{_stats_file(run)}: no such file (femu-plot energy needs "
                            f"stats.csv with {', '.join(ENERGY_COLUMNS)})")
    for column in ENERGY_COLUMNS:
        if column not in frame:
            raise AnalysisError(f"{_stats_file(run)}: no column '{column}' (a run with "
                                "energy=on writes it)")
    return series.within(frame, window)


def state_columns(frame):
    """[(state number, column)] of the ps<N>_ms columns, by state; the states must be
    0..N without a gap (as the statistics write them)."""
    found = sorted((int(m.group(1)), m.group(0)) for m in map(STATE_COLUMN.match, frame.columns)
                   if m)
    return found


def check_states(run, columns):
    numbers = [number for number, _ in columns]
    for expected, number in enumerate(numbers):
        if number != expected:
            raise AnalysisError(f"{_stats_file(run)}: no column 'ps{expected}_ms' (it has "
                                f"{', '.join(name for _, name in columns)})")


def dominant_states(rows, columns):
    """The state each row spent most time in (the lower one on a tie), NaN for a row with
    no time in any state."""
    if not columns:
        return pd.Series(np.nan, index=rows.index)
    times = rows[[name for _, name in columns]].to_numpy(dtype=float)
    picked = np.argmax(times, axis=1).astype(float)   # argmax: the first of the largest
    picked[~(times > 0).any(axis=1)] = np.nan
    numbers = np.array([number for number, _ in columns], dtype=float)
    return pd.Series(np.where(np.isnan(picked), np.nan,
                              numbers[np.nan_to_num(picked).astype(int)]), index=rows.index)


def nonop_share(rows, columns, nonop):
    """Share of each row's state time spent in the non-operational states ``nonop``."""
    if not columns:
        return pd.Series(0.0, index=rows.index)
    times = rows[[name for _, name in columns]].to_numpy(dtype=float)
    total = times.sum(axis=1)
    chosen = [index for index, (number, _) in enumerate(columns) if number in nonop]
    part = times[:, chosen].sum(axis=1) if chosen else np.zeros(len(rows))
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(total > 0, part / total, 0.0)
    return pd.Series(share, index=rows.index)


def nonop_states(metadata, count):
    """The non-operational states among 0..count-1, from the run's configuration (the
    ps<N>_nonop keys); None when it does not say."""
    config = metadata.config
    keys = [f"ps{number}_nonop" for number in range(count)]
    if not any(key in config for key in keys):
        return None
    return {number for number, key in enumerate(keys)
            if str(config.get(key, 0)).strip().lower() in ("1", "on", "yes", "true")}


def power_figure(run, label, window):
    """The power panel over the window and, with power states, the state panel under it."""
    rows = energy_rows(run, window)
    if not len(rows):
        raise AnalysisError(f"{_stats_file(run)}: no row inside the window {window}")
    columns = state_columns(rows)
    check_states(run, columns)
    x_start, x_end = rows["start_s"] - window.start_s, rows["time_s"] - window.start_s
    figure = Figure(figsize=(10, 6.5 if columns else 5))
    FigureCanvasAgg(figure)
    if columns:
        top, bottom = figure.subplots(2, 1, sharex=True, height_ratios=(3, 2))
    else:
        top, bottom = figure.add_subplot(), None
    energy = float(rows["energy_j"].sum())
    seconds = float(rows["interval_s"].sum())
    mean = energy / seconds if seconds > 0 else float("nan")
    top.set_title(f"Power — {label}: mean {mean:.4g} W, {energy:.4g} J over the {seconds:.4g} s "
                  "of stats.csv rows in the window", fontsize=10)
    top.set_ylabel("power (W), mean per interval")
    top.grid(True, linestyle="--", color="0.85", linewidth=0.8)
    style.interval_line(top, x_start, x_end, rows["power_w"], label="power_w")   # no legend:
    # the axis says what it is, and the extremes' labels keep the room
    style.mark_extremes(top, x_end, rows["power_w"])
    style.nice_ylim(top, rows["power_w"])
    if bottom is None:
        top.set_xlabel("time (s)")
        top.annotate("one power state (no ps<N>_ms columns)", (0.01, 0.02),
                     xycoords="axes fraction", fontsize=8, color="0.4")
        figure.tight_layout()
        return figure
    _state_panel(run, rows, columns, bottom, x_start, x_end, top)
    figure.tight_layout()
    return figure


def _state_panel(run, rows, columns, axes, x_start, x_end, top):
    dominant = dominant_states(rows, columns)
    count = len(columns)
    nonop = nonop_states(run.metadata, count)
    exits = int(rows["ps_exits"].sum()) if "ps_exits" in rows else None
    axes.set_xlabel("time (s)")
    axes.set_ylabel("power state")
    axes.grid(True, linestyle="--", color="0.85", linewidth=0.8)
    said = "" if exits is None else f", {exits} exits from non-operational states"
    style.interval_line(axes, x_start, x_end, dominant, color="C3",
                        label=f"state most of the interval{said}")
    axes.set_yticks(range(count))
    axes.set_yticklabels([f"PS{number}" + ("" if nonop is None or number not in nonop
                                           else " (non-op)") for number in range(count)])
    axes.set_ylim(count - 0.5, -0.5)          # PS0 on top: deeper states lower
    if nonop is None:
        axes.annotate("non-operational states unknown (no ps<N>_nonop in the run's "
                      "configuration)", (0.01, 0.02), xycoords="axes fraction", fontsize=8,
                      color="0.4")
    else:
        share = nonop_share(rows, columns, nonop).to_numpy()
        right = axes.twinx()
        edges = np.column_stack((x_start.to_numpy(), x_end.to_numpy())).ravel()
        right.fill_between(edges, np.repeat(share * 100.0, 2), color=NONOP_SHADE, alpha=0.6,
                           linewidth=0, label="time non-operational (%); shaded above: "
                                              "intervals more than half of it")
        right.set_ylim(0, 100)
        right.set_ylabel("non-operational (% of interval)")
        right.set_zorder(axes.get_zorder() - 1)
        axes.patch.set_visible(False)
        right.legend(loc="lower right", fontsize=8)
        for start, end, value in zip(x_start, x_end, share):   # the same time above
            if value > 0.5:
                top.axvspan(start, end, color=NONOP_SHADE, alpha=0.4, linewidth=0, gid="nonop")
    axes.legend(loc="upper right", fontsize=8)


def run_totals(run, label, explicit=None):
    """The run's energy, host GiB written, J/GiB, WAF and mean power: summary.json's
    measured part when ftl-sim wrote one with energy, else stats.csv over the window."""
    summary = run.metadata.sim_summary
    if "energy_j" in summary:
        return _from_summary(run, label, summary)
    window = energy_window(run, explicit)
    rows = energy_rows(run, window)
    if "host_write_bytes" not in rows:
        raise AnalysisError(f"{_stats_file(run)}: no column 'host_write_bytes'")
    exact = phase_counts(run, window)
    if exact is not None and "energy_j" in exact and "host_write_bytes" in exact:
        energy, written, seconds = exact["energy_j"], exact["host_write_bytes"], \
            exact["seconds"]
        source = "phases.csv snapshots"
    else:
        energy, written = rows["energy_j"].sum(), rows["host_write_bytes"].sum()
        seconds, source = rows["interval_s"].sum(), "stats.csv rows in the window"
    gib = float(written) / GIB
    return {"label": label, "run": run.name, "energy_j": float(energy), "host_write_gib": gib,
            "j_per_gib_written": float(energy) / gib if gib > 0 else None,
            "waf": summarize(run, window).get("waf"),
            "mean_power_w": float(energy) / float(seconds) if seconds > 0 else None,
            "source": source}


def _from_summary(run, label, summary):
    def number(key):
        value = summary.get(key)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, (int, float)) \
                or not math.isfinite(value):
            raise AnalysisError(f"{run.path / 'summary.json'}: '{key}' is not a number")
        return float(value)
    energy = number("energy_j")
    written = summary.get("host_write_pages")
    page = run.metadata.page_bytes
    gib = float(written) * page / GIB if isinstance(written, (int, float)) else None
    return {"label": label, "run": run.name, "energy_j": energy, "host_write_gib": gib,
            "j_per_gib_written": number("j_per_gib_written"), "waf": number("waf"),
            "mean_power_w": number("mean_power_w"), "source": "summary.json"}


MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")


def energy_waf_figure(totals, color_by=None, marker_by=None, annotate=None,
                      title="Energy per GiB written against WAF"):
    """J per GiB written against WAF, a point per run (runs without host writes are left
    out: they have neither). Each point is labelled by its run's label; with color_by
    and marker_by (columns of totals) points share a colour and a marker per value, in
    the legend, and only the labels in ``annotate`` are written beside their points."""
    figure, axes = style.new_figure(title, "WAF (flash programs / host pages)",
                                    "energy per GiB written by the host (J/GiB)")
    shown = totals.dropna(subset=["j_per_gib_written", "waf"])
    colors = _keys(shown, color_by)
    markers = _keys(shown, marker_by)
    for index, row in enumerate(shown.to_dict("records")):
        color = colors.get(row.get(color_by), index) if color_by else index
        marker = MARKERS[markers.get(row.get(marker_by), 0) % len(MARKERS)]
        axes.scatter([row["waf"]], [row["j_per_gib_written"]], color=f"C{color % 10}",
                     marker=marker, zorder=3, gid="run-point", s=30)
        if annotate is None or row["label"] in annotate:
            axes.annotate(row["label"], (row["waf"], row["j_per_gib_written"]),
                          textcoords="offset points", xytext=(5, 4), fontsize=7)
    handles = [axes.scatter([], [], color=f"C{number % 10}", label=str(value))
               for value, number in colors.items()]
    handles += [axes.scatter([], [], color="0.3", marker=MARKERS[number % len(MARKERS)],
                             label=str(value)) for value, number in markers.items()]
    if handles:
        axes.legend(loc="upper left", fontsize=8)
    left_out = len(totals) - len(shown)
    if left_out:
        axes.annotate(f"{left_out} run(s) without host writes left out", (0.99, 0.02),
                      xycoords="axes fraction", ha="right", fontsize=8, color="0.4")
    if len(shown):
        axes.set_xlim(0, max(1.0, float(shown["waf"].max())) * 1.1)
        style.nice_ylim(axes, shown["j_per_gib_written"])
    return figure


def _keys(frame, column):
    """{value: number} of a column's values in order of appearance ({} without one)."""
    if column is None:
        return {}
    return {value: number for number, value in enumerate(dict.fromkeys(frame[column]))}


def text_table(totals):
    lines = [f"{'run':32s} {'energy J':>10s} {'GiB written':>11s} {'J/GiB':>9s} "
             f"{'WAF':>7s} {'mean W':>8s}"]

    def fmt(value, width, digits):
        return f"{'-':>{width}s}" if value is None or pd.isna(value) \
            else f"{value:{width}.{digits}f}"
    for row in totals.itertuples():
        lines.append(f"{row.label[:32]:32s} {fmt(row.energy_j, 10, 3)} "
                     f"{fmt(row.host_write_gib, 11, 3)} {fmt(row.j_per_gib_written, 9, 3)} "
                     f"{fmt(row.waf, 7, 3)} {fmt(row.mean_power_w, 8, 4)}")
    return "\n".join(lines)


def slug(text):
    """A file-name-safe form of a label."""
    return re.sub(r"[^A-Za-z0-9._=-]+", "_", text).strip("_") or "run"


def plot_energy(runs, labels, out_dir, fmt="png", explicit=None):
    """Every run's power figure, and with two runs or more the J/GiB-against-WAF figure
    and its table; the table is printed; returns the paths written."""
    written = []
    for run, label in zip(runs, labels):
        window = energy_window(run, explicit)
        stem = POWER_STEM if len(runs) == 1 else f"{POWER_STEM}_{slug(label)}"
        written.append(style.save(power_figure(run, label, window), out_dir, stem, fmt))
    totals = pd.DataFrame([run_totals(run, label, explicit) for run, label in zip(runs, labels)],
                          columns=TOTAL_COLUMNS)
    print(text_table(totals))
    if len(runs) > 1:
        path = style.save(energy_waf_figure(totals), out_dir, WAF_STEM, fmt)
        csv_path = path.with_suffix(".csv")
        totals.to_csv(csv_path, index=False, float_format="%.6f")
        written += [path, csv_path]
    return written
