"""femu-plot write-cliff: on a stats.csv whose cliff and idle gaps are known, the
segments table finds each cliff where it is (the bytes written before the first second
wholly past a full cache, the throughput before and after), the cache at each segment's
start, and the idle time that came before, as configured and as seen; the plot marks each
cliff at the table's figure; on ftl-sim's write-cliff lab the same holds; a run without
the columns it needs is one line and status 2."""
import json

import numpy as np
import pandas as pd
import pytest

from femu_analysis import cli, load_run
from femu_analysis.cliff_plots import cliff_figure, cliff_points, cliff_table, segments

MIB = 1 << 20
PAGE = 4096


def write_run(folder, seconds, with_cache=True):
    """seconds: [(MiB written, cache capacity pages, cache used pages, MiB the cache took)]
    per 1 s row."""
    folder.mkdir(parents=True)
    rows = []
    for index, (mib, cap, used, absorbed) in enumerate(seconds, start=1):
        row = {"time_s": f"{index:.3f}", "interval_s": "1.000",
               "host_write_bytes": mib * MIB, "host_write_pages": mib * MIB // PAGE,
               "host_read_cmds": 0, "host_write_cmds": mib}
        if with_cache:
            row.update(slc_cap_pages=cap, slc_used_pages=used,
                       slc_host_pages=absorbed * MIB // PAGE,
                       slc_direct_pages=(mib - absorbed) * MIB // PAGE)
        rows.append(row)
    pd.DataFrame(rows).to_csv(folder / "stats.csv", index=False)
    return folder


# 4 s at 400 MiB/s (the cache: 1600 MiB), 4 s at 100 MiB/s, 5 s idle, 2 s at 400 MiB/s
# (the folded part) and one at 130 MiB/s of which the cache took 50, then 2 s at 100 MiB/s
CAP = 1600 * MIB // PAGE
SECONDS = ([(400, CAP, i * 400 * MIB // PAGE, 400) for i in range(1, 5)] +
           [(100, CAP, CAP, 0)] * 4 + [(0, CAP, CAP, 0)] * 5 +
           [(400, 2 * CAP // 3, 0, 400)] * 2 + [(130, 2 * CAP // 3, 0, 50)] +
           [(100, 2 * CAP // 3, 0, 0)] * 2)


def test_cliffs_found_by_hand(tmp_path, capsys):
    run = write_run(tmp_path / "qlc", SECONDS)
    out = tmp_path / "plots"
    assert cli.main(["write-cliff", str(run), "--out", str(out)]) == 0
    assert (out / "write_cliff.png").stat().st_size > 0
    table = pd.read_csv(out / "write_cliff.csv")
    first, second = table.iloc[0], table.iloc[1]
    assert first.idle_s == 0 and first.quiet_s == 0 and first.gib_written == 0
    assert first.gib_to_cliff == pytest.approx(1600 / 1024, abs=1e-4)
    assert first.mib_s_before == 400 and first.mib_s_after == 100
    assert first.cache_gib == pytest.approx(1600 / 1024, abs=1e-4)
    assert first.absorbed_gib == pytest.approx(1600 / 1024, abs=1e-4)
    # no params.json or summary.json: the configured idle is unknown, the quiet seconds seen
    assert pd.isna(second.idle_s) and second.quiet_s == 5
    assert second.gib_written == pytest.approx(2000 / 1024, abs=1e-4)
    # the second that straddles the full cache (130 MiB, 50 of them cached) is before it
    assert second.gib_to_cliff == pytest.approx(930 / 1024, abs=1e-4)
    assert second.absorbed_gib == pytest.approx(850 / 1024, abs=1e-4)
    assert second.mib_s_before == 400 and second.mib_s_after == 100
    assert "qlc" in capsys.readouterr().out


def test_idle_is_the_configured_one(tmp_path):
    run = write_run(tmp_path / "qlc", SECONDS)
    (run / "params.json").write_text(json.dumps({"workload": "write-cliff:write",
                                                 "runtime": 20}))
    assert cli.main(["write-cliff", str(run), "--out", str(tmp_path / "p")]) == 0
    table = pd.read_csv(tmp_path / "p" / "write_cliff.csv")
    assert list(table.idle_s) == [0, 20] and list(table.quiet_s) == [0, 5]


def test_without_the_cache_counters_the_cliff_is_where_throughput_halves(tmp_path):
    run = write_run(tmp_path / "other", SECONDS, with_cache=False)
    assert cli.main(["write-cliff", str(run), "--out", str(tmp_path / "p")]) == 0
    table = pd.read_csv(tmp_path / "p" / "write_cliff.csv")
    assert list(table.gib_to_cliff.round(4)) == [round(1600 / 1024, 4), round(800 / 1024, 4)]
    assert list(table.mib_s_after) == [100, 100] and table.absorbed_gib.isna().all()


def test_a_run_without_a_cache_has_no_cache_column_and_no_cliff(tmp_path):
    run = write_run(tmp_path / "flat", [(100, 0, 0, 0)] * 6, with_cache=False)
    assert cli.main(["write-cliff", str(run), "--out", str(tmp_path / "p")]) == 0
    row = pd.read_csv(tmp_path / "p" / "write_cliff.csv").iloc[0]
    assert pd.isna(row.gib_to_cliff) and pd.isna(row.cache_gib) and pd.isna(row.absorbed_gib)
    assert row.mib_s_before == 100


def test_missing_columns_are_one_line(tmp_path, capsys):
    folder = tmp_path / "bad"
    folder.mkdir()
    pd.DataFrame({"time_s": [1.0], "interval_s": [1.0]}).to_csv(folder / "stats.csv",
                                                                  index=False)
    assert cli.main(["write-cliff", str(folder)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "host_write_bytes" in err[0]


def _marked_cliffs(figure):
    """x of the cliff markers the figure draws."""
    return sorted(float(x) for collection in figure.axes[0].collections
                  if collection.get_gid() == "cliff" for x, _ in collection.get_offsets())


def test_ftl_sim_write_cliff_table_equals_the_plot(tmp_path, run_ftl_sim, repo_root):
    """docs/labs.md's write-cliff lab in ftl-sim: each round's 'to cliff' is where the
    plotted throughput steps down to the media's speed and stays (every second from it to
    the round's end under half the fastest before it, none before it), and the plot's
    cliff marker sits at that data written."""
    sim = tmp_path / "sim"
    sim.mkdir()
    run_ftl_sim("--config", repo_root / "conf" / "consumer-qlc.conf", "--rw", "write",
                "--bs", "128k", "--qd", "8", "--io-size", "1920m", "--idle", "640m:20s",
                "--stats-dir", sim, "--summary", sim / "summary.json")
    run = load_run(sim)
    table = cliff_table(run.stats, 20.0)
    assert len(table) == 3 and table.gib_to_cliff.notna().all()
    assert list(table.idle_s) == [0, 20, 20]
    speed = run.stats["host_write_bytes"] / run.stats["interval_s"] / (1 << 20)
    for row, (_, seg) in zip(table.itertuples(), segments(run.stats)):
        written = seg["host_write_bytes"].cumsum() / (1 << 30)
        before = written - seg["host_write_bytes"] / (1 << 30)
        at = int(np.flatnonzero(np.isclose(before, row.gib_to_cliff, atol=1e-9))[0])
        fast = speed.loc[seg.index[:at]].max()
        # the cliff second and the whole ones after it are slow (the last may be partial)
        assert (speed.loc[seg.index[at:-1]] < fast / 2).all()
        assert row.absorbed_gib <= row.gib_to_cliff
    figure = cliff_figure([run], ["ftl-sim"], [table])
    assert _marked_cliffs(figure) == pytest.approx(sorted(cliff_points(table)))
    assert "consumer-qlc" in figure.axes[0].get_title()
