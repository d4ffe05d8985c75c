"""femu-lab dftl-study: the three traces (what each promises about hot and cold data and
tags), the table and figures built from ftl-sim summaries, the command's user errors, and
one whole study in ftl-sim on a smaller trace length."""
import csv
import json
from collections import Counter

import numpy as np
import pandas as pd
import pytest

from femu_analysis import waf as waf_counts

from femu_lab import cli as lab_cli
from femu_lab.dftl import report as dftl_report, study as dftl_study, traces as dftl_traces
from femu_lab.dftl.traces import IO_SECTORS, TraceError, TraceShape, generate

# A small logical space (8 MiB: 2048 slots) keeps the generator tests quick.
SHAPE = TraceShape.for_capacity(8 << 20)


def _parse(lines):
    """(seed, [(op, lba, nsect, tag)]) from a version-1 trace's lines."""
    seed, ops = None, []
    for line in lines:
        fields = line.split("#", 1)[0].split()
        if not fields:
            continue
        if fields[0] == "S":
            assert seed is None and not ops, "S comes first"
            seed = int(fields[1])
        else:
            assert fields[0] in ("W", "R"), line
            tag = fields[3] if len(fields) > 3 else ""
            ops.append((fields[0], int(fields[1]), int(fields[2]), tag))
    return seed, ops


@pytest.fixture(scope="module")
def traces(tmp_path_factory):
    """Each kind written by write_traces and read back from its file."""
    folder = tmp_path_factory.mktemp("traces")
    paths = dftl_traces.write_traces(folder, SHAPE, seed=5)
    return {kind: (generate(kind, SHAPE, 5), _parse(path.read_text().splitlines()))
            for kind, path in paths.items()}


def _writes(ops):
    return [(lba // IO_SECTORS, tag) for op, lba, _, tag in ops if op == "W"]


# ---- the traces -----------------------------------------------------------------------

def test_same_seed_same_file_other_seed_other_file():
    for kind in dftl_traces.KINDS:
        one = generate(kind, SHAPE, 3).lines()
        assert one == generate(kind, SHAPE, 3).lines()
        assert one != generate(kind, SHAPE, 4).lines()


@pytest.mark.parametrize("kind", dftl_traces.KINDS)
def test_requests_are_aligned_4k_in_range_and_tagged(traces, kind):
    trace, (seed, ops) = traces[kind]
    assert seed == 5
    logical_sectors = SHAPE.slots * IO_SECTORS
    for op, lba, nsect, tag in ops:
        assert nsect == IO_SECTORS and lba % IO_SECTORS == 0
        assert 0 <= lba and lba + nsect <= logical_sectors
        assert tag in ("H", "C") if op == "W" else tag == ""
    writes = _writes(ops)
    assert len(writes) == SHAPE.writes == 4 * SHAPE.slots
    assert len(trace.hot) == round(0.15 * SHAPE.slots)


@pytest.mark.parametrize("kind", dftl_traces.KINDS)
def test_reads_only_of_written_slots_at_the_read_fraction(traces, kind):
    _, (_, ops) = traces[kind]
    written = set()
    for op, lba, _, _ in ops:
        if op == "R":
            assert lba in written
        else:
            written.add(lba)
    reads = sum(1 for op, *_ in ops if op == "R")
    assert reads / len(ops) == pytest.approx(SHAPE.read_fraction, abs=0.01)


@pytest.mark.parametrize("kind", dftl_traces.KINDS)
def test_each_cold_slot_once_and_the_hot_set_many_times(traces, kind):
    trace, (_, ops) = traces[kind]
    counts = Counter(slot for slot, _ in _writes(ops))
    cold = set(range(SHAPE.slots)) - trace.hot
    assert all(counts[slot] == 1 for slot in cold)
    hot_counts = [counts[slot] for slot in trace.hot]
    assert sum(hot_counts) == SHAPE.writes - len(cold)
    assert np.mean(hot_counts) > 15          # (4 - 1 + 0.15) / 0.15 = 21 on average


def test_interleaved_mixes_hot_and_cold_all_through(traces):
    trace, (_, ops) = traces["interleaved"]
    writes = _writes(ops)
    assert all(tag == ("H" if slot in trace.hot else "C") for slot, tag in writes)
    cold = sum(1 for slot, _ in writes if slot not in trace.hot)
    quarter = len(writes) // 4
    for part in range(4):   # each quarter of the trace writes about a quarter of the cold
        share = sum(1 for slot, _ in writes[part * quarter:(part + 1) * quarter]
                    if slot not in trace.hot)
        assert share == pytest.approx(cold / 4, rel=0.15)


def test_phased_alternates_cold_and_hot_phases(traces):
    trace, (_, ops) = traces["phased"]
    writes = _writes(ops)
    assert all(tag == ("H" if slot in trace.hot else "C") for slot, tag in writes)
    runs = []
    for slot, _ in writes:
        kind = "hot" if slot in trace.hot else "cold"
        if not runs or runs[-1][0] != kind:
            runs.append([kind, 0])
        runs[-1][1] += 1
    assert [kind for kind, _ in runs] == ["cold", "hot"] * SHAPE.phases
    cold_sizes = [size for kind, size in runs if kind == "cold"]
    assert max(cold_sizes) - min(cold_sizes) <= 1


def test_mistagged_is_interleaved_with_coin_flip_tags(traces):
    trace, (_, ops) = traces["mistagged"]
    straight, (_, straight_ops) = traces["interleaved"]
    assert [op[:3] for op in ops] == [op[:3] for op in straight_ops]   # the same requests
    assert trace.hot == straight.hot
    writes = _writes(ops)
    for group in (trace.hot, set(range(SHAPE.slots)) - trace.hot):
        tags = [tag for slot, tag in writes if slot in group]
        assert tags.count("H") / len(tags) == pytest.approx(0.5, abs=0.03)
    # a hot slot's tag is no more often H than a cold one's: tags say nothing of frequency
    per_slot = {}
    for slot, tag in writes:
        per_slot.setdefault(slot, []).append(tag == "H")
    hot_share = np.mean([np.mean(per_slot[slot]) for slot in trace.hot])
    assert hot_share == pytest.approx(0.5, abs=0.03)


@pytest.mark.parametrize("options, message", [
    (dict(slots=1), "too small"),
    (dict(slots=100, hot_fraction=1.0), "not between 0 and 1"),
    (dict(slots=100, capacity_writes=0.5), "fewer writes"),
    (dict(slots=100, read_fraction=1.0), "read fraction"),
    (dict(slots=100, phases=0), "phases"),
])
def test_impossible_shapes(options, message):
    with pytest.raises(TraceError, match=message):
        generate("interleaved", TraceShape(**options), 1)
    with pytest.raises(TraceError, match="unknown trace"):
        generate("sorted", SHAPE, 1)


# ---- the table and figures ----------------------------------------------------------

def _summary(waf, **extra):
    """A summary.json as ftl-sim writes it (the keys the table reads, and some others)."""
    base = {"tool": "ftl-sim", "mapping": "dftl", "waf": waf, "host_write_pages": 1000,
            "gc_write_pages": 300, "gc_runs": 4, "map_reads": 50, "map_writes": 20,
            "map_gc_runs": 1, "map_gc_moved_pages": 3, "cmt_hits": 900, "cmt_misses": 100,
            "cmt_hit_rate": 0.9, "buf_read_hits": 0, "buf_absorbed_sectors": 0,
            "buf_absorbed_pages": 0, "buf_pending_pages": 0,
            "buf_flushed_pages": 0, "buf_fill_reads": 0, "fallback_runs": 0,
            "fallback_lines": 0, "fallback_pages": 0, "gc_victim_valid_pages": 300,
            "map_gc_victim_valid_pages": 3,
            "victim_histogram": {"data": [[50, 2], [100, 2]], "map": [[3, 1]]},
            "geometry": {"pages_per_line": 256}}
    base.update(extra)
    return base


def test_a_row_takes_the_summary_figures():
    row = dftl_report.study_row("phased", "dftl+buffer", _summary(
        0.9, buf_flushed_pages=800, buf_absorbed_pages=150, buf_pending_pages=50,
        cmt_hit_rate=None, fallback_runs=1, fallback_lines=3))
    assert row["trace"] == "phased" and row["build"] == "dftl+buffer"
    assert row["waf"] == 0.9 and row["buf_flushed_pages"] == 800
    # a WAF below 1 sits beside what explains it: 150 + 50 of the 1000 host pages
    assert (row["buf_absorbed_pages"], row["buf_pending_pages"]) == (150, 50)
    assert row["cmt_hit_rate"] is None
    # GC runs are every collection: 4 data GC victims and the fallback's 3
    assert (row["gc_runs"], row["data_gc_runs"], row["fallback_lines"]) == (7, 4, 3)
    assert row["mean_valid_per_victim"] == 75.0        # (50 * 2 + 100 * 2) / 4
    assert list(row) == [key for key, _, _ in dftl_report.COLUMNS]


def test_mean_valid_pages_per_victim_without_a_histogram():
    summary = _summary(1.2)
    del summary["victim_histogram"]
    assert dftl_report.mean_valid_per_victim(summary) == 75.0      # 300 / 4 runs
    summary["fallback_lines"] = 2
    assert dftl_report.mean_valid_per_victim(summary) == 50.0      # 300 / (4 + 2) victims
    assert dftl_report.mean_valid_per_victim({"gc_runs": 0, "gc_victim_valid_pages": 0}) is None
    older = dftl_report.study_row("interleaved", "dftl", {"waf": 2.0, "host_write_pages": 9})
    assert older["map_reads"] is None and older["mean_valid_per_victim"] is None
    assert older["gc_runs"] is None and older["buf_pending_pages"] is None


def test_csv_and_markdown(tmp_path):
    rows = [dftl_report.study_row("interleaved", "dftl", _summary(2.25)),
            dftl_report.study_row("interleaved", "dftl+buffer",
                                  _summary(1.125, cmt_hit_rate=None))]
    path = dftl_report.write_csv(rows, tmp_path / "t.csv")
    with open(path, newline="") as handle:
        table = list(csv.DictReader(handle))
    assert len(table) == 2 and table[0]["waf"] == "2.25" and table[0]["host_write_pages"] == "1000"
    assert table[1]["cmt_hit_rate"] == "" and table[1]["mean_valid_per_victim"] == "75"
    text = dftl_report.markdown(rows, ["seed 1"])
    lines = text.splitlines()
    assert "- seed 1" in lines
    header = next(line for line in lines if line.startswith("| trace"))
    assert "| WAF | host pages | absorbed pages | pending pages |" in header
    assert "| GC runs (data GC + fallback victims) |" in header
    assert "| mean valid pages / data victim |" in header
    body = [line for line in lines if line.startswith("| interleaved")]
    assert body[0].split(" | ")[2] == "2.250" and "| 0.9000 |" in body[0]
    rate = [key for key, _, _ in dftl_report.COLUMNS].index("cmt_hit_rate")
    assert body[1].split(" | ")[rate] == "-"       # CMT hit rate unknown


def test_figures(tmp_path):
    summaries = {}
    for trace, waf in (("interleaved", 2.0), ("phased", 1.5)):
        for build, factor in (("dftl", 1.0), ("dftl+buffer", 0.8)):
            summaries[(trace, build)] = _summary(waf * factor)
    summaries[("phased", "dftl+buffer")]["victim_histogram"] = {"data": [], "map": []}
    rows = [dftl_report.study_row(trace, build, s) for (trace, build), s in summaries.items()]
    figure = dftl_report.waf_figure(rows, "WAF")
    heights = sorted(round(bar.get_height(), 3) for bar in figure.axes[0].patches)
    assert heights == [1.2, 1.5, 1.6, 2.0]
    assert "absorbed" not in figure.axes[0].get_xlabel()
    below = [dftl_report.study_row("phased", "dftl+buffer", _summary(0.8))]
    assert "absorbed" in dftl_report.waf_figure(below, "WAF").axes[0].get_xlabel()
    paths = dftl_report.save_figures(rows, summaries, tmp_path)
    assert sorted(path.name for path in paths) == ["victims_dftl-buffer.png",
                                                   "victims_dftl.png", "waf.png"]
    only_interleaved = dftl_report.victims_figure(
        "dftl+buffer", {t: summaries[(t, "dftl+buffer")] for t in ("interleaved", "phased")})
    legend = [t.get_text() for t in only_interleaved.axes[0].get_legend().get_texts()]
    assert legend == ["interleaved data: 4, mean 75.0 valid",
                      "interleaved map: 1, mean 3.0 valid"]


# ---- the command ---------------------------------------------------------------------

def test_three_builds_and_their_ftl_sim_command(tmp_path):
    builds = dftl_study.builds(4096)
    assert [build.name for build in builds] == ["dftl", "dftl+buffer", "dftl+buffer+streams"]
    assert dict(builds[2].overrides) == {"write_buffer_sectors": "4096",
                                         "placement": "stream", "nstreams": "2",
                                         "gc_scope": "stream"}
    args = dftl_study.command(tmp_path / "ftl-sim", tmp_path / "c.conf",
                              dict(builds[1].overrides), tmp_path / "t.trace", tmp_path / "r")
    assert args[1:] == ["--config", str(tmp_path / "c.conf"), "--set",
                        "write_buffer_sectors=4096", "--trace", str(tmp_path / "t.trace"),
                        "--summary", str(tmp_path / "r" / "summary.json"), "--stats-dir",
                        str(tmp_path / "r"), "--unit-log"]


@pytest.fixture
def in_repo(monkeypatch, repo_root):
    monkeypatch.chdir(repo_root)


def _one_line_error(capsys, argv, status=2):
    assert lab_cli.main(argv) == status
    err = capsys.readouterr().err
    assert err.startswith("femu-lab: error: ") and err.count("\n") == 1, err
    return err


def test_missing_ftl_sim_is_a_user_error(capsys, tmp_path, in_repo):
    err = _one_line_error(capsys, ["dftl-study", "--ftl-sim", str(tmp_path / "nothing"),
                                   "-o", str(tmp_path / "out")])
    assert "nothing is missing" in err
    assert not (tmp_path / "out").exists()


def test_bad_config_and_bad_options_are_user_errors(capsys, ftl_sim, tmp_path, in_repo):
    err = _one_line_error(capsys, ["dftl-study", "--config", "conf/no-such.conf",
                                   "--ftl-sim", str(ftl_sim), "-o", str(tmp_path / "o")])
    assert "conf/no-such.conf does not exist" in err
    err = _one_line_error(capsys, ["dftl-study", "--ftl-sim", str(ftl_sim), "--set",
                                   "write_buffer_sectors=4", "-o", str(tmp_path / "o")])
    assert "write_buffer_sectors" in err
    err = _one_line_error(capsys, ["dftl-study", "--buffer-sectors", str(1 << 30),
                                   "--ftl-sim", str(ftl_sim), "-o", str(tmp_path / "o")])
    assert "build dftl+buffer: " in err and "write_buffer_sectors" in err
    _one_line_error(capsys, ["dftl-study", "--capacity-writes", "0.5"])
    _one_line_error(capsys, ["dftl-study", "--seed", "x"])
    assert not (tmp_path / "o").exists()


def test_a_folder_holding_other_things_is_refused(capsys, ftl_sim, tmp_path, in_repo):
    (tmp_path / "mine.txt").write_text("keep me\n")
    err = _one_line_error(capsys, ["dftl-study", "--ftl-sim", str(ftl_sim), "-o",
                                   str(tmp_path)])
    assert "holds no study.json" in err
    assert (tmp_path / "mine.txt").read_text() == "keep me\n"


def test_a_whole_study(capsys, ftl_sim, tmp_path, in_repo):
    out = tmp_path / "study"
    argv = ["dftl-study", "--capacity-writes", "2", "--seed", "3", "--ftl-sim", str(ftl_sim),
            "-o", str(out)]
    assert lab_cli.main(argv) == 0, capsys.readouterr().err
    stdout = capsys.readouterr().out
    assert "| interleaved | dftl+buffer+streams |" in stdout
    with open(out / "dftl-study.csv", newline="") as handle:
        table = list(csv.DictReader(handle))
    assert [(row["trace"], row["build"]) for row in table] == [
        (trace, build) for trace in dftl_traces.KINDS
        for build in ("dftl", "dftl+buffer", "dftl+buffer+streams")]
    rows = {(row["trace"], row["build"]): {key: float(value) if value else None
                                           for key, value in row.items()
                                           if key not in ("trace", "build")}
            for row in table}
    study = json.loads((out / "study.json").read_text())
    assert study["traces"]["interleaved"]["writes"] == 2 * study["logical_bytes"] // 4096
    for (trace, build), row in rows.items():
        summary = json.loads((out / "runs" / f"{trace}-{build}" / "summary.json").read_text())
        assert summary["mapping"] == "dftl"
        host = row["host_write_pages"]
        assert host == study["traces"][trace]["writes"]     # one page per 4 KiB write
        assert row["waf"] == pytest.approx(summary["waf"])
        assert row["map_reads"] > 0 and 0 < row["cmt_hit_rate"] < 1
        if build == "dftl":
            assert row["buf_flushed_pages"] == row["buf_absorbed_pages"] == 0
            assert row["buf_read_hits"] == row["buf_pending_pages"] == 0
        else:
            # every host page was absorbed, flushed or is pending (no trim: none dropped)
            assert row["buf_absorbed_pages"] > 0 and 0 < row["buf_pending_pages"] <= 8192 / 8
            assert row["buf_absorbed_pages"] + row["buf_flushed_pages"] + \
                row["buf_pending_pages"] == host
        # GC runs: every collection, as gc_victims.csv counts them
        with open(out / "runs" / f"{trace}-{build}" / "gc_victims.csv", newline="") as handle:
            victims = sum(int(r["data_victims"]) for r in csv.DictReader(handle))
        assert row["gc_runs"] == row["data_gc_runs"] + row["fallback_lines"] == victims
        assert row["data_gc_runs"] == summary["gc_runs"]
        # per stream (--unit-log): its victims' valid pages add up to every data victim's
        data_units = [u for u in summary["units"] if u["write_pointer"] != "map"]
        assert sum(u["victims"] for u in data_units) == victims
        assert sum(u["victims"] * u["valid_per_victim"] for u in data_units) == \
            pytest.approx(summary["gc_victim_valid_pages"], abs=0.0001 * victims)  # rounding
        assert sum(u["fallback_victims"] for u in data_units) == row["fallback_lines"]
        for stream, unit in enumerate(data_units[:2]):     # None: GC took none of its own
            gc_victims = unit["victims"] - unit["fallback_victims"]
            expected = unit["valid_per_gc_victim"] if gc_victims else None
            assert row[f"valid_per_victim_s{stream}"] == pytest.approx(expected, abs=1e-4)
        if build == "dftl+buffer+streams":     # stats.csv has the fallback's victims
            stats = pd.read_csv(out / "runs" / f"{trace}-{build}" / "stats.csv")
            assert waf_counts.collections(waf_counts.sums(stats))["gc_collections"] == victims
        log = (out / "runs" / f"{trace}-{build}" / "ftl-sim.log").read_text()
        assert f"\nGC: {victims} runs" in log      # ftl-sim's own line counts them alike
        if build != "dftl+buffer+streams":
            assert row["fallback_runs"] == row["fallback_pages"] == 0
        if row["fallback_runs"] == 0:
            assert row["fallback_pages"] == 0
        flash = (row["buf_flushed_pages"] or host) + row["gc_write_pages"] + \
            row["map_writes"] + row["map_gc_moved_pages"] + row["fallback_pages"]
        assert row["waf"] == pytest.approx(flash / host, abs=1e-3)
    assert any(row["fallback_lines"] for row in rows.values())   # the sum has both parts
    # C is stream 0, H stream 1: the cold slots (each written once) fill stream 0, whose
    # lines GC never needs; the buffer may still hold some cold pages at the end
    summary = json.loads((out / "runs" / "interleaved-dftl+buffer+streams" /
                          "summary.json").read_text())
    cold = study["traces"]["interleaved"]["cold_writes"]
    cold_stream, hot_stream = summary["write_pointers"]
    assert cold - 8192 // 8 <= cold_stream["host_pages"] <= cold
    assert cold_stream["gc_pages"] == 0 and hot_stream["host_pages"] > cold
    # the builds that ignore tags see interleaved and mistagged alike
    for build in ("dftl", "dftl+buffer"):
        assert rows[("interleaved", build)] == rows[("mistagged", build)]
    # right tags separate hot from cold; coin-flip tags cannot
    assert rows[("interleaved", "dftl+buffer+streams")]["waf"] < \
        rows[("interleaved", "dftl+buffer")]["waf"]
    assert rows[("interleaved", "dftl+buffer+streams")]["waf"] < \
        rows[("mistagged", "dftl+buffer+streams")]["waf"]
    for name in ("dftl-study.md", "waf.png", "victims_dftl.png",
                 "victims_dftl-buffer-streams.png"):
        assert (out / name).stat().st_size > 0
    # every run folder is one femu-plot reads, with the DFTL plots
    from femu_analysis import find_window, load_run
    from femu_analysis.plots import plot_run
    run = load_run(out / "runs" / "phased-dftl+buffer")
    names = {path.name for path in plot_run(run, find_window(run), tmp_path / "plots")}
    assert {"cmt_hit_rate.png", "gc_victims.png", "waf.png"} <= names
    # the same command again redoes the study in its folder
    before = (out / "dftl-study.csv").read_text()
    assert lab_cli.main(argv) == 0
    assert (out / "dftl-study.csv").read_text() == before
