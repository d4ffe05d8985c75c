"""A trace's late line that the replay would refuse stops the run before any output
exists: ftl-sim makes every request once with no FTL (the dry run: the same maps, clock,
device range and handle checks as the replay) before it creates its statistics folder,
its summary or its recording; femu-trace convert does the same before it makes OUT's
temporary file. Before, the first pass only parsed, and these refusals came mid-replay
with a dozen output files already written."""
import subprocess

import pytest

SMALL = ["--config", "conf/lab-1g.conf", "--set", "luns_per_ch=2", "--set", "pgs_per_blk=64",
         "--set", "ssd_size=48"]
FILETIME_0 = 128166372000000000     # 100 ns units
LEAD = 200                          # good requests before the bad one


def msr_rows(rows):
    head = ["Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime"]
    return "\n".join(head + [f"{t},hm,0,Write,{off},4096,1" for t, off in rows]) + "\n"


def good_msr():
    return [(FILETIME_0 + i * 10, (i % 64) * 4096) for i in range(LEAD)]


def femu_v3(last):
    return "V 3\n" + "".join(f"W {i} {(i % 64) * 8} 8 1 0\n" for i in range(LEAD)) + last


# name: (file name, content, extra options, the bad line's number, its words)
CASES = {
    "lba-map-refuse": ("t.csv", msr_rows(good_msr() + [(FILETIME_0 + 9999, 100 << 30)]), [],
                       LEAD + 2, "are beyond the device's"),
    "trace-extent": ("t.csv", msr_rows(good_msr() + [(FILETIME_0 + 9999, 1 << 30)]),
                     ["--trace-lba-map", "scale", "--trace-extent", str(1 << 29)], LEAD + 2,
                     f"are beyond --trace-extent {1 << 29}"),
    # 10^6 s later, scaled by 10: 115 days
    "time-limit": ("t.csv", msr_rows(good_msr() + [(FILETIME_0 + 10 ** 13, 0)]),
                   ["--trace-time", "scale=10"], LEAD + 2, "beyond the 104 days"),
    "femu-beyond-device": ("t.trace", femu_v3("W 9999 99999999 8 1 0\n"), [], LEAD + 2,
                           "are beyond the device's"),
    "fdp-handle": ("t.trace", femu_v3("W 9999 0 8 1 5\n"),
                   ["--set", "placement=fdp", "--set", "fdp_ruhs=2"], LEAD + 2,
                   "handle 5 is not below fdp_ruhs (2)"),
    "zone-without-zones": ("t.trace", femu_v3("ZW 9999 0 8 2\n"), [], LEAD + 2,
                           "a zone record needs a zoned namespace"),
}


@pytest.fixture(autouse=True)
def _in_repo(monkeypatch, repo_root):
    monkeypatch.chdir(repo_root)


@pytest.mark.parametrize("case", sorted(CASES))
def test_late_refusal_writes_no_output(run_ftl_sim, tmp_path, case):
    name, content, extra, line, words = CASES[case]
    trace = tmp_path / name
    trace.write_text(content)
    stats, summ, rec = tmp_path / "stats", tmp_path / "s.json", tmp_path / "rec.trace"
    proc = run_ftl_sim(*SMALL, "--trace", trace, *extra, "--stats-dir", stats,
                       "--summary", summ, "--trace-out", rec, check=False)
    assert proc.returncode == 2, proc.stderr
    lines = [x for x in proc.stderr.splitlines() if not x.startswith("trace: ")]  # detection
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"ftl-sim: {trace}:{line}: ") and words in lines[0], lines
    assert not stats.exists() and not summ.exists() and not rec.exists()


@pytest.mark.parametrize("case", ["lba-map-refuse", "trace-extent", "time-limit"])
def test_convert_refuses_before_touching_out(femu_trace, tmp_path, case):
    name, content, extra, line, words = CASES[case]
    trace, out = tmp_path / name, tmp_path / "out.femu"
    trace.write_text(content)
    out.write_text("old\n")
    proc = subprocess.run([str(femu_trace), "convert", trace, out, "--to", "femu",
                           "--device-bytes", str(48 << 20), *extra], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 2, proc.stderr
    lines = [x for x in proc.stderr.splitlines() if not x.startswith("trace: ")]
    assert len(lines) == 1 and f"{trace}:{line}: " in lines[0] and words in lines[0], lines
    assert out.read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([name, "out.femu"])
