"""The trace options on femu's own format in ftl-sim: each is applied or refused, never
dropped (they used to be accepted and ignored). --trace-time scale=F scales the recorded
times; --trace-lba-map moves W/R/D records as femu-trace convert does (zone and copy
records refused with FILE:LINE); --trace-skip-bad counts and passes over bad lines."""
import json
import subprocess

import pytest

SMALL = ["--config", "conf/lab-1g.conf", "--set", "luns_per_ch=2", "--set", "pgs_per_blk=64",
         "--set", "ssd_size=48"]
CAPACITY = 50331648     # SMALL's logical bytes (ftl-sim --print-config)
ZONED = ["--config", "conf/lab-1g.conf", "--config", "conf/nand/mlc.conf",
         "--set", "ch_xfer_lat=0", "--set", "zoned=1", "--set", "zones=8",
         "--set", "zone_luns=4", "--set", "zone_cap=8M"]
COUNTERS = ("reads", "writes", "host_write_pages", "host_read_pages", "gc_write_pages",
            "erased_blocks")


@pytest.fixture(autouse=True)
def _in_repo(monkeypatch, repo_root):
    monkeypatch.chdir(repo_root)


def summary(run_ftl_sim, tmp_path, *args, config=SMALL):
    out = tmp_path / "summary.json"
    if out.exists():
        out.unlink()
    run_ftl_sim(*config, *args, "--summary", out)
    return json.loads(out.read_text())


def far_trace():
    """Version 2, 1 ms apart: writes and reads at 1 GiB and up (beyond the 48 MiB device),
    one D of two ranges, and requests inside the device."""
    lines = ["V 2"]
    for i in range(64):
        lba = ((1 << 30) + i * 65536) // 512 if i % 2 else i * 8
        lines.append(f"W {i * 1000000} {lba} 8 1 0")
    lines.append(f"R 64000000 {(1 << 30) // 512} 8 1")
    lines.append(f"D 65000000 1 {(2 << 30) // 512} 8 16 8")
    return "\n".join(lines) + "\n"


def test_time_scale_applies_to_femu_times(run_ftl_sim, tmp_path):
    path = tmp_path / "t.trace"
    path.write_text("V 2\n" + "".join(f"W {i * 1000000} {i * 8} 8 1 0\n" for i in range(6)))
    base = summary(run_ftl_sim, tmp_path, "--trace", path)
    slow = summary(run_ftl_sim, tmp_path, "--trace", path, "--trace-time", "scale=10")
    assert base["sim_time_s"] < 0.006 < 0.05 < slow["sim_time_s"] < 0.051
    assert {k: slow[k] for k in COUNTERS} == {k: base[k] for k in COUNTERS}


@pytest.mark.parametrize("mode", ["modulo", "scale"])
def test_lba_map_applies_to_femu_records_as_convert_does(run_ftl_sim, femu_trace, tmp_path,
                                                          mode):
    path, converted = tmp_path / "far.trace", tmp_path / "converted.trace"
    path.write_text(far_trace())
    proc = run_ftl_sim(*SMALL, "--trace", path, check=False)
    assert proc.returncode == 2 and f"{path}:3: " in proc.stderr     # refused by default
    subprocess.run([str(femu_trace), "convert", str(path), str(converted), "--to", "femu",
                    "--trace-lba-map", mode, "--device-bytes", str(CAPACITY)], check=True,
                   capture_output=True)
    mapped = summary(run_ftl_sim, tmp_path, "--trace", path, "--trace-lba-map", mode)
    want = summary(run_ftl_sim, tmp_path, "--trace", converted)
    assert {k: mapped[k] for k in COUNTERS} == {k: want[k] for k in COUNTERS}
    assert mapped["writes"] == 64 and mapped["reads"] == 1
    assert mapped["trace_input"]["lba_map"] == mode
    # modulo moves the 33 W/R records beyond the device and the D's first range
    assert mapped["trace_input"]["remapped"] == (34 if mode == "modulo" else 66)


def test_lba_map_refuses_zone_records(run_ftl_sim, tmp_path):
    path = tmp_path / "z.trace"
    path.write_text("V 3\nW 0 0 8 1 0\nZW 10 0 8 2\n")
    proc = run_ftl_sim(*ZONED, "--trace", path, "--trace-lba-map", "modulo", check=False)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == \
        [f"ftl-sim: {path}:3: --trace-lba-map cannot move zone/copy records"]


def test_skip_bad_applies_to_femu_lines(run_ftl_sim, tmp_path):
    path = tmp_path / "bad.trace"
    good = [f"W {i * 1000} {i * 8} 8 1 0" for i in range(10)]
    path.write_text("\n".join(["V 2", *good[:4], "W x 0 8 1 0", *good[4:], "Q 1 2",
                               ""]))
    proc = run_ftl_sim(*SMALL, "--trace", path, check=False)
    assert proc.returncode == 2 and f"{path}:6: time 'x'" in proc.stderr
    s = summary(run_ftl_sim, tmp_path, "--trace", path, "--trace-skip-bad")
    assert s["writes"] == 10
    assert s["trace_input"]["skipped_bad"] == 2 and s["trace_input"]["records"] == 10
