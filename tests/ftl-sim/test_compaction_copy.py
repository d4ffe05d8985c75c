"""zns-compaction in ftl-sim (docs/zns.md, "Copy against read + append"): the traces in
docs/traces are what femu_lab.zns.compaction_trace makes from the workload's own plan, and
on them Copy's device time (the run's simulated time less the fill's) is below read +
append's, fragmented and contiguous, with the same pages moved."""
import json

import pytest

from femu_lab.zns import compaction_trace

pytestmark = pytest.mark.unit

CONF = ["--config", "conf/zns-lab.conf"]
TRACES = "docs/traces"
MADE = {"fill": ["--method", "none"],
        **{f"{layout}-{method}": ["--method", method, "--layout", layout]
           for layout in ("fragmented", "contiguous") for method in ("copy", "rw")}}


@pytest.fixture(autouse=True)
def _in_repo(monkeypatch, repo_root):
    monkeypatch.chdir(repo_root)  # config and trace paths are relative to the repository


@pytest.mark.parametrize("name", sorted(MADE))
def test_the_documented_traces_are_the_generators(repo_root, tmp_path, name):
    out = tmp_path / f"{name}.trace"
    assert compaction_trace.main([*MADE[name], "--out", str(out)]) == 0
    assert out.read_text() == (repo_root / TRACES / f"zns-compaction-{name}.trace").read_text()


def _summary(run_ftl_sim, tmp_path, name):
    path = tmp_path / f"{name}.json"
    run_ftl_sim(*CONF, "--trace", f"{TRACES}/zns-compaction-{name}.trace", "--summary", path)
    return json.loads(path.read_text())


@pytest.mark.parametrize("layout", ["fragmented", "contiguous"])
def test_copy_is_not_slower_than_read_and_append(run_ftl_sim, tmp_path, layout):
    fill = _summary(run_ftl_sim, tmp_path, "fill")
    copy = _summary(run_ftl_sim, tmp_path, f"{layout}-copy")
    rw = _summary(run_ftl_sim, tmp_path, f"{layout}-rw")
    assert copy["zone_errors"] == rw["zone_errors"] == 0
    assert copy["copy_pages"] == rw["zone_reads"] > 0        # the same pages moved
    assert copy["NAND_read"] + copy["NAND_cpbk"] == rw["NAND_read"]
    assert copy["zone_resets"] == rw["zone_resets"] == 8
    copy_s = copy["sim_time_s"] - fill["sim_time_s"]
    rw_s = rw["sim_time_s"] - fill["sim_time_s"]
    assert 0 < copy_s < rw_s


def test_a_bad_option_is_one_line(tmp_path, capsys):
    with pytest.raises(SystemExit):
        compaction_trace.main(["--method", "copy", "--pct", "0", "--out",
                               str(tmp_path / "x.trace")])
    assert "--pct must be 1..100" in capsys.readouterr().err
