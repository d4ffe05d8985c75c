"""The textbook hot/cold case of data placement, run in ftl-sim: the DFTL lab's geometry
(conf/lab-dftl.conf) with page mapping and whole-block GC (thresholds 95/95), a full
sequential fill, then 4 KiB random writes of which 90 % go to 10 % of the LBAs
(--dist hotcold:10:90). The cases put both classes on one reclaim unit handle, or each
on its own (FDP, --fdp 0 --fdp-hot 1) with GC choosing victims per handle
(gc_scope=stream) or across handles (gc_scope=global).

Steady-state WAF is taken as the difference of two runs, fill + N and fill + 2N writes:
(media pages of the second - of the first) / N, so the fill and the transient after it
cancel. fdp_model gives the analytic optimum to hold it against.
"""
import json
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Sequence

from . import fdp_model

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


def run_ftl_sim(ftl_sim: Path, args: Sequence[str], cwd: Optional[Path] = None) -> Run:
    """ftl-sim ARGS --summary (a temporary file); its summary and host seconds."""
    with tempfile.TemporaryDirectory(prefix="fdp-textbook-") as folder:
        path = Path(folder) / "summary.json"
        start = time.perf_counter()
        proc = subprocess.run([str(ftl_sim), *map(str, args), "--summary", str(path)],
                              capture_output=True, text=True, cwd=cwd, stdin=subprocess.DEVNULL)
        seconds = time.perf_counter() - start
        if proc.returncode != 0:
            last = proc.stderr.strip().splitlines()[-1:] or [f"exit status {proc.returncode}"]
            raise RuntimeError(f"ftl-sim {' '.join(map(str, args))}: {last[0]}")
        return Run(json.loads(path.read_text()), seconds)


def textbook_args(case_args: Sequence[str], writes: int, config: str = CONFIG) -> List[str]:
    return ["--config", config, *BASE, "--dist", DIST, *case_args,
            "--io-size", str(writes * 4096)]


def steady_state(ftl_sim: Path, name: str, args_for, writes: int,
                 cwd: Optional[Path] = None) -> SteadyState:
    """Steady-state WAF of the workload args_for(n) with n = writes and 2 x writes: the
    media pages of the second N writes over their host pages, overall and per handle."""
    short = run_ftl_sim(ftl_sim, args_for(writes), cwd)
    long = run_ftl_sim(ftl_sim, args_for(2 * writes), cwd)
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


def spare_of(summary: dict, open_units: int = 0) -> int:
    """The spare GC can use on a run's geometry (fdp_model.spare_pages): good pages less
    the logical ones less the units foreground GC keeps free (open_units more if asked)."""
    cfg = summary["config"]
    page = summary["geometry"]["page_bytes"]
    blocks_per_lun = cfg["blks_per_pl"] * cfg["pls_per_lun"]
    luns = cfg["luns_per_ch"] * cfg["nchs"]
    per_unit = cfg["pgs_per_blk"] * (1 if cfg["gc_unit"] == "block" else luns)
    units = blocks_per_lun * (luns if cfg["gc_unit"] == "block" else 1)
    reserve = (100 - cfg["gc_thres_pcent_high"]) * units // 100
    bad = blocks_per_lun * cfg["bad_blk_pcent"] // 100 * luns * cfg["pgs_per_blk"]
    good = summary["geometry"]["raw_bytes"] // page - bad
    logical = summary["geometry"]["logical_bytes"] // page
    return fdp_model.spare_pages(good, logical, reserve, per_unit, open_units)


def analytic_optimum(summary: dict) -> float:
    """The model's best WAF for the textbook classes on this run's geometry."""
    logical = summary["geometry"]["logical_bytes"] // summary["geometry"]["page_bytes"]
    waf, _ = fdp_model.hot_cold_optimum(logical, HOT_LBAS, HOT_WRITES, spare_of(summary))
    return waf
