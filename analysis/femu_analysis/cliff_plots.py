"""The write cliff (`femu-plot write-cliff RUN_DIR...`): write throughput per second
against the bytes written so far, with the SLC cache's capacity and fill (stats.csv's
slc_cap_pages and slc_used_pages when the run had slc_cache=on), one panel per run, and a
table of its segments (write_cliff.csv, and the text printed).

A segment is a stretch of seconds with writes between idle gaps (seconds without a host
write). In each, the cliff is the first second in which a host page went past the full
cache (slc_direct_pages), or, in a run without the cache's counters, the first second after
the segment's opening (the fastest of its first CLIFF_OPENING seconds: the first may be a
sliver after the gap) whose throughput falls below half of the opening's;
the table gives the bytes written before it (whole seconds), the bytes the cache absorbed
up to and with that second (slc_host_pages: exact, where a second straddles the cliff), the
fastest second up to it and the median throughput after it, and the idle time before the
segment (the recovery it had).
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
    With the cache's counters, the first second with a host page written past the full
    cache (slc_direct_pages); without them, the first second after the opening below
    CLIFF_FRACTION of it, never the last second before an idle gap (partly idle)."""
    if "slc_direct_pages" in frame:
        direct = np.flatnonzero(frame.loc[seg.index, "slc_direct_pages"].to_numpy() > 0)
        return int(direct[0]) if len(direct) else None
    peak = int(np.argmax(speed.iloc[:CLIFF_OPENING].to_numpy()))
    last = len(speed) if final else len(speed) - 1
    after = speed.iloc[peak + 1:last]
    below = np.flatnonzero(after.to_numpy() < CLIFF_FRACTION * float(speed.iloc[peak]))
    return peak + 1 + int(below[0]) if len(below) else None


def cliff_table(frame):
    """One row per segment: idle_s before it, gib_written at its start, gib_to_cliff (the
    whole seconds before the cliff; None without one), absorbed_gib (what the cache took up
    to and with the cliff second, None without slc_host_pages), mib_s_before (the fastest
    second up to and with the cliff second: at a second's resolution a cache phase may
    fill only part of one), mib_s_after (the median of the seconds after it), cache_gib at
    its start."""
    mib_s = frame["host_write_bytes"] / frame["interval_s"] / MIB
    written = frame["host_write_bytes"].cumsum() / GIB
    cache = frame["slc_cap_pages"] * page_bytes(frame) / GIB if "slc_cap_pages" in frame \
        else None
    rows = []
    parts = segments(frame)
    for number, (idle, seg) in enumerate(parts):
        speed = mib_s.loc[seg.index]
        final = number + 1 == len(parts)
        at = cliff_at(frame, seg, speed, final)
        start_gib = float(written.loc[seg.index[0]] - seg["host_write_bytes"].iloc[0] / GIB)
        row = {"idle_s": idle, "gib_written": start_gib, "gib_to_cliff": None,
               "absorbed_gib": None, "mib_s_before": float(np.median(speed)),
               "mib_s_after": None,
               "cache_gib": None if cache is None else float(cache.loc[seg.index[0]])}
        if at is not None:
            last = len(speed) if final else len(speed) - 1
            after = speed.iloc[at + 1:last] if at + 1 < last else speed.iloc[at:at + 1]
            row["gib_to_cliff"] = float(written.loc[seg.index[at]] - start_gib -
                                        seg["host_write_bytes"].iloc[at] / GIB)
            row["mib_s_before"] = float(speed.iloc[:at + 1].max())
            row["mib_s_after"] = float(np.median(after))
            if "slc_host_pages" in frame:
                absorbed = frame.loc[seg.index[:at + 1], "slc_host_pages"].sum()
                row["absorbed_gib"] = float(absorbed * page_bytes(frame) / GIB)
        rows.append(row)
    return pd.DataFrame(rows, columns=["idle_s", "gib_written", "gib_to_cliff",
                                       "absorbed_gib", "mib_s_before", "mib_s_after",
                                       "cache_gib"])


def cliff_figure(runs, labels):
    figure, axes = style.new_figure("Write cliff: throughput against data written",
                                    "data written (GiB)", "write throughput (MiB/s)")
    right = None
    for index, (run, label) in enumerate(zip(runs, labels)):
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
        for idle, seg in segments(frame)[1:]:
            x = float(written.loc[seg.index[0]] - seg["host_write_bytes"].iloc[0] / GIB)
            axes.axvline(x, color=color, linestyle=":", linewidth=0.8)
            axes.annotate(f"no writes {idle:.0f} s", (x, 0), textcoords="offset points",
                          xytext=(2, 4), fontsize=7, color=color, rotation=90)
        if "slc_cap_pages" in frame:
            right = right or axes.twinx()
            scale = page_bytes(frame) / GIB
            right.plot(written, frame["slc_cap_pages"] * scale, color=color, linestyle="--",
                       linewidth=1.0, label=f"{label}: cache capacity")
            right.plot(written, frame["slc_used_pages"] * scale, color=color, linestyle="-.",
                       linewidth=0.8, alpha=0.6, label=f"{label}: cache in use")
    if right is not None:
        right.set_ylabel("SLC cache (GiB)")
        right.set_ylim(bottom=0)
        right.legend(loc="upper right", fontsize=7)
    axes.set_ylim(bottom=0)
    axes.legend(loc="upper left" if right is None else "lower left", fontsize=7)
    figure.tight_layout()
    return figure


def text_table(tables, labels):
    lines = [f"{'run':20s} {'idle s':>7s} {'at GiB':>7s} {'cache GiB':>9s} {'to cliff':>9s} "
             f"{'absorbed':>9s} {'MiB/s before':>12s} {'MiB/s after':>11s}"]

    def fmt(value, width, digits):
        return f"{'-':>{width}s}" if value is None or pd.isna(value) \
            else f"{value:{width}.{digits}f}"
    for table, label in zip(tables, labels):
        for row in table.itertuples():
            lines.append(f"{label[:20]:20s} {row.idle_s:7.0f} {row.gib_written:7.2f} "
                         f"{fmt(row.cache_gib, 9, 3)} {fmt(row.gib_to_cliff, 9, 3)} "
                         f"{fmt(row.absorbed_gib, 9, 3)} "
                         f"{fmt(row.mib_s_before, 12, 1)} {fmt(row.mib_s_after, 11, 1)}")
    return "\n".join(lines)


def plot_write_cliff(runs, labels, out_dir, fmt="png"):
    """Save the figure and write_cliff.csv; print the table; return the paths."""
    tables = [cliff_table(_stats(run)) for run in runs]
    print(text_table(tables, labels))
    path = style.save(cliff_figure(runs, labels), out_dir, STEM, fmt)
    csv_path = path.with_suffix(".csv")
    pd.concat([table.assign(run=label) for table, label in zip(tables, labels)],
              ignore_index=True).to_csv(csv_path, index=False, float_format="%.4f")
    return [path, csv_path]
