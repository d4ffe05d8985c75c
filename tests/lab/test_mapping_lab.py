"""femu-lab mapping-lab: a whole lab with page and DFTL mapping on the real ftl-sim (every
row and column, the figures' files, the table equal to what ftl-sim printed), the
counters of the hybrid schemes and the read cache taken by name (through a stand-in
ftl-sim that reports them), and the options refused in one line."""
import csv
import json
import re
import stat
import sys

import pytest

from femu_common.cli_args import UsageError
from femu_lab import cli as lab_cli
from femu_lab.mapping import lab, measure, plan, table

FIGURES = ("waf.png", "erases.png", "merges.png", "latency.png", "hit_rate.png")
TINY = ["--capacity-io", "0.5"]         # 24 MiB after the fill: a fraction of a second


@pytest.fixture
def in_repo(monkeypatch, repo_root):
    monkeypatch.chdir(repo_root)


def _one_line_error(capsys, argv, status=2):
    assert lab_cli.main(argv) == status
    err = capsys.readouterr().err
    assert err.startswith("femu-lab: error: ") and err.count("\n") == 1, err
    return err


def _table(path):
    with open(path, newline="") as handle:
        reader = csv.DictReader(handle)
        return reader.fieldnames, list(reader)


def _number(text):
    return float(text) if text else None


# ---- with the real ftl-sim: page and dftl ------------------------------------------------

def test_a_whole_lab_with_page_and_dftl(capsys, ftl_sim, tmp_path, in_repo):
    out = tmp_path / "lab"
    argv = ["mapping-lab", "--schemes", "page,dftl", "--cache-pages", "0", *TINY,
            "--ftl-sim", str(ftl_sim), "-o", str(out)]
    assert lab_cli.main(argv) == 0, capsys.readouterr().err
    captured = capsys.readouterr()
    # one progress line per run, with the elapsed time
    progress = [line for line in captured.err.splitlines() if " run " in line]
    assert len(progress) == 2 * len(plan.WORKLOADS)
    assert all(re.match(r"\[mapping-lab +\d+\.\ds\] run \d+/10 ", line) for line in progress)
    header, rows = _table(out / "mapping-lab.csv")
    assert tuple(header) == table.KEYS
    workloads = ["seq", "uniform", "zipf-0.9", "zipf-1.2", "msr-synthetic"]
    assert [(r["scheme"], r["cache"], r["workload"]) for r in rows] == [
        (scheme, "off", workload) for scheme in ("page", "dftl") for workload in workloads]
    lab = json.loads((out / "lab.json").read_text())
    assert len(lab["runs"]) == len(rows)
    for row, ran in zip(rows, lab["runs"]):
        folder = out / ran["folder"]
        summary = json.loads((folder / "summary.json").read_text())
        assert summary["mapping"] == row["scheme"]
        for key in ("waf", "mean_latency_us", "p50_latency_us", "p99_latency_us",
                    "host_write_pages", "host_read_pages"):
            assert _number(row[key]) == summary[key], key
        # the erases: phases.csv's nand_erases from the workload marker to the end
        with open(folder / "phases.csv", newline="") as handle:
            marks = {r["phase"]: r for r in csv.DictReader(handle)}
        assert _number(row["nand_erases"]) == \
            int(marks["end"]["nand_erases"]) - int(marks["workload"]["nand_erases"])
        assert int(row["nand_erases"]) >= summary["erased_blocks"]
        # ftl-sim's own text says the same, to its printed digits
        log = (folder / "ftl-sim.log").read_text()
        assert f"\nWAF: {summary['waf']:.4f} " in log
        assert f"latency: mean {summary['mean_latency_us']:.1f} us, " \
               f"p99 {summary['p99_latency_us']:.1f} us" in log
        assert _number(row["wall_s"]) == ran["wall_seconds"] > 0
        if row["workload"] != "seq":        # the mixes read 70 %: the cache has work
            reads, writes = summary["host_read_pages"], summary["host_write_pages"]
            assert 0.6 < reads / (reads + writes) < 0.8
        for key in ("merge_switch", "merge_partial", "merge_full", "rcache_hit_rate"):
            if key not in summary:          # a build without them: blank, not an error
                assert row[key] == ""
    assert any(int(r["nand_erases"]) > 0 for r in rows)
    seq = {r["scheme"]: r for r in rows if r["workload"] == "seq"}
    assert float(seq["page"]["waf"]) == pytest.approx(1.0, abs=0.01)
    for name in FIGURES:
        assert (out / name).stat().st_size > 0
    assert not (out / "cache_sweep.png").exists()
    assert "| dftl | off | zipf-1.2 |" in captured.out
    assert (out / "mapping-lab.md").read_text() in captured.out


# ---- the hybrid schemes' and the read cache's counters, by name ----------------------------

STAND_IN = '''#!{python}
"""ftl-sim as it will be: the real one on page mapping without the cache keys, with the
merge and read-cache counters added to its summary (made-up, from the run's own counts)."""
import json, subprocess, sys
args, summary = [], None
for arg in sys.argv[1:]:
    if arg.startswith("mapping="):
        arg = "mapping=page"
    if arg.startswith(("log_blocks=", "read_cache_pages=", "read_cache_policy=")):
        args.pop()                         # the --set before it
        continue
    args.append(arg)
    if len(args) > 1 and args[-2] == "--summary":
        summary = arg
status = subprocess.run(["{real}", *args]).returncode
if status == 0 and summary:
    with open(summary) as handle:
        s = json.load(handle)
    host = s["host_write_pages"]
    s.update(merge_switch=host % 7, merge_partial=host % 5, merge_full=host % 11,
             merge_copied_pages=host % 13, merge_erased_blocks=host % 3,
             rcache_hits=s["host_read_pages"] // 3, rcache_misses=s["host_read_pages"] // 2,
             rcache_evictions=0)
    with open(summary, "w") as handle:
        json.dump(s, handle)
sys.exit(status)
'''


@pytest.fixture
def stand_in(ftl_sim, tmp_path):
    path = tmp_path / "ftl-sim-stand-in"
    path.write_text(STAND_IN.format(python=sys.executable, real=ftl_sim))
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def test_every_scheme_with_the_cache_and_the_sweep(capsys, stand_in, tmp_path, in_repo):
    out = tmp_path / "lab"
    argv = ["mapping-lab", "--workloads", "zipf-1.2", "--cache-pages", "256",
            "--cache-policy", "arc", "--cache-sweep", "--sweep-sizes", "64,128",
            "--sweep-policies", "lru,arc", *TINY, "--ftl-sim", str(stand_in), "-o", str(out)]
    assert lab_cli.main(argv) == 0, capsys.readouterr().err
    _, rows = _table(out / "mapping-lab.csv")
    assert [(r["scheme"], r["cache"], r["workload"]) for r in rows] == [
        (scheme, cache, workload) for scheme in plan.SCHEMES
        for cache in ("off", "arc 256") for workload in ("zipf-1.2",)]
    runs = [r for r in json.loads((out / "lab.json").read_text())["runs"] if not r["sweep"]]
    for row, ran in zip(rows, runs):
        summary = json.loads((out / ran["folder"] / "summary.json").read_text())
        for key in ("merge_switch", "merge_partial", "merge_full", "merge_copied_pages",
                    "rcache_hits", "rcache_misses"):
            assert _number(row[key]) == summary[key], key
        hits, misses = summary["rcache_hits"], summary["rcache_misses"]
        rate = _number(row["rcache_hit_rate"])
        assert rate == (pytest.approx(hits / (hits + misses)) if hits + misses else None)
        command = (out / ran["folder"] / "sim-cmdline.txt").read_text()
        assert f"mapping={row['scheme']}" in command
        assert ("log_blocks=16" in command) == (row["scheme"] in plan.HYBRID)
        assert ("read_cache_policy=arc" in command) == (row["cache"] == "arc 256")
    header, sweep = _table(out / "cache_sweep.csv")
    assert tuple(header) == table.SWEEP_KEYS
    assert [(r["policy"], r["cache_pages"], r["scheme"], r["workload"]) for r in sweep] == [
        (policy, size, "page", "zipf-1.2") for policy in ("lru", "arc")
        for size in ("64", "128")]
    assert all(0 < float(r["rcache_hit_rate"]) < 1 for r in sweep)
    for name in (*FIGURES, "cache_sweep.png"):
        assert (out / name).stat().st_size > 0


def test_a_counter_missing_from_the_summary_comes_from_the_phases():
    summary = {"waf": 2.5, "merge_full": 4, "rcache_hits": 0, "rcache_misses": 0}
    figures = measure.figures_of(summary, {"nand_erases": 30.0, "merge_switch": 2.0,
                                           "merge_full": 99.0})
    assert figures["waf"] == 2.5 and figures["nand_erases"] == 30.0
    assert figures["merge_switch"] == 2.0 and figures["merge_full"] == 4
    assert figures["merge_partial"] is None and figures["p99_latency_us"] is None
    assert figures["rcache_hit_rate"] is None            # no lookup: no rate
    assert measure.hit_rate(3, 1) == 0.75


def test_a_cell_sets_only_its_own_keys(tmp_path):
    shape = plan.Shape(io_bytes=1 << 20)
    off = plan.Run("page", plan.OFF, "uniform").overrides({"qd_x": "1"}, 8)
    assert off == {"qd_x": "1", "mapping": "page"}
    on = plan.Run("fast", plan.Cache(64, "2q"), "zipf-0.9").overrides({"mapping": "x"}, 8)
    assert on == {"mapping": "fast", "log_blocks": "8", "read_cache_pages": "64",
                  "read_cache_policy": "2q"}
    args = plan.sim_args(tmp_path / "ftl-sim", tmp_path / "c.conf", on, "zipf-0.9", shape,
                         tmp_path / "r")
    assert args[args.index("--precondition") + 1] == "seq"
    assert args[args.index("--dist") + 1] == "zipf:0.9"
    assert args[args.index("--rwmixread") + 1] == "70"
    assert plan.workload_args("seq", shape)[:2] == ["--rw", "write"]


def test_a_lab_folder_is_taken_back_without_the_earlier_labs_outputs(tmp_path):
    folder = tmp_path / "lab"
    (folder / "runs" / "bast-nocache-seq").mkdir(parents=True)
    for name in ("lab.json", "cache_sweep.png", "waf.png", "notes.txt"):
        (folder / name).write_text("x")
    lab.claim_folder(folder)
    assert sorted(p.name for p in folder.iterdir()) == ["lab.json", "notes.txt"]
    (folder / "lab.json").unlink()
    with pytest.raises(UsageError, match="holds no lab.json"):
        lab.claim_folder(folder)
    assert (folder / "notes.txt").exists()


# ---- refused in one line ---------------------------------------------------------------------

def test_options_refused_in_one_line(capsys, ftl_sim, tmp_path, in_repo, repo_root):
    out = tmp_path / "o"
    base = ["mapping-lab", "--ftl-sim", str(ftl_sim), "-o", str(out)]
    err = _one_line_error(capsys, [*base, "--schemes", "page,lba"])
    assert "unknown scheme 'lba'" in err
    err = _one_line_error(capsys, [*base, "--cache-pages", "-1"])
    assert "--cache-pages" in err
    err = _one_line_error(capsys, [*base, "--cache-pages", "100000"])
    assert "--cache-pages 100000: more pages than the device's 12288 logical pages" in err
    err = _one_line_error(capsys, [*base, "--cache-sweep", "--sweep-sizes", "64,0"])
    assert "cache size" in err
    err = _one_line_error(capsys, [*base, "--set", "read_cache_pages=64"])
    assert "--set read_cache_pages: the lab sets it per run (use --cache-pages)" in err
    config = tmp_path / "cached.conf"
    config.write_text((repo_root / "conf" / "lab-mapping.conf").read_text()
                      + "read_cache_pages=64\n")
    err = _one_line_error(capsys, [*base, "--config", str(config), "--schemes", "page"])
    assert "read_cache_pages" in err
    err = _one_line_error(capsys, [*base, "--workloads", "zipf-2"])
    assert "unknown workload 'zipf-2'" in err
    err = _one_line_error(capsys, [*base, "--trace", str(tmp_path / "none.csv"), *TINY,
                                   "--schemes", "page", "--cache-pages", "0"])
    assert "none.csv: no such file" in err
    assert not out.exists()


def test_a_scheme_this_ftl_sim_lacks_is_one_line_before_any_run(capsys, ftl_sim, tmp_path,
                                                                 in_repo):
    lacking = tmp_path / "ftl-sim-without-fast"
    lacking.write_text(f"#!/bin/sh\ncase \"$*\" in *mapping=fast*) echo 'ftl-sim: error: "
                       f"--set mapping: unknown value fast' >&2; exit 2;; esac\n"
                       f"exec {ftl_sim} \"$@\"\n")
    lacking.chmod(0o755)
    err = _one_line_error(capsys, ["mapping-lab", "--schemes", "page,fast", "--cache-pages",
                                   "0", "--ftl-sim", str(lacking), "-o", str(tmp_path / "o")])
    assert "scheme fast, read cache off: " in err and "unknown value fast" in err
    assert not (tmp_path / "o").exists()


def test_a_failed_run_is_one_line_naming_its_log(capsys, ftl_sim, tmp_path, in_repo):
    failing = tmp_path / "ftl-sim-failing"
    failing.write_text(f"#!/bin/sh\ncase \"$*\" in *--print-config*) exec {ftl_sim} \"$@\";; "
                       "esac\necho 'ftl-sim: out of flash' >&2; exit 3\n")
    failing.chmod(0o755)
    out = tmp_path / "o"
    assert lab_cli.main(["mapping-lab", "--schemes", "page", "--workloads", "seq",
                         "--cache-pages", "0", "--ftl-sim", str(failing), "-o",
                         str(out)]) == 1
    progress, err = capsys.readouterr().err.splitlines()     # the lab's first line, then it
    assert progress.endswith(f"1 ftl-sim run into {out}") and err.startswith("femu-lab: ")
    log = out / "runs" / "page-nocache-seq" / "ftl-sim.log"
    assert "failed on page, cache off, seq (exit status 3): ftl-sim: out of flash" in err
    assert err.rstrip().endswith(f"see {log}") and "out of flash" in log.read_text()
