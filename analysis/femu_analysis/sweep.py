"""Parameter studies: IOPS, bandwidth and mean latency against a parameter, one line per
ioengine, from fio JSON results.

Each fio JSON file in the given run folders is one point. The parameter's value (and the
ioengine) come from the folder's ``params.json`` when it names them, else from the fio job
options in the JSON (job over global options); a run without an ioengine anywhere used
fio's default, psync.
"""
import pandas as pd
from matplotlib.ticker import NullLocator

from femu_common.cli_args import size_bytes
from femu_common.progress import counted

from . import style
from .errors import AnalysisError
from .fio import fio_options, fio_result
from .loader import load_run

DEFAULT_IOENGINE = "psync"
METRICS = (  # (file stem, column, y label)
    ("sweep_iops", "iops", "IOPS"),
    ("sweep_bandwidth", "bandwidth_mib_s", "bandwidth (MiB/s)"),
    ("sweep_latency", "mean_latency_us", "mean latency (us)"),
)


def sweep_table(run_dirs, param):
    """One row per fio result: run, param, value (sortable number or None), ioengine, metrics."""
    rows = []
    for run_dir in counted(run_dirs, "reading fio results", "run"):
        run = load_run(run_dir, need_series=False)
        if not run.metadata.fio:
            raise AnalysisError(f"{run.path}: no fio JSON result in the folder")
        params = run.metadata.params
        for path, document in run.metadata.fio:
            options = fio_options(document)
            value = params.get(param, options.get(param))
            if value is None:
                raise AnalysisError(f"{path}: no value for parameter '{param}' "
                                    "(neither params.json nor fio job options name it)")
            engine = params.get("ioengine", options.get("ioengine", DEFAULT_IOENGINE))
            workload = " ".join(str(params.get(key, options.get(key))) for key in ("rw", "bs")
                                if params.get(key, options.get(key)))
            rows.append({"run": run.name, "file": path.name, param: str(value),
                         "value": parameter_number(value), "ioengine": str(engine),
                         "workload": workload, **fio_result(document, path)})
    return pd.DataFrame(rows)


def parameter_number(value):
    """4 -> 4.0, '200M' -> 209715200.0, '16k' -> 16384.0; None when not a number or size."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    number = size_bytes(str(value))
    return None if number is None else float(number)


def sweep_figures(table, param, title_suffix=""):
    """{stem: figure}: one figure per metric, one line per ioengine, points sorted by value."""
    numeric = table["value"].notna().all()
    categories = list(dict.fromkeys(table[param]))  # first-seen order for non-numeric values
    figures = {}
    for stem, column, ylabel in METRICS:
        title = f"{ylabel} vs {param}" + (f" — {title_suffix}" if title_suffix else "")
        figure, axes = style.new_figure(title, param, ylabel)
        for index, (engine, rows) in enumerate(table.groupby("ioengine", sort=True)):
            if numeric:
                rows = rows.sort_values("value")
                x = rows["value"]
            else:
                rows = rows.assign(order=rows[param].map(categories.index)).sort_values("order")
                x = rows["order"]
            color = f"C{index % 10}"
            axes.plot(x, rows[column], marker="o", color=color, linewidth=1.2, label=engine)
            style.mark_extremes(axes, x, rows[column], color=color)
        if numeric:
            shown = {}  # value -> the label it was written with first
            for text, value in zip(table[param], table["value"]):
                shown.setdefault(value, text)
            values = sorted(shown)
            if values[0] > 0 and values[-1] / values[0] >= 16:
                axes.set_xscale("log", base=2)  # numjobs 1-32, iodepth 1-64: doubling steps
                axes.xaxis.set_minor_locator(NullLocator())
            axes.set_xticks(values, [shown[value] for value in values])
        else:
            axes.set_xticks(range(len(categories)), categories)
        axes.legend(title="ioengine", fontsize=9)
        style.nice_ylim(axes, table[column])
        figures[stem] = figure
    return figures


def plot_sweep(run_dirs, param, out_dir, fmt="png"):
    table = sweep_table(run_dirs, param)
    workloads = set(table["workload"])  # named in the titles when all points share it
    figures = sweep_figures(table, param, workloads.pop() if len(workloads) == 1 else "")
    paths = [style.save(figure, out_dir, stem, fmt) for stem, figure in figures.items()]
    csv_path = out_dir / "sweep.csv"
    table.drop(columns=["value"]).to_csv(csv_path, index=False)
    return paths + [csv_path]
