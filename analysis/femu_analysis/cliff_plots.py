"""The write cliff (`femu-plot write-cliff RUN_DIR...`): write throughput per second
against the bytes written so far, with the SLC cache's allowance and the data it holds
(stats.csv's slc_cap_pages and slc_used_pages when the run had slc_cache=on), one panel per
run, and a table of its segments (write_cliff.csv, and the text printed).

A segment is a stretch of seconds with writes between idle gaps (seconds without a host
write). In each, the cliff is the first second wholly past a full cache: the first second,
from the one with the first host page written past the full cache (slc_direct_pages) on,
in which the cache took no host page; in a run without the cache's counters, the first
second after the segment's opening (the fastest of its first CLIFF_OPENING seconds: the
first may be a sliver after the gap) whose throughput falls below half of the opening's.
"To cliff" is the data written in the segment before that second: where the plot's
throughput steps down to the media's speed (the plot marks it). The table also gives the
bytes the cache absorbed before it (slc_host_pages), the fastest second before it and the
median throughput from it on, and the idle time before the segment as the run configured
it (ftl-sim's --idle, the write-cliff workloads' RUNTIME) beside the whole seconds the
statistics saw without a write (a second holding the round's last or the next round's
first writes is not among them).

The two gauges (hw/femu/ftl/gc/slc_fold.c): slc_cap_pages is the cache's *allowance*, the
SLC units its rule allows at the current valid data x their SLC pages, which a new SLC
unit is checked against; slc_used_pages is the *data in the cache*, the valid pages in SLC
units not yet folded. The allowance shrinks as valid data grows, the pages just written to
the cache included, while what the cache already holds stays until folded, so the data can
exceed the allowance. Background folding is done when the next command arrives (its work
timed into the idle gap), so the data gauge stays up through an idle stretch and drops in
the first second after it.
"""
import numpy as np
import pandas as pd

from . import style
from .errors import AnalysisError

STEM = "write_cliff"
GIB = float(1 << 30)
MIB = float(1 << 20)
CLIFF_OPENING = 3       # seconds whose fastest is a segment's opening throughput
CLIFF_FRACTION = 0.5    # the cliff: throughput below this share of the opening


def _stats(run):
    frame = run.stats
    needed = ("host_write_bytes", "host_write_pages", "interval_s")
    if frame is None or any(column not in frame for column in needed):
        raise AnalysisError(f"{run.path}: the write cliff needs stats.csv with "
                            f"{', '.join(needed)}")
    return frame


def page_bytes(frame):
    """Bytes of a flash page: host bytes over host pages (4 KiB when nothing was written)."""
    pages = frame["host_write_pages"].sum()
    return float(frame["host_write_bytes"].sum() / pages) if pages else 4096.0


def segments(frame):
    """[(idle_s before, rows)]: the runs of seconds with writes, split at idle seconds."""
    out, idle, current = [], 0.0, []
    for index, row in frame.iterrows():
        if row["host_write_bytes"] > 0:
            current.append(index)
            continue
        if current:
            out.append((idle, frame.loc[current]))
            current, idle = [], 0.0
        idle += row["interval_s"]
    if current:
        out.append((idle, frame.loc[current]))
    return out


def cliff_at(frame, seg, speed, final):
    """The position of the cliff second in the segment, or None.
    With the cache's counters, the first second from the first direct host page on in
    which the cache took no host page; without them, the first second after the opening
    below CLIFF_FRACTION of it, never the last second before an idle gap (partly idle)."""
    if "slc_direct_pages" in frame:
        direct = frame.loc[seg.index, "slc_direct_pages"].to_numpy() > 0
        cached = frame.loc[seg.index, "slc_host_pages"].to_numpy() > 0 \
            if "slc_host_pages" in frame else np.zeros(len(seg), bool)
        first = np.flatnonzero(direct)
        if not len(first):
            return None
        past = np.flatnonzero(direct & ~cached)
        past = past[past >= first[0]]
        return int(past[0]) if len(past) else None
    peak = int(np.argmax(speed.iloc[:CLIFF_OPENING].to_numpy()))
    last = len(speed) if final else len(speed) - 1
    after = speed.iloc[peak + 1:last]
    below = np.flatnonzero(after.to_numpy() < CLIFF_FRACTION * float(speed.iloc[peak]))
    return peak + 1 + int(below[0]) if len(below) else None


def configured_idle_s(metadata):
    """The idle time between rounds as the run was told it: ftl-sim's --idle (its
    summary's workload idle_s), params.json's idle_s, or a write-cliff workload's RUNTIME
    (params.json's runtime); None when the run does not say."""
    value = metadata.sim_workload.get("idle_s", metadata.params.get("idle_s"))
    if value is None and str(metadata.params.get("workload", "")).startswith("write-cliff"):
        value = metadata.params.get("runtime")
    try:
        return float(value) if value is not None and float(value) > 0 else None
    except (TypeError, ValueError):
        return None


def cliff_table(frame, idle_configured=None):
    """One row per segment: idle_s (the configured idle before it, ``idle_configured``;
    0 for the first, None when unknown), quiet_s (the whole seconds without a host write
    before it), gib_written at its start, gib_to_cliff (the data written before the cliff
    second; None without one), absorbed_gib (what the cache took before it, None without
    slc_host_pages), mib_s_before (the fastest second before the cliff; the median without
    one), mib_s_after (the median of the seconds from the cliff on), cache_gib (the
    allowance at its start)."""
    mib_s = frame["host_write_bytes"] / frame["interval_s"] / MIB
    written = frame["host_write_bytes"].cumsum() / GIB
    cache = frame["slc_cap_pages"] * page_bytes(frame) / GIB if "slc_cap_pages" in frame \
        else None
    rows = []
    parts = segments(frame)
    for number, (quiet, seg) in enumerate(parts):
        speed = mib_s.loc[seg.index]
        final = number + 1 == len(parts)
        at = cliff_at(frame, seg, speed, final)
        start_gib = float(written.loc[seg.index[0]] - seg["host_write_bytes"].iloc[0] / GIB)
        row = {"idle_s": 0.0 if number == 0 else idle_configured, "quiet_s": quiet,
               "gib_written": start_gib, "gib_to_cliff": None,
               "absorbed_gib": None, "mib_s_before": float(np.median(speed)),
               "mib_s_after": None,
               "cache_gib": None if cache is None else float(cache.loc[seg.index[0]])}
        if at is not None:
            last = len(speed) if final else len(speed) - 1
            after = speed.iloc[at:last] if at < last else speed.iloc[at:at + 1]
            row["gib_to_cliff"] = float(seg["host_write_bytes"].iloc[:at].sum() / GIB)
            row["mib_s_before"] = float(speed.iloc[:at].max()) if at else None
            row["mib_s_after"] = float(np.median(after))
            if "slc_host_pages" in frame:
                absorbed = frame.loc[seg.index[:at], "slc_host_pages"].sum()
                row["absorbed_gib"] = float(absorbed * page_bytes(frame) / GIB)
        rows.append(row)
    return pd.DataFrame(rows, columns=COLUMNS)


COLUMNS = ["idle_s", "quiet_s", "gib_written", "gib_to_cliff", "absorbed_gib",
           "mib_s_before", "mib_s_after", "cache_gib"]


def cliff_points(table):
    """The data written (GiB) at each segment's cliff: where the plot marks it."""
    return [row.gib_written + row.gib_to_cliff for row in table.itertuples()
            if row.gib_to_cliff is not None and not pd.isna(row.gib_to_cliff)]


def cliff_figure(runs, labels, tables):
    drives = list(dict.fromkeys(run.metadata.drive() or run.name for run in runs))
    figure, axes = style.new_figure(f"Write cliff — {', '.join(drives)}: throughput "
                                    "against data written", "data written (GiB)",
                                    "write throughput (MiB/s)")
    right = None
    for index, (run, label, table) in enumerate(zip(runs, labels, tables)):
        frame = _stats(run)
        written = frame["host_write_bytes"].cumsum() / GIB
        busy = frame["host_write_bytes"] > 0
        mib_s = frame["host_write_bytes"] / frame["interval_s"] / MIB
        color = f"C{index}"
        # each second a flat stretch over the bytes written in it
        starts = (written - frame["host_write_bytes"] / GIB)[busy].to_numpy()
        ends, speeds = written[busy].to_numpy(), mib_s[busy].to_numpy()
        axes.plot(np.column_stack((starts, ends)).ravel(), np.repeat(speeds, 2), color=color,
                  linewidth=1.0, label=f"{label}: throughput")
        cliffs = cliff_points(table)
        if cliffs:   # the start of the cliff second: its flat stretch begins there
            heights = [speeds[np.flatnonzero(np.isclose(starts, x, atol=1e-9))[0]]
                       if np.isclose(starts, x, atol=1e-9).any() else 0.0 for x in cliffs]
            axes.scatter(cliffs, heights, marker="x", color=color, s=60, zorder=4,
                         gid="cliff", label=f"{label}: cliff (table's 'to cliff')")
        for (idle, seg), configured in zip(segments(frame)[1:], table["idle_s"][1:]):
            x = float(written.loc[seg.index[0]] - seg["host_write_bytes"].iloc[0] / GIB)
            said = f"idle {configured:g} s" if configured is not None and \
                not pd.isna(configured) else f"no writes {idle:.0f} s"
            axes.axvline(x, color=color, linestyle=":", linewidth=0.8)
            axes.annotate(said, (x, 0), textcoords="offset points", xytext=(2, 4), fontsize=7,
                          color=color, rotation=90)
        if "slc_cap_pages" in frame:
            right = right or axes.twinx()
            scale = page_bytes(frame) / GIB
            right.plot(written, frame["slc_cap_pages"] * scale, color=color, linestyle="--",
                       linewidth=1.0, label=f"{label}: cache allowance (slc_cap_pages)")
            right.plot(written, frame["slc_used_pages"] * scale, color=color, linestyle="-.",
                       linewidth=0.8, alpha=0.6,
                       label=f"{label}: data in the cache, until folded (slc_used_pages)")
    if right is not None:
        right.set_ylabel("SLC cache (GiB)")
        right.set_ylim(bottom=0)
        right.legend(loc="upper right", fontsize=7)
    axes.set_ylim(bottom=0)
    axes.legend(loc="upper left" if right is None else "lower left", fontsize=7)
    figure.tight_layout()
    return figure


def text_table(tables, labels):
    lines = [f"{'run':20s} {'idle s':>6s} {'no-write s':>10s} {'at GiB':>7s} "
             f"{'allowance GiB':>13s} {'to cliff':>9s} {'absorbed':>9s} {'MiB/s before':>12s} "
             f"{'MiB/s after':>11s}"]

    def fmt(value, width, digits):
        return f"{'-':>{width}s}" if value is None or pd.isna(value) \
            else f"{value:{width}.{digits}f}"
    for table, label in zip(tables, labels):
        for row in table.itertuples():
            lines.append(f"{label[:20]:20s} {fmt(row.idle_s, 6, 0)} {row.quiet_s:10.0f} "
                         f"{row.gib_written:7.2f} {fmt(row.cache_gib, 13, 3)} "
                         f"{fmt(row.gib_to_cliff, 9, 3)} {fmt(row.absorbed_gib, 9, 3)} "
                         f"{fmt(row.mib_s_before, 12, 1)} {fmt(row.mib_s_after, 11, 1)}")
    lines.append("idle s: as configured; no-write s: whole seconds without a host write; "
                 "to cliff: GiB written before the first second past a full cache")
    return "\n".join(lines)


def plot_write_cliff(runs, labels, out_dir, fmt="png"):
    """Save the figure and write_cliff.csv; print the table; return the paths."""
    tables = [cliff_table(_stats(run), configured_idle_s(run.metadata)) for run in runs]
    print(text_table(tables, labels))
    path = style.save(cliff_figure(runs, labels, tables), out_dir, STEM, fmt)
    csv_path = path.with_suffix(".csv")
    pd.concat([table.assign(run=label) for table, label in zip(tables, labels)],
              ignore_index=True).to_csv(csv_path, index=False, float_format="%.4f")
    return [path, csv_path]
