"""The labs' plot style: 10x5 in, titled, dashed light grid, max and min marked and labelled.

Figures are built with matplotlib's object API on an Agg canvas: no pyplot state, no GUI
backend, nothing to close, and the same code runs in the CLI, tests and notebooks.
"""
import pathlib

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

FIGSIZE = (10, 5)
FORMATS = ("png", "svg")


def new_figure(title, xlabel, ylabel):
    figure = Figure(figsize=FIGSIZE)
    FigureCanvasAgg(figure)
    axes = figure.add_subplot()
    axes.set_title(title)
    axes.set_xlabel(xlabel)
    axes.set_ylabel(ylabel)
    axes.grid(True, linestyle="--", color="0.85", linewidth=0.8)
    return figure, axes


def format_value(value):
    """Integers without decimals, others with up to three: what the labels show."""
    if float(value).is_integer():
        return f"{int(value)}"
    return f"{value:.3f}".rstrip("0").rstrip(".")


def mark_extremes(axes, x, y, color="C0"):
    """Mark and label the max and min of y (NaN ignored); return {'max': (x, y), 'min': ...}.

    Markers are a scatter, not lines, so ``axes.get_lines()`` stays one entry per series.
    """
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    finite = np.flatnonzero(np.isfinite(y))
    if not len(finite):
        return {}
    points = {}
    # max label above its point (nice_ylim leaves room); min label beside its point, which
    # keeps it inside the axes when the minimum sits on the x axis
    for name, pick, offset, align in (("max", np.argmax, (0, 8), "center"),
                                      ("min", np.argmin, (7, 3), "left")):
        index = finite[pick(y[finite])]
        points[name] = (float(x[index]), float(y[index]))
        axes.scatter([x[index]], [y[index]], color=color, marker="o" if name == "max" else "v",
                     zorder=3, gid=f"extreme-{name}")
        axes.annotate(f"{name} {format_value(y[index])}", (x[index], y[index]),
                      textcoords="offset points", xytext=offset, ha=align, fontsize=9,
                      gid=f"extreme-{name}")
    return points


def save(figure, out_dir, stem, fmt="png"):
    if fmt not in FORMATS:
        raise ValueError(f"format {fmt!r} not in {FORMATS}")
    out_dir = pathlib.Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"{stem}.{fmt}"
    figure.savefig(path, dpi=100, bbox_inches="tight")
    return path


def nice_ylim(axes, values):
    """Counts, rates and WAF are never negative: start at 0, leave room above the max label."""
    values = np.asarray(values, dtype=float)
    values = values[np.isfinite(values)]
    if len(values) and values.min() >= 0:
        axes.set_ylim(0, values.max() * 1.12 if values.max() > 0 else 1.0)
