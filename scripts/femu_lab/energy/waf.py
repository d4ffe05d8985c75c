"""femu-lab energy waf: joules per GiB written by the host against WAF, in ftl-sim with
energy=on, over placement settings x GC policies x write workloads chosen so that WAF
spans about 1 to 8.

The workloads (--workloads), each after its own fill (not measured), then --io-size of
writes (default 4 GiB; --quick 1 GiB) at QD 16, seeded:

    seq-75     sequential 128 KiB writes over the first 75 % of the logical space
               (--precondition region): whole lines invalidated in order, WAF 1
    rand-75    uniform random 4 KiB writes over the first 75 %: GC finds lines a quarter
               of the device's spare space emptied
    rand-77    the same over 77 %: on lab-1g WAF about 2.5
    rand-85    the same over 85 %
    zipf-1.2   zipf 1.2 random 4 KiB writes over the whole, filled device
    rand-100   uniform random 4 KiB writes over the whole, filled device: with FEMU's
               thresholds WAF about 8 (docs/ftl.md, "A note on WAF")

A setting is placement (single, or hotcold with hot_threshold --hot-threshold) and
gc_policy (--policies). The table (energy-waf.csv, .md) gives per run WAF, GiB written,
joules, J/GiB, mean watts and the split of energy_split_j (nand_read, nand_program,
nand_erase, channel, link, controller, dram, static), and the runs closest to WAF 1, 2.5
and 7.9 (--targets) with theirs; energy_waf.png plots J/GiB against WAF (femu-plot
energy's figure), a colour per workload, a marker per placement.
"""
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Mapping, Sequence

import pandas as pd

from femu_analysis import energy_plots
from femu_analysis.style import save

from . import runs

TABLE_STEM = "energy-waf"
TARGETS_STEM = "energy-waf-targets"
PLOT_STEM = energy_plots.WAF_STEM
OUTPUTS = (f"{TABLE_STEM}.csv", f"{TABLE_STEM}.md", f"{TARGETS_STEM}.csv", f"{PLOT_STEM}.png")
PLACEMENTS = ("single", "hotcold")
POLICIES = ("greedy", "cost_benefit", "fifo", "random")
QUICK_POLICIES = ("greedy",)
# name -> (share of the logical space written: below 1 the fill and the writes cover that
#          region only, ftl-sim's workload options)
WORKLOADS = {
    "seq-75": (0.75, ["--rw", "write", "--bs", "128k"]),
    "rand-75": (0.75, ["--rw", "randwrite", "--bs", "4k"]),
    "rand-77": (0.77, ["--rw", "randwrite", "--bs", "4k"]),
    "rand-85": (0.85, ["--rw", "randwrite", "--bs", "4k"]),
    "zipf-1.2": (1.0, ["--rw", "randwrite", "--dist", "zipf:1.2", "--bs", "4k"]),
    "rand-100": (1.0, ["--rw", "randwrite", "--bs", "4k"]),
}
QUICK_WORKLOADS = ("seq-75", "rand-77", "rand-100")
TARGETS = (1.0, 2.5, 7.9)
QD = 16
MIB = 1 << 20
# the keys a run's setting is made of, and the option that chooses each
SETTING_KEYS = {"placement": "--placements", "gc_policy": "--policies",
                "hot_threshold": "--hot-threshold", "energy": "(always on)"}


@dataclass(frozen=True)
class Run:
    placement: str
    policy: str
    workload: str

    @property
    def setting(self) -> str:
        return f"{self.placement} {self.policy}"

    @property
    def folder(self) -> str:
        return f"{self.placement}-{self.policy}-{self.workload}"

    def overrides(self, user: Mapping[str, str], hot_threshold: int) -> Dict[str, str]:
        keys = {**user, "energy": "on", "placement": self.placement, "gc_policy": self.policy}
        if self.placement == "hotcold":
            keys["hot_threshold"] = str(hot_threshold)
        return keys


def grid(placements: Sequence[str], policies: Sequence[str],
         workloads: Sequence[str]) -> List[Run]:
    return [Run(placement, policy, workload) for placement in placements
            for policy in policies for workload in workloads]


def region_bytes(logical_bytes: int, share: float) -> int:
    """The workload's region: its share of the logical space, in whole MiB."""
    return max(1, int(logical_bytes * share) // MIB) * MIB


def workload_args(workload: str, logical_bytes: int, io_bytes: int, seed: int) -> List[str]:
    share, options = WORKLOADS[workload]
    fill = ["--precondition", "seq"] if share >= 1.0 else \
        ["--precondition", "region", "--size", str(region_bytes(logical_bytes, share))]
    return [*fill, *options, "--qd", str(QD), "--io-size", str(io_bytes), "--seed", str(seed)]


def sim_args(ftl_sim: Path, config: Path, overrides: Mapping[str, str], workload: str,
             logical_bytes: int, io_bytes: int, seed: int, folder: Path) -> List[str]:
    return [str(ftl_sim), "--config", str(config), *runs.config_sets(overrides),
            *workload_args(workload, logical_bytes, io_bytes, seed),
            "--stats-dir", str(folder), "--summary", str(folder / "summary.json")]


KEYS = ("placement", "gc_policy", "setting", "workload", "waf", "host_write_gib", "energy_j",
        "j_per_gib_written", "mean_power_w", *(f"split_{part}_j" for part in runs.PARTS),
        "folder")


def table_row(run: Run, summary: Mapping, folder: Path) -> Dict[str, object]:
    """The run's figures as its summary gives them, the split in joules."""
    page = summary.get("geometry", {}).get("page_bytes") if isinstance(
        summary.get("geometry"), dict) else None
    pages = runs.number(summary, "host_write_pages", folder)
    row: Dict[str, object] = {
        "placement": run.placement, "gc_policy": run.policy, "setting": run.setting,
        "workload": run.workload, "waf": runs.number(summary, "waf", folder),
        "host_write_gib": pages * page / (1 << 30) if page else None,
        "energy_j": runs.number(summary, "energy_j", folder),
        "j_per_gib_written": runs.number(summary, "j_per_gib_written", folder),
        "mean_power_w": runs.number(summary, "mean_power_w", folder),
        "folder": str(Path("runs") / run.folder)}
    for part, joules in runs.energy_split(summary, folder).items():
        row[f"split_{part}_j"] = joules
    return row


def closest(rows: Sequence[Mapping], targets: Sequence[float]) -> List[Dict[str, object]]:
    """For each target WAF, the row whose WAF is nearest (the first of equals, in table
    order), with the split per GiB written; rows without a WAF or J/GiB are passed over."""
    usable = [row for row in rows if row.get("waf") is not None
              and row.get("j_per_gib_written") is not None]
    picked = []
    for target in targets:
        if not usable:
            break
        row = min(usable, key=lambda one: abs(one["waf"] - target))
        gib = row["energy_j"] / row["j_per_gib_written"] if row["j_per_gib_written"] else None
        entry = {"target_waf": target, **{key: row[key] for key in
                 ("setting", "workload", "waf", "j_per_gib_written", "energy_j", "folder")}}
        for part in runs.PARTS:
            joules = row[f"split_{part}_j"]
            entry[f"{part}_j_per_gib"] = joules / gib if gib else None
        picked.append(entry)
    return picked


TARGET_KEYS = ("target_waf", "setting", "workload", "waf", "j_per_gib_written", "energy_j",
               *(f"{part}_j_per_gib" for part in runs.PARTS), "folder")
COLUMNS = (("setting", "setting", "{}"), ("workload", "workload", "{}"),
           ("waf", "WAF", "{:.3f}"), ("host_write_gib", "GiB written", "{:.2f}"),
           ("energy_j", "energy (J)", "{:.2f}"), ("j_per_gib_written", "J/GiB", "{:.3f}"),
           ("mean_power_w", "mean W", "{:.3f}"),
           *((f"split_{part}_j", part.replace("_", " ") + " (J)", "{:.3f}")
             for part in runs.PARTS))
TARGET_COLUMNS = (("target_waf", "WAF near", "{:g}"), ("setting", "setting", "{}"),
                  ("workload", "workload", "{}"), ("waf", "WAF", "{:.3f}"),
                  ("j_per_gib_written", "J/GiB", "{:.3f}"),
                  *((f"{part}_j_per_gib", part.replace("_", " "), "{:.3f}")
                    for part in runs.PARTS))


def markdown(rows: Sequence[Mapping], picked: Sequence[Mapping], notes: Sequence[str]) -> str:
    lines = ["# Energy per GiB written against WAF", ""]
    lines += [f"- {note}" for note in notes] + [""]
    lines += ["## The runs closest to each WAF (J per GiB written, by part)", ""]
    lines += runs.markdown_table(picked, TARGET_COLUMNS, 3) + [""]
    lines += ["## Every run", ""] + runs.markdown_table(rows, COLUMNS, 2)
    return "\n".join(lines) + "\n"


def figure(rows: Sequence[Mapping], picked: Sequence[Mapping], title: str):
    totals = pd.DataFrame([{"label": f"{row['setting']}, {row['workload']}",
                            "workload": row["workload"], "placement": row["placement"],
                            "waf": row["waf"], "j_per_gib_written": row["j_per_gib_written"]}
                           for row in rows])
    marked = [f"{row['setting']}, {row['workload']}" for row in picked]
    return energy_plots.energy_waf_figure(totals, color_by="workload", marker_by="placement",
                                          annotate=marked, title=title)


def write_outputs(rows: Sequence[Mapping], picked: Sequence[Mapping], notes: Sequence[str],
                  folder: Path, title: str) -> List[Path]:
    written = [runs.write_csv(rows, KEYS, folder / f"{TABLE_STEM}.csv"),
               runs.write_csv(picked, TARGET_KEYS, folder / f"{TARGETS_STEM}.csv")]
    md = folder / f"{TABLE_STEM}.md"
    md.write_text(markdown(rows, picked, notes))
    written.append(md)
    written.append(save(figure(rows, picked, title), folder, PLOT_STEM, "png"))
    return written
