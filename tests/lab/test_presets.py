"""femu-lab presets (femu_lab.presets): a small preset whose figures are computed by hand
run through the command (its CSV and markdown against the error formula), the one-line
errors of bad presets, the cliff metrics on hand-made statistics, and the three shipped
presets: ftl-sim takes each (whole and scaled), every key line names its source, every
figure parses and names its source."""
import csv
import re

import pytest

from femu_common.cli_args import OneLineParser, UsageError
from femu_lab import cli as lab_cli
from femu_lab.presets import command as presets_command, measure as presets_measure
from femu_lab.presets.spec import PresetError, read_preset

SHIPPED = ("samsung-980pro.conf", "samsung-pm9a3.conf", "wd-zn540.conf")

# 2 LUNs of 4 KiB pages, no link or controller model, no channel: a 4 KiB read takes the
# 40 us sense, a 4 KiB write the 200 us program, nothing else.
TINY = """\
secsz=512              # bytes per sector
secs_per_pg=8          # 4 KiB pages
pgs_per_blk=64         # 256 KiB blocks
nchs=1                 # one channel
luns_per_ch=2          # two LUNs
pls_per_lun=1          # one plane
blks_per_pl=64         # 32 MiB raw
ssd_size=24            # MiB logical
pg_rd_lat=40000        # 40 us
pg_wr_lat=200000       # 200 us
ch_xfer_lat=0          # no bus
# run | --set ssd_size=20
# figure qd1-read | check | 20000 IOPS | read_IOPS | --rw randread --bs 4k --qd 1 --precondition seq --io-size 1m
# source qd1-read | a hand-computed case: 1 / 40 us = 25,000 IOPS
# figure qd1-read-latency | fit | 50 us | lat_us | --rw randread --bs 4k --qd 1 --precondition seq --io-size 1m
# source qd1-read-latency | a hand-computed case: 40 us
# figure qd1-write | fit | 20 MB/s | write_MBps | --rw write --bs 4k --qd 1 --io-size 1m
# source qd1-write | a hand-computed case: 4096 B / 200 us = 20.48 MB/s
# figure two-luns | check | 8000 IOPS | write_IOPS | --rw write --bs 8k --qd 1 --io-size 1m ; --rw write --bs 4k --qd 2 --io-size 1m
# source two-luns | a hand-computed case after a fill: two programs at once, 2 / 200 us
# figure qd1-vendor | missing | - | - | -
# source qd1-vendor | not found
"""
# figure -> (femu as computed by hand, target)
BY_HAND = {"qd1-read": (25000.0, 20000.0), "qd1-read-latency": (40.0, 50.0),
           "qd1-write": (20.48, 20.0), "two-luns": (10000.0, 8000.0)}


def parse(argv):
    parser = OneLineParser(prog=presets_command.PROG)
    presets_command.add_arguments(parser)
    return parser.parse_args(argv)


def lab(argv, capsys):
    status = lab_cli.main(["presets", *argv])
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture
def tiny(tmp_path):
    path = tmp_path / "tiny.conf"
    path.write_text(TINY)
    return path


def test_the_table_holds_each_figure_and_its_error_as_computed_by_hand(tiny, tmp_path,
                                                                       ftl_sim, capsys):
    out = tmp_path / "out"
    status, text, err = lab(["--preset", str(tiny), "-o", str(out), "--ftl-sim",
                             str(ftl_sim)], capsys)
    assert status == 0, err
    with (out / "presets.csv").open(newline="") as f:
        rows = {row["figure"]: row for row in csv.DictReader(f)}
    assert list(rows) == ["qd1-read", "qd1-read-latency", "qd1-write", "two-luns",
                          "qd1-vendor"]
    for name, (femu, target) in BY_HAND.items():
        row = rows[name]
        assert float(row["femu"]) == pytest.approx(femu, rel=1e-4), name
        assert float(row["target"]) == target
        assert float(row["error_pct"]) == pytest.approx(100 * (femu - target) / target,
                                                        abs=0.01), name
    assert rows["qd1-read"]["kind"] == "check" and rows["qd1-write"]["kind"] == "fit"
    assert rows["qd1-vendor"]["femu"] == "" and rows["qd1-vendor"]["error_pct"] == ""
    assert rows["qd1-read"]["source"] == "a hand-computed case: 1 / 40 us = 25,000 IOPS"
    # the command line as run: the preset, its run line, the figure's arguments
    assert f"--config {tiny} --set ssd_size=20 --rw randread" in rows["qd1-read"]["command"]
    assert " && " in rows["two-luns"]["command"]
    assert "--state-out" in rows["two-luns"]["command"]
    # the markdown table (printed and written) carries the same rows
    assert text == (out / "presets.md").read_text()
    assert "| tiny | qd1-read | check | 20,000 IOPS | 25,000 IOPS | +25.0 % |" in text
    assert "| tiny | qd1-write | fit | 20.0 MB/s | 20.5 MB/s | +2.4 % |" in text
    assert "| tiny | qd1-vendor | missing | missing | - | - | not found |" in text
    assert "[presets" in err and "tiny: qd1-read (check), 1 of 5" in err


def test_only_measures_the_named_figures(tiny, tmp_path, ftl_sim, capsys):
    out = tmp_path / "out"
    status, _, err = lab(["--preset", str(tiny), "-o", str(out), "--ftl-sim", str(ftl_sim),
                          "--only", "qd1-write"], capsys)
    assert status == 0, err
    with (out / "presets.csv").open(newline="") as f:
        assert [row["figure"] for row in csv.DictReader(f)] == ["qd1-write"]
    with pytest.raises(UsageError, match="--only: no figure named nope in the presets"):
        presets_command.run(parse(["--preset", str(tiny), "--only", "nope", "--ftl-sim",
                                   str(ftl_sim)]))


def one_error_line(argv, capsys):
    status, _, err = lab(argv, capsys)
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return status, lines[0]


def test_a_missing_preset_file_is_one_line_naming_it(tmp_path, ftl_sim, capsys):
    missing = tmp_path / "nope.conf"
    status, line = one_error_line(["--preset", str(missing), "--ftl-sim", str(ftl_sim),
                                   "-o", str(tmp_path / "out")], capsys)
    assert status == 2
    assert line == f"femu-lab: error: {missing}: no such preset file"


def test_a_bad_key_is_one_line_naming_the_file_line_and_key(tiny, tmp_path, ftl_sim,
                                                            capsys):
    tiny.write_text(TINY.replace("pg_wr_lat=200000 ", "pg_write_lat=200000 "))
    status, line = one_error_line(["--preset", str(tiny), "--ftl-sim", str(ftl_sim),
                                   "-o", str(tmp_path / "out")], capsys)
    assert status == 2
    assert line.startswith(f"femu-lab: error: {tiny}: ftl-sim refuses it: {tiny}:10: ")
    assert "pg_write_lat" in line


def test_an_include_of_a_missing_file_is_one_line_naming_it(tiny, tmp_path, ftl_sim,
                                                            capsys):
    tiny.write_text("include nand/none.conf\n" + TINY)
    status, line = one_error_line(["--preset", str(tiny), "--ftl-sim", str(ftl_sim),
                                   "-o", str(tmp_path / "out")], capsys)
    assert status == 2
    assert line.startswith(f"femu-lab: error: {tiny}: ftl-sim refuses it: ")
    assert "none.conf" in line


def test_run_arguments_ftl_sim_refuses_are_one_line(tiny, tmp_path, ftl_sim, capsys):
    tiny.write_text(TINY.replace("--set ssd_size=20", "--set ssd_size=999"))
    status, line = one_error_line(["--preset", str(tiny), "--ftl-sim", str(ftl_sim),
                                   "-o", str(tmp_path / "out")], capsys)
    assert status == 2
    assert line.startswith(f"femu-lab: error: {tiny}: ftl-sim refuses it with its '# run' "
                           "arguments: ")


@pytest.mark.parametrize("change, message", [
    (("# source qd1-write | a hand", "# sauce qd1-write | a hand"),
     r":17: figure qd1-write names no source \('# source qd1-write \| \.\.\.'\)$"),
    (("| fit | 20 MB/s |", "| fit | 20 IOPS |"), r":17: qd1-write: write_MBps is in MB/s, "
                                                 r"the target in IOPS$"),
    (("| fit | 20 MB/s |", "| guess | 20 MB/s |"), r":17: qd1-write: kind 'guess' is not "
                                                   r"one of fit, check, missing$"),
    (("| write_MBps |", "| speed |"), r":17: qd1-write: metric 'speed' is not one of "),
    (("| fit | 20 MB/s |", "| fit | 0 MB/s |"), r":17: qd1-write: target '0 MB/s': the "
                                                r"value must be above 0$"),
    (("--io-size 1m\n# source qd1-write", "--summary x.json\n# source qd1-write"),
     r":17: qd1-write: args: --summary is set by femu-lab presets itself$"),
    (("# figure qd1-vendor | missing | - | - | -", "# figure qd1-read | missing | - | - | -"),
     r":21: figure qd1-read is stated twice \(line 13\)$"),
    (("# source qd1-vendor |", "# source other |"),
     r":22: source of 'other', which no figure line names$"),
    (("# figure qd1-vendor | missing | - | - | -", "# figure qd1-vendor | missing | 1 us | - "
      "| -"), r":21: qd1-vendor: a missing figure has '-' for its target, metric and args$"),
    (("--rw randread --bs 4k --qd 1 --precondition seq --io-size 1m\n# source qd1-read |",
      "--zone-reads 3k:1m:10:rand\n# source qd1-read |"),
     r":13: qd1-read: --zone-reads 3k:1m:10:rand: BS a multiple of 4 KiB"),
])
def test_a_bad_figure_line_is_one_line_naming_file_and_line(tiny, change, message):
    old, new = change
    assert old in TINY
    tiny.write_text(TINY.replace(old, new, 1))
    with pytest.raises(PresetError) as error:
        read_preset(tiny)
    assert str(error.value).startswith(str(tiny))
    assert re.search(message, str(error.value)), str(error.value)
    assert "\n" not in str(error.value)


def rows(*seconds):
    """stats.csv rows: (interval_s, bytes written, slc pages, direct pages) each, 4 KiB."""
    return [{"interval_s": interval, "host_write_bytes": written,
             "host_write_pages": written / 4096, "slc_host_pages": slc,
             "slc_direct_pages": direct} for interval, written, slc, direct in seconds]


def test_the_cliff_is_what_was_written_before_the_first_direct_page():
    stats = rows((1.0, 4096e3, 1000, 0), (1.0, 4096e3, 400, 600), (1.0, 2048e3, 0, 500),
                 (1.0, 3072e3, 0, 750), (1.0, 1024e3, 0, 250), (0.5, 512e3, 0, 125))
    # a second of cache, then 400 cached pages before the first direct one
    assert presets_measure.cliff_bytes(stats) == 4096e3 + 400 * 4096
    # the whole seconds after the one the cliff falls in, the last (partial) left out
    assert presets_measure.after_cliff_mb_s(stats) == pytest.approx(2.048)
    assert presets_measure.cliff_bytes(rows((1.0, 4096e3, 1000, 0))) is None
    assert presets_measure.after_cliff_mb_s(rows((1.0, 4096e3, 600, 400),
                                                 (1.0, 4096e3, 0, 1000))) is None


def test_zone_read_traces_stay_in_the_span(tmp_path):
    trace = tmp_path / "z.trace"
    presets_measure._zone_read_trace("128k:1m:10:seq", trace)
    lines = trace.read_text().splitlines()
    assert lines[0] == "S 1"
    assert lines[1:] == [f"ZR {n % 8 * 256} 256" for n in range(10)]
    presets_measure._zone_read_trace("4k:64k:1000:rand", trace)
    starts = {int(line.split()[1]) for line in trace.read_text().splitlines()[1:]}
    assert starts <= {n * 8 for n in range(16)} and len(starts) == 16


@pytest.mark.parametrize("name", SHIPPED)
def test_each_shipped_preset_passes_ftl_sim_whole_and_scaled(name, repo_root, ftl_sim):
    preset = read_preset(repo_root / "conf" / name)
    mib = presets_command.full_capacity_mib(ftl_sim, preset)
    assert mib >= 1024     # the ZN540: its conventional namespace only
    assert preset.run_args, f"{name}: no '# run' line"
    kinds = {figure.kind for figure in preset.figures}
    assert "fit" in kinds and "missing" in kinds


KEY_LINE = re.compile(r"^(?P<key>[a-z_0-9]+)=(?P<value>\S+)\s+#\s*(?P<why>\S.*)$")


@pytest.mark.parametrize("name", SHIPPED)
def test_every_key_line_of_a_shipped_preset_names_its_source(name, repo_root):
    for number, line in enumerate((repo_root / "conf" / name).read_text().splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        assert not line.startswith("include"), f"{name}:{number}: the preset includes a file"
        match = KEY_LINE.match(line)
        assert match, f"{name}:{number}: a key line without its source comment: {line}"
        why = match["why"]
        assert len(why) > 12, f"{name}:{number}: '{why}' is no source"
        if why.startswith("fitted"):
            assert "so that" in why or "fitted to" in why or ":" in why, \
                f"{name}:{number}: a fitted value says what it was fitted to"


@pytest.mark.parametrize("name", SHIPPED)
def test_every_figure_of_a_shipped_preset_names_a_source_with_its_address(name, repo_root):
    for figure in read_preset(repo_root / "conf" / name).figures:
        if figure.kind == "missing":
            continue
        text = " ".join(figure.sources)
        assert "http" in text or "as " in text or "no address: " in text, \
            f"{name}: {figure.name}: no address, and no word of why"


@pytest.mark.parametrize("change, message", [
    (("--io-size 1m\n# source qd1-write", "--io-size 1m --trace-out /tmp/x\n# source qd1-write"),
     r":17: qd1-write: args: --trace-out is not taken in a preset \(it writes a file or ends "
     r"the run early\)$"),
    (("--set ssd_size=20", "--set ssd_size=20 --state-out=s"),
     r":12: run: --state-out is set by femu-lab presets itself$"),
    (("4k:1m:10:rand", "4k:1m:10:rand"), None),
])
def test_options_that_write_files_are_refused(tiny, change, message):
    old, new = change
    text = TINY.replace(old, new, 1)
    if message is None:     # the largest generated trace is bounded
        text = TINY.replace("--rw randread --bs 4k --qd 1 --precondition seq --io-size 1m\n#"
                            " source qd1-read |", "--zone-reads 4k:1m:99999999:rand\n# source "
                            "qd1-read |", 1)
        message = r":13: qd1-read: --zone-reads 4k:1m:99999999:rand: .*COUNT from 1 to "
    tiny.write_text(text)
    with pytest.raises(PresetError, match=message):
        read_preset(tiny)


def test_a_cliff_figure_without_the_cache_is_one_line(tiny, tmp_path, ftl_sim, capsys):
    tiny.write_text(TINY + "# figure cliff | check | 1 GB | cliff_GB | --rw write --bs 128k "
                           "--qd 8 --io-size 4m\n# source cliff | a case without a cache\n")
    status, _, err = lab(["--preset", str(tiny), "--ftl-sim", str(ftl_sim), "--only",
                          "cliff", "-o", str(tmp_path / "out")], capsys)
    progress, line = err.strip().splitlines()   # the figure announced, then the error
    assert status == 1 and progress.endswith("tiny: cliff (check), 1 of 1")
    assert line == (f"femu-lab: error: {tiny}: cliff: stats.csv has no slc_host_pages "
                    "column (the cliff metrics need slc_cache=on)")


def test_an_output_that_is_a_folder_is_refused_before_any_run(tiny, tmp_path, ftl_sim,
                                                              capsys):
    out = tmp_path / "out"
    (out / "presets.csv").mkdir(parents=True)
    status, line = one_error_line(["--preset", str(tiny), "--ftl-sim", str(ftl_sim),
                                   "-o", str(out)], capsys)
    assert status == 2
    assert line.startswith(f"femu-lab: error: -o {out / 'presets.csv'} is a folder")
    assert not (out / "runs").exists()
