"""The GC onset bench (femu_lab.bench.gc_onset, `femu-lab gc-onset`): its checks on
hand-made figures, and one real (simulated-time) run through the registry's interface."""
from femu_common.cli_args import OneLineParser
from femu_lab.bench import gc_onset


def parse(argv):
    parser = OneLineParser(prog=gc_onset.PROG)
    gc_onset.add_arguments(parser)
    return parser.parse_args(argv)


def test_worst_second_against_half_the_mean_and_p99_against_7_5_ms():
    # mean 8000: 4000 is exactly half (passes), 3999 is not
    ok = gc_onset.onset_checks({"seconds": [4000, 12000, 8000], "p99_us": 7500})
    assert [line[:4] for line in ok] == ["PASS", "PASS"]
    assert "worst second 4,000 IOPS >= 0.5 x mean 8,000 = 4,000" in ok[0]
    low = gc_onset.onset_checks({"seconds": [3999, 12001, 8000], "p99_us": 7500.1})
    assert [line[:4] for line in low] == ["FAIL", "FAIL"]
    assert gc_onset.onset_checks({"seconds": [], "p99_us": 1.0})[0].startswith("FAIL")


def test_waf_within_three_percent_either_side():
    assert gc_onset.waf_check("random", 7.72, 8.0).startswith("FAIL")   # -3.5 %
    assert gc_onset.waf_check("random", 7.77, 8.0).startswith("PASS")   # -2.9 %
    assert gc_onset.waf_check("random", 8.23, 8.0).startswith("PASS")   # +2.9 %
    assert gc_onset.waf_check("zipf:1.2", 8.25, 8.0).startswith("FAIL")
    assert "(+3.1 %)" in gc_onset.waf_check("zipf:1.2", 8.25, 8.0)


def test_a_run_prints_the_series_and_every_check(ftl_sim, capsys):
    status = gc_onset.run(parse(["--ftl-sim", str(ftl_sim), "--runtime", "12"]))
    out, err = capsys.readouterr()
    assert status == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("per-second host IOPS, QD32 random writes")
    series = [float(value.replace(",", "")) for line in lines[1:3] for value in line.split()]
    assert len(series) >= 10    # every whole second of the 12 s after the fill
    checks = [line for line in lines if line[:4] in ("PASS", "FAIL")]
    assert len(checks) == 2 + len(gc_onset.WAF_DISTS)
    assert [line.split()[1] for line in checks[2:]] == [f"{d}:" for d in gc_onset.WAF_DISTS]
    assert "[femu-lab gc-onset" in err and "WAF, zipf:1.2, gc_mode=line" in err
