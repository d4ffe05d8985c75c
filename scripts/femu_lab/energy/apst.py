"""femu-lab energy apst: what Autonomous Power State Transition saves and what it costs,
on a bursty trace replayed open-loop at its own timing in ftl-sim with energy=on.

The same trace (bursts.py: groups of requests separated by idle gaps, seeded; or --trace
FILE, any format ftl-sim reads with times) runs after a sequential fill (not measured)
three times, with ftl-sim's --apst:

    off          APST disabled: the drive stays in PS0
    linux        the table Linux's nvme driver programs (default_ps_max_latency_us 100000)
    aggressive   every operational state to the deepest non-operational one after
                 --aggressive-ms of idle time

on a configuration with a power-state table (ps_count > 1 and a non-operational state:
conf/lab-1g.conf's plausible one by default; a configuration without one is refused).
The table (energy-apst.csv, .md) gives per setting p50 and p99 latency (every request:
reads only in the default trace, so these are read latencies), mean latency, joules,
mean watts, the seconds in each power state, exits from non-operational states and the
waits of every command held by an exit summed, per exit (ps_exit_wait_us_per_exit: an exit
that holds a whole burst counts each of its commands' waits); power-<setting>.png is
femu-plot energy's figure of each run.
"""
from pathlib import Path
from typing import Dict, List, Mapping, Optional, Sequence

from femu_common.cli_args import UsageError

from . import runs

TABLE_STEM = "energy-apst"
SETTINGS = ("off", "linux", "aggressive")
OUTPUTS = (f"{TABLE_STEM}.csv", f"{TABLE_STEM}.md",
           *(f"power-{setting}.png" for setting in SETTINGS))


def states(values: Mapping[str, str]) -> List[bool]:
    """Each power state's non-operational flag, from the effective configuration
    (ftl-sim --print-config's ps_count and ps<N>_nonop)."""
    try:
        count = int(values.get("ps_count", "1"))
    except ValueError:
        raise UsageError(f"ps_count={values.get('ps_count')}: not a number") from None
    return [values.get(f"ps{number}_nonop", "0").strip() in ("1", "on")
            for number in range(count)]


def check_table(nonop: Sequence[bool], config: str) -> None:
    if len(nonop) < 2 or not any(nonop):
        raise UsageError(f"{config}: no non-operational power state (ps_count="
                         f"{len(nonop)}): the APST lab needs a power-state table "
                         "(docs/energy.md; --set ps_count=N --set psN_... )")


def aggressive_table(nonop: Sequence[bool], idle_ms: int) -> str:
    """ftl-sim's --apst STATE:ITPT_MS:ITPS,...: each operational state to the deepest
    (highest-numbered) non-operational one after idle_ms."""
    deepest = max(number for number, flag in enumerate(nonop) if flag)
    return ",".join(f"{number}:{idle_ms}:{deepest}" for number, flag in enumerate(nonop)
                    if not flag)


def apst_argument(setting: str, nonop: Sequence[bool], idle_ms: int) -> str:
    return {"off": "off", "linux": "linux"}.get(setting) or aggressive_table(nonop, idle_ms)


def sim_args(ftl_sim: Path, config: Path, overrides: Mapping[str, str], trace: Path,
             trace_format: Optional[str], apst: str, folder: Path) -> List[str]:
    words = [str(ftl_sim), "--config", str(config), *runs.config_sets(overrides),
             "--precondition", "seq", "--trace", str(trace)]
    if trace_format:
        words += ["--trace-format", trace_format]
    return [*words, "--trace-lba-map", "scale", "--apst", apst, "--stats-dir", str(folder),
            "--summary", str(folder / "summary.json")]


def table_row(setting: str, apst: str, summary: Mapping, folder: Path,
              count: int) -> Dict[str, object]:
    number = runs.number
    row: Dict[str, object] = {
        "setting": setting, "apst": apst,
        "p50_latency_us": number(summary, "p50_latency_us", folder),
        "p99_latency_us": number(summary, "p99_latency_us", folder),
        "mean_latency_us": number(summary, "mean_latency_us", folder),
        "energy_j": number(summary, "energy_j", folder),
        "mean_power_w": number(summary, "mean_power_w", folder),
        "ps_exits": number(summary, "ps_exits", folder),
        "ps_exit_wait_us_per_exit": number(summary, "ps_exit_wait_us_per_exit", folder),
        "sim_time_s": number(summary, "sim_time_s", folder),
        "folder": str(Path("runs") / setting)}
    times = summary.get("ps_time_s")
    if not isinstance(times, list) or len(times) != count:
        raise runs.RunReadError(f"{folder / 'summary.json'}: 'ps_time_s' is not a list of "
                                f"{count} states")
    for state, seconds in enumerate(times):
        row[f"ps{state}_s"] = number({"t": seconds}, "t", folder / f"ps_time_s/{state}")
    return row


def keys(count: int) -> List[str]:
    return ["setting", "apst", "p50_latency_us", "p99_latency_us", "mean_latency_us",
            "energy_j", "mean_power_w", *(f"ps{state}_s" for state in range(count)),
            "ps_exits", "ps_exit_wait_us_per_exit", "sim_time_s", "folder"]


def markdown(rows: Sequence[Mapping], nonop: Sequence[bool], notes: Sequence[str]) -> str:
    columns = [("setting", "APST", "{}"), ("p50_latency_us", "p50 (us)", "{:,.1f}"),
               ("p99_latency_us", "p99 (us)", "{:,.1f}"),
               ("mean_latency_us", "mean (us)", "{:,.1f}"),
               ("energy_j", "energy (J)", "{:.3f}"), ("mean_power_w", "mean W", "{:.4f}")]
    columns += [(f"ps{state}_s", f"PS{state}{' (non-op)' if flag else ''} (s)", "{:.3f}")
                for state, flag in enumerate(nonop)]
    columns += [("ps_exits", "exits", "{:.0f}"),
                ("ps_exit_wait_us_per_exit", "exit waits per exit (us)", "{:,.1f}")]
    lines = ["# APST: power against latency on a bursty trace", ""]
    lines += [f"- {note}" for note in notes] + [""]
    lines += runs.markdown_table(rows, columns, 1)
    lines += ["", "APST tables (ftl-sim --apst):", ""]
    lines += [f"- {row['setting']}: `{row['apst']}`" for row in rows]
    return "\n".join(lines) + "\n"
