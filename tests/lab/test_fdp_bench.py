"""The FDP bench (femu_lab.fdp.bench, `femu-lab fdp-bench`): its figures and its one-line
errors, through the command interface the registry takes (add_arguments, run)."""
import pytest

from femu_common.cli_args import OneLineParser, UsageError
from femu_lab.fdp import bench as fdp_bench


def parse(argv):
    parser = OneLineParser(prog=fdp_bench.PROG)
    fdp_bench.add_arguments(parser)
    return parser.parse_args(argv)


def test_bench_prints_every_case_the_optimum_and_both_speeds(ftl_sim, capsys):
    status = fdp_bench.run(parse(["--ftl-sim", str(ftl_sim), "--writes", "20000",
                                  "--speed-writes", "20000", "--repeat", "1"]))
    out, err = capsys.readouterr()
    assert status == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("textbook hot/cold (conf/lab-dftl.conf")
    wafs = {}
    for line in lines[2:6]:
        name, figures = line[:34].strip(), line[34:].split()
        wafs[name] = float(figures[0])
    assert list(wafs) == ["one handle", "two handles, gc_scope=stream",
                          "two handles, gc_scope=global", "analytic optimum"]
    assert wafs["analytic optimum"] == pytest.approx(1.437, abs=0.001)
    assert wafs["two handles, gc_scope=global"] < wafs["one handle"]
    assert "placement=single" in lines[7] and "M/s" in lines[7]
    assert "placement=fdp, 2 handles, global" in lines[8] and "M/s" in lines[8]
    assert "[fdp-bench" in err and "speed, placement=single: run 1 of 1" in err


def test_bench_without_ftl_sim_is_one_line(capsys):
    assert fdp_bench.run(parse(["--ftl-sim", "/nonexistent/ftl-sim"])) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["fdp-bench: error: /nonexistent/ftl-sim: no ftl-sim there (build it: "
                   "ninja -C build/release)"]


def test_ftl_sim_failing_is_one_line_naming_its_arguments(tmp_path, capsys):
    fake = tmp_path / "ftl-sim"
    fake.write_text("#!/bin/sh\necho 'ftl-sim: error: no such key' >&2\nexit 2\n")
    fake.chmod(0o755)
    assert fdp_bench.run(parse(["--ftl-sim", str(fake), "--writes", "1000"])) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("fdp-bench: error: ftl-sim --config conf/lab-dftl.conf ")
    assert err[-1].endswith(": ftl-sim: error: no such key")


@pytest.mark.parametrize("args, message", [
    (["--writes", "10"], "--writes: 10 is not between 1000"),
    (["--repeat", "x"], "--repeat: 'x' is not a whole number"),
])
def test_bench_options_are_checked(args, message):
    with pytest.raises(UsageError, match=message):
        parse(args)
