"""The textbook hot/cold case of data placement, run in ftl-sim: the DFTL lab's geometry
(conf/lab-dftl.conf) with page mapping and whole-block GC (thresholds 95/95), a full
sequential fill, then 4 KiB random writes of which 90 % go to 10 % of the LBAs
(--dist hotcold:10:90). The cases put both classes on one reclaim unit handle, or each
on its own (FDP, --fdp 0 --fdp-hot 1) with GC choosing victims per handle
(gc_scope=stream) or across handles (gc_scope=global).

Steady-state WAF is taken as the difference of two runs, fill + N and fill + 2N writes:
(media pages of the second - of the first) / N, so the fill and the transient after it
cancel. femu_analysis.fdp_model gives the analytic optimum to hold it against.
"""
import json
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Sequence

from femu_analysis import fdp_model
from femu_common.command import last_line

from ..ftl_sim import CommandError, run_ftl_sim

CONFIG = "conf/lab-dftl.conf"
BASE = ["--set", "mapping=page", "--set", "gc_mode=line", "--set", "gc_thres_pcent=95",
        "--set", "gc_thres_pcent_high=95", "--precondition", "seq", "--bs", "4k",
        "--qd", "1"]
HOT_LBAS, HOT_WRITES = 0.10, 0.90
DIST = f"hotcold:{HOT_LBAS * 100:g}:{HOT_WRITES * 100:g}"
FDP_TWO = ["--set", "placement=fdp", "--set", "fdp_ruhs=2", "--fdp", "0", "--fdp-hot", "1"]
CASES = {
    "one handle": ["--set", "placement=fdp", "--set", "fdp_ruhs=1", "--fdp", "0"],
    "two handles, gc_scope=stream": [*FDP_TWO, "--set", "gc_scope=stream"],
    "two handles, gc_scope=global": [*FDP_TWO, "--set", "gc_scope=global"],
}
SINGLE = ["--set", "placement=single"]
DEFAULT_WRITES = 300_000


@dataclass
class Run:
    """One ftl-sim run: its summary and the host seconds it took."""
    summary: dict
    seconds: float

    @property
    def host_pages(self) -> int:
        return self.summary["host_write_pages"]

    def media_pages(self) -> List[int]:
        return [wp["media_pages"] for wp in self.summary["write_pointers"]]

    def requests(self) -> int:
        """Requests served: the fill's one page each, then the measured ones."""
        logical = self.summary["geometry"]["logical_bytes"]
        return logical // self.summary["geometry"]["page_bytes"] + self.summary["ops"]


@dataclass
class SteadyState:
    """Steady-state WAF of one case, from runs of fill + N and fill + 2N writes."""
    name: str
    waf: float
    handle_wafs: List[Optional[float]]  # per write pointer; None without host pages
    short: Run
    long: Run
    extra: Dict[str, float] = field(default_factory=dict)


def timed_run(ftl_sim: Path, args: Sequence[str], cwd: Optional[Path] = None) -> Run:
    """ftl-sim ARGS --summary (a temporary file); its summary and host seconds.
    RuntimeError naming the arguments and ftl-sim's last line on stderr."""
    with tempfile.TemporaryDirectory(prefix="fdp-textbook-") as folder:
        path = Path(folder) / "summary.json"
        start = time.perf_counter()
        try:
            run_ftl_sim([ftl_sim, *args, "--summary", path], cwd=cwd)
        except CommandError as error:
            said = last_line(error.proc.stderr) if error.proc is not None else error.reason
            raise RuntimeError(f"ftl-sim {' '.join(map(str, args))}: "
                               f"{said or f'exit status {error.returncode}'}") from None
        seconds = time.perf_counter() - start
        return Run(json.loads(path.read_text()), seconds)


def textbook_args(case_args: Sequence[str], writes: int, config: str = CONFIG) -> List[str]:
    return ["--config", config, *BASE, "--dist", DIST, *case_args,
            "--io-size", str(writes * 4096)]


def steady_state(ftl_sim: Path, name: str, args_for, writes: int,
                 cwd: Optional[Path] = None) -> SteadyState:
    """Steady-state WAF of the workload args_for(n) with n = writes and 2 x writes: the
    media pages of the second N writes over their host pages, overall and per handle."""
    short = timed_run(ftl_sim, args_for(writes), cwd)
    long = timed_run(ftl_sim, args_for(2 * writes), cwd)
    host = long.host_pages - short.host_pages
    media = [b - a for a, b in zip(short.media_pages(), long.media_pages())]
    hosts = [b["host_pages"] - a["host_pages"] for a, b in
             zip(short.summary["write_pointers"], long.summary["write_pointers"])]
    per_handle = [m / h if h else None for m, h in zip(media, hosts)]
    return SteadyState(name, sum(media) / host, per_handle, short, long)


def textbook_case(ftl_sim: Path, name: str, writes: int = DEFAULT_WRITES,
                  cwd: Optional[Path] = None) -> SteadyState:
    """One of CASES (or 'placement=single') on the textbook workload."""
    case_args = SINGLE if name == "placement=single" else CASES[name]
    return steady_state(ftl_sim, name, lambda n: textbook_args(case_args, n), writes, cwd)


def analytic_optimum(summary: dict) -> float:
    """The model's best WAF for the textbook classes on this run's geometry."""
    logical = summary["geometry"]["logical_bytes"] // summary["geometry"]["page_bytes"]
    waf, _ = fdp_model.hot_cold_optimum(logical, HOT_LBAS, HOT_WRITES,
                                        fdp_model.spare_of(summary))
    return waf
