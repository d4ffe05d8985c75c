"""The FDP bench (python -m femu_analysis.fdp_bench): its figures and its one-line errors."""
import pytest

from femu_analysis import fdp_bench


def test_bench_prints_every_case_the_optimum_and_both_speeds(ftl_sim, capsys):
    status = fdp_bench.main(["--ftl-sim", str(ftl_sim), "--writes", "20000",
                             "--speed-writes", "20000", "--repeat", "1"])
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


@pytest.mark.parametrize("args, message", [
    (["--ftl-sim", "/nonexistent/ftl-sim"], "/nonexistent/ftl-sim: no ftl-sim there"),
    (["--writes", "10"], "--writes: 10 is not between 1000"),
    (["--repeat", "x"], "--repeat: 'x' is not a whole number"),
])
def test_bench_errors_are_one_line(capsys, args, message):
    assert fdp_bench.main(args) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("fdp-bench: error: ") and message in err[0]
