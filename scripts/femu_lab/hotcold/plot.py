"""hot-set.png of the hot/cold table: per distribution and layout, the 10 s WAF of every
run (left) and the pages the classifier calls hot, second by second (right), from what
metrics.read_run read of each run."""
from pathlib import Path
from typing import Dict, List

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from femu_analysis import style  # noqa: E402
from . import cases as hc_cases  # noqa: E402
from .metrics import RunFigures  # noqa: E402


def _style(case: hc_cases.Case):
    if case.placement == "single":
        return {"color": "black", "linewidth": 2.0}
    return {"linestyle": "--" if case.decay == "off" else "-"}


def hot_set_figure(plan: List[hc_cases.Case], figures: Dict[hc_cases.Case, RunFigures],
                   out: Path) -> Path:
    groups = sorted({(c.dist, c.layout) for c in plan}, key=lambda g: (g[0], g[1]))
    fig, axes = plt.subplots(len(groups), 2, figsize=(13, 3.6 * len(groups)), squeeze=False)
    for row, (dist, layout) in enumerate(groups):
        waf_ax, hot_ax = axes[row]
        for case in (c for c in plan if (c.dist, c.layout) == (dist, layout)):
            f = figures[case]
            line, = waf_ax.plot(f.tens["seconds"] - f.precondition_s, f.tens["waf"],
                                label=case.label, **_style(case))
            short = f.tens[f.tens["partial"]]   # hollow, as femu-plot draws partial rows
            style.hollow(waf_ax, short["seconds"] - f.precondition_s, short["waf"],
                         line.get_color())
            if f.hot_pages is not None:
                hot_ax.plot(f.hot_pages["time_s"] - f.precondition_s, f.hot_pages["hot_pages"],
                            label=case.label, **_style(case))
        waf_ax.axvline(60, color="grey", linewidth=0.8)
        waf_ax.set_title(f"{dist}, {layout}: WAF per 10 s (all programs / host pages)")
        waf_ax.set_xlabel("seconds of the workload")
        waf_ax.set_ylabel("WAF")
        waf_ax.set_ylim(bottom=0)
        hot_ax.set_title(f"{dist}, {layout}: logical pages classified hot")
        hot_ax.set_xlabel("seconds of the workload")
        hot_ax.set_ylabel("hot pages (log scale)")
        hot_ax.set_yscale("log")    # aging sets of hundreds beside exact ones of 10^5
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="upper center", ncol=4, fontsize=8, frameon=False)
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.5 / (3.6 * len(groups))))
    path = out / "hot-set.png"
    fig.savefig(path, dpi=72)
    plt.close(fig)
    return path
