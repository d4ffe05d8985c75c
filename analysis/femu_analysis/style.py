"""The labs' plot style: 10x5 in, titled, dashed light grid, max and min marked and labelled.

Figures are built with matplotlib's object API on an Agg canvas: no pyplot state, no GUI
backend, nothing to close, and the same code runs in the CLI, tests and notebooks.
"""
import pathlib

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

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


def extreme_points(x, y):
    """{'max': (x, y), 'min': (x, y)} of y (NaN ignored); {} without a finite value."""
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    finite = np.flatnonzero(np.isfinite(y))
    if not len(finite):
        return {}
    return {name: (float(x[finite[pick(y[finite])]]), float(y[finite[pick(y[finite])]]))
            for name, pick in (("max", np.argmax), ("min", np.argmin))}


def mark_extremes(axes, x, y, color="C0", text=True):
    """Mark the max and min of y (NaN ignored), labelled beside them when ``text`` (one
    series: the labels are moved apart if they would touch; several series put the values
    in their legend instead, see extremes_text); return {'max': (x, y), 'min': ...}.

    Markers are a scatter, not lines, so ``axes.get_lines()`` stays one entry per series.
    """
    points = extreme_points(x, y)
    labels = []
    xs = np.asarray(x, dtype=float)
    low, high = (float(np.nanmin(xs)), float(np.nanmax(xs))) if len(xs) else (0.0, 0.0)
    # max label above its point (nice_ylim leaves room); min label beside its point, which
    # keeps it inside the axes when the minimum sits on the x axis
    for name, offset, align in (("max", (0, 8), "center"), ("min", (7, 3), "left")):
        if name not in points:
            continue
        px, py = points[name]
        axes.scatter([px], [py], color=color, marker="o" if name == "max" else "v",
                     zorder=3, gid=f"extreme-{name}")
        if text and name == "max" and high > low:
            # a max at either end of the data: its label grows inward, not over the axis
            share = (px - low) / (high - low)
            align = "left" if share < 0.05 else "right" if share > 0.95 else align
        if text:
            labels.append(axes.annotate(f"{name} {format_value(py)}", (px, py),
                                        textcoords="offset points", xytext=offset, ha=align,
                                        fontsize=9, gid=f"extreme-{name}"))
    if len(labels) == 2:
        _keep_apart(axes, *labels)
    return points


def interval_line(axes, starts, ends, values, color="C0", label=None, linewidth=1.2):
    """Per-interval values drawn over their intervals: each value held from its interval's
    start to its end (steps), so the first interval shows from its start rather than as a
    point at its end. The returned line (one entry in ``axes.get_lines()``) has a point at
    each interval's end; the first interval's own span is a segment (gid 'first-interval')."""
    starts = np.asarray(starts, dtype=float)
    ends = np.asarray(ends, dtype=float)
    values = np.asarray(values, dtype=float)
    line, = axes.plot(ends, values, drawstyle="steps-pre", color=color, linewidth=linewidth,
                      label=label)
    if len(ends) and np.isfinite(values[0]):
        axes.hlines(values[0], starts[0], ends[0], colors=color, linewidth=linewidth,
                    gid="first-interval")
    return line


def extremes_text(points):
    """'min 1.8, max 2.1': a series' extremes for its legend entry."""
    if not points:
        return "no data"
    return f"min {format_value(points['min'][1])}, max {format_value(points['max'][1])}"


def _keep_apart(axes, upper, lower):
    """Move the min label under its point when it would overlap the max label (a flat
    series puts both at one height)."""
    renderer = axes.figure.canvas.get_renderer()
    if upper.get_window_extent(renderer).overlaps(lower.get_window_extent(renderer)):
        lower.set_position((7, -12))
        lower.set_verticalalignment("top")


def mark_partial(axes, x, y, lengths, color="C0"):
    """Hollow markers on the intervals shorter than the others (the window's last
    seconds), in the legend with their length."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    drawn = np.isfinite(y)   # an undefined value (WAF without host writes) has no marker
    x, y, lengths = x[drawn], y[drawn], np.asarray(lengths, dtype=float)[drawn]
    if not len(x):
        return
    seconds = ", ".join(f"{length:.3g} s" for length in lengths)
    hollow(axes, x, y, color, label=f"partial interval ({seconds})")
    axes.legend(loc="best", fontsize=9)


def hollow(axes, x, y, color, label=None):
    """The one look of a partial interval in every plot: a hollow marker (gid 'partial')."""
    axes.scatter(x, y, facecolors="white", edgecolors=color, marker="o", zorder=4, s=36,
                 linewidths=1.4, gid="partial", label=label)


def integer_axis(axis):
    """Ticks on whole numbers only (counts: no 0.25 victims)."""
    axis.set_major_locator(MaxNLocator(integer=True))


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
