"""femu-plot read-latency: read_retries.csv (reads by the read-retry model's age class and
steps) as sense-time CDFs by block age, with a table whose figures are computed here by
hand; a run without the file or with a bad one is one line and status 2."""
import pandas as pd

from femu_analysis import cli, retry_plots


def write_run(folder, rows):
    folder.mkdir(parents=True)
    text = "age_class,steps,sense_us,reads\n" + "".join(f"{c},{k},{s:.3f},{n}\n"
                                                         for c, k, s, n in rows)
    (folder / "read_retries.csv").write_text(text)
    return folder


FRESH = [(0, 0, 40.0, 990), (0, 1, 115.0, 10)]
AGED = [(2, 2, 190.0, 600), (2, 3, 265.0, 400)]


def test_table_by_hand(tmp_path):
    fresh = write_run(tmp_path / "fresh", FRESH)
    aged = write_run(tmp_path / "aged", FRESH[:1] + AGED)
    out = tmp_path / "plots"
    assert cli.main(["read-latency", str(fresh), str(aged), "--out", str(out)]) == 0
    assert (out / "read_latency.png").stat().st_size > 0
    table = pd.read_csv(out / "read_latency.csv", dtype={"age_class": str})
    fresh_all = table[(table.run == "fresh") & (table.age_class == "all")].iloc[0]
    assert fresh_all.reads == 1000
    assert fresh_all.mean_us == (990 * 40 + 10 * 115) / 1000
    assert fresh_all.p50_us == 40 and fresh_all.p99_us == 40     # the 990th read
    aged2 = table[(table.run == "aged") & (table.age_class == "2")].iloc[0]
    assert aged2.reads == 1000 and aged2.p50_us == 190 and aged2.p99_us == 265
    aged_all = table[(table.run == "aged") & (table.age_class == "all")].iloc[0]
    assert aged_all.reads == 1990 and aged_all.p50_us == 190    # 995th of 1990: class 2


def test_nearest_rank_percentile():
    frame = pd.DataFrame({"sense_us": [265.0, 40.0], "reads": [1, 99]})
    assert retry_plots.percentile(frame, 99) == 40.0
    assert retry_plots.percentile(frame, 99.5) == 265.0


def test_missing_and_bad_files_are_one_line(tmp_path, capsys):
    empty = tmp_path / "none"
    empty.mkdir()
    assert cli.main(["read-latency", str(empty)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no read_retries.csv" in err[0]
    bad = write_run(tmp_path / "bad", [(0, 0, 40.0, -3)])
    assert cli.main(["read-latency", str(bad)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "negative count" in err[0]
