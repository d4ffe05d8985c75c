"""Read latency by block age (`femu-plot read-latency RUN_DIR...`): the read-retry model's
histogram (read_retries.csv: host page reads by age class and retry steps, with each step
count's sense time) as CDFs of the sense time, one line per run and age class, and a table
of each line's reads, mean, p50 and p99 (read_latency.csv, and the text printed).

The age class is the model's expected steps x (wear over read_retry_pe_step plus retention
age over read_retry_age_s), whole: 0 is fresh data on a young block. Sense time is the
flash's part of a read (pg_rd_lat + steps x read_retry_lat); queueing and the channel come
on top and are in the runs' own latency figures.
"""
import pathlib

import numpy as np
import pandas as pd

from . import style
from .csvfile import read_csv_strict
from .errors import AnalysisError
from .metadata import load_metadata

STEM = "read_latency"
FILE = "read_retries.csv"
COLUMNS = ("age_class", "steps", "sense_us", "reads")


def load_retries(folder):
    """read_retries.csv of a run folder (or of its stats/ folder), checked."""
    folder = pathlib.Path(folder)
    for path in (folder / FILE, folder / "stats" / FILE):
        if path.is_file():
            frame = read_csv_strict(path, COLUMNS)
            bad = frame[(frame["reads"] < 0) | (frame["age_class"] < 0) | (frame["steps"] < 0)]
            if len(bad):
                raise AnalysisError(f"{path}: negative count on data row {bad.index[0] + 1}")
            return frame
    raise AnalysisError(f"{folder}: no {FILE} (the run needs read_retry_lat > 0)")


def percentile(frame, p):
    """The sense time below which p percent of the frame's reads lie (nearest rank)."""
    ordered = frame.sort_values("sense_us")
    total = ordered["reads"].sum()
    rank = max(1, int(np.ceil(p / 100 * total)))
    return float(ordered["sense_us"].iloc[int(np.searchsorted(ordered["reads"].cumsum(),
                                                               rank))])


def latency_table(frames, labels):
    """One row per run and age class, and one per run over every class ("all")."""
    rows = []
    for frame, label in zip(frames, labels):
        groups = [(str(int(c)), g) for c, g in frame.groupby("age_class")] + [("all", frame)]
        for age_class, group in groups:
            reads = int(group["reads"].sum())
            if reads == 0:
                continue
            mean = float((group["sense_us"] * group["reads"]).sum() / reads)
            rows.append({"run": label, "age_class": age_class, "reads": reads,
                         "mean_us": mean, "p50_us": percentile(group, 50),
                         "p99_us": percentile(group, 99)})
    return pd.DataFrame(rows, columns=["run", "age_class", "reads", "mean_us", "p50_us",
                                       "p99_us"])


def latency_figure(frames, labels, drives=()):
    named = ", ".join(dict.fromkeys(drive for drive in drives if drive))
    figure, axes = style.new_figure("Read sense time by block age (read retries)"
                                    + (f" — {named}" if named else ""),
                                    "sense time per page read (us)", "fraction of reads")
    for index, (frame, label) in enumerate(zip(frames, labels)):
        for shade, (age_class, group) in enumerate(frame.groupby("age_class")):
            ordered = group.sort_values("sense_us")
            x = ordered["sense_us"].to_numpy()
            cumulative = ordered["reads"].cumsum().to_numpy() / ordered["reads"].sum()
            axes.step(np.concatenate(([x[0]], x)), np.concatenate(([0.0], cumulative)),
                      where="post", color=f"C{index}", linewidth=1.2,
                      alpha=1.0 - 0.6 * shade / max(1, frame["age_class"].nunique()),
                      label=f"{label}: age class {int(age_class)}")
    axes.set_ylim(0, 1.02)
    axes.legend(loc="lower right", fontsize=8)
    figure.tight_layout()
    return figure


def text_table(table):
    lines = [f"{'run':24s} {'class':>5s} {'reads':>10s} {'mean us':>9s} {'p50 us':>9s} "
             f"{'p99 us':>9s}"]
    for row in table.itertuples():
        lines.append(f"{row.run[:24]:24s} {row.age_class:>5s} {row.reads:10d} "
                     f"{row.mean_us:9.1f} {row.p50_us:9.1f} {row.p99_us:9.1f}")
    return "\n".join(lines)


def plot_read_latency(folders, labels, out_dir, fmt="png"):
    """Save the figure and read_latency.csv; print the table; return the paths."""
    frames = [load_retries(folder) for folder in folders]
    table = latency_table(frames, labels)
    print(text_table(table))
    drives = [load_metadata(folder).drive() for folder in folders]
    path = style.save(latency_figure(frames, labels, drives), out_dir, STEM, fmt)
    csv_path = path.with_suffix(".csv")
    table.to_csv(csv_path, index=False, float_format="%.3f")
    return [path, csv_path]
