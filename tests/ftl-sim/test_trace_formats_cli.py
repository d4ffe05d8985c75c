"""ftl-sim and femu-trace on real-world trace formats (tools/trace-in): detection of each
format, bad lines (FILE:LINE, exit 2, no output files), --trace-skip-bad, the LBA maps,
the clock, round trips through femu-trace convert, and ftl-sim's counters for the same
requests given in different formats."""
import gzip
import json
import lzma
import os
import pathlib
import subprocess

import pytest

LAB_1G = "conf/lab-1g.conf"
SMALL = ["--config", LAB_1G, "--set", "luns_per_ch=2", "--set", "pgs_per_blk=64",
         "--set", "ssd_size=48"]
FILETIME_0 = 128166372000000000     # an MSR trace's first timestamp (100 ns units)

# The same six requests (offset bytes, length bytes, read?) at 0, 1, ... 5 ms.
REQUESTS = [(0, 4096, False), (8192, 16384, False), (4096, 4096, True),
            (1 << 20, 65536, False), (0, 8192, True), (65536, 4096, False)]


def msr(requests=REQUESTS, header=True):
    lines = ["Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime"] if header else []
    for i, (off, size, read) in enumerate(requests):
        t = FILETIME_0 + i * 10000
        lines.append(f"{t},hm,0,{'Read' if read else 'Write'},{off},{size},100")
    return "\r\n".join(lines) + "\r\n"


def spc(requests=REQUESTS):
    return "".join(f"0,{off // 512},{size},{'r' if read else 'w'},{i / 1000:.6f}\n"
                   for i, (off, size, read) in enumerate(requests))


def blkparse(requests=REQUESTS):
    lines = []
    for i, (off, size, read) in enumerate(requests):
        for action in ("Q", "G", "C"):
            lines.append(f"  8,0    0  {3 * i + 1}  0.{i:03d}000000  77  {action}  "
                         f"{'R' if read else 'WS'} {off // 512} + {size // 512} [fio]")
    lines += ["CPU0 (8,0):", " Reads Queued:  2,  12KiB\t Writes Queued:  4,  88KiB",
              "Total (8,0):"]
    return "\n".join(lines) + "\n"


def fio_v3(requests=REQUESTS):
    lines = ["fio version 3 iolog", "0 /dev/sdb add", "0 /dev/sdb open"]
    lines += [f"{i * 1000} /dev/sdb {'read' if read else 'write'} {off} {size}"
              for i, (off, size, read) in enumerate(requests)]
    return "\n".join(lines + ["6000 /dev/sdb close"]) + "\n"


def fio_v2(requests=REQUESTS):
    lines = ["fio version 2 iolog", "/dev/sdb add", "/dev/sdb open"]
    for off, size, read in requests:
        lines += [f"/dev/sdb {'read' if read else 'write'} {off} {size}",
                  "/dev/sdb wait 1000 0"]
    return "\n".join(lines + ["/dev/sdb close"]) + "\n"


def mqsim(requests=REQUESTS):
    return "".join(f"{i * 1000000} 0 {off // 512} {size // 512} {1 if read else 0}\n"
                   for i, (off, size, read) in enumerate(requests))


def disksim(requests=REQUESTS):
    return "".join(f"{i}.000000 0 {off // 512} {size // 512} {1 if read else 0}\n"
                   for i, (off, size, read) in enumerate(requests))


def femu(requests=REQUESTS):
    lines = ["V 2"]
    for i, (off, size, read) in enumerate(requests):
        t = i * 1000000
        lines.append(f"R {t} {off // 512} {size // 512} 1" if read
                     else f"W {t} {off // 512} {size // 512} 1 0")
    return "\n".join(lines) + "\n"


FORMATS = {"msr": msr, "spc": spc, "blkparse": blkparse, "fio-iolog": fio_v3, "mqsim": mqsim,
           "disksim": disksim, "femu": femu}


@pytest.fixture(autouse=True)
def _in_repo(monkeypatch, repo_root):
    monkeypatch.chdir(repo_root)


@pytest.fixture(scope="session")
def femu_trace():
    build = pathlib.Path(os.environ.get("FEMU_BUILD_DIR",
                                        pathlib.Path(__file__).parents[2] / "build/release"))
    path = build / "tools" / "femu-trace" / "femu-trace"
    if not path.exists():
        pytest.fail(f"{path} is missing: build it with tests/run.sh")

    def run(*args, check=True):
        proc = subprocess.run([str(path), *map(str, args)], capture_output=True, text=True,
                              timeout=120)
        if check and proc.returncode != 0:
            raise AssertionError(f"femu-trace {args} failed ({proc.returncode}): "
                                 f"{proc.stderr}")
        return proc
    return run


def info(femu_trace, path, *args):
    return json.loads(femu_trace("info", path, "--json", *args).stdout)


def summary(run_ftl_sim, tmp_path, *args):
    out = tmp_path / "summary.json"
    if out.exists():
        out.unlink()
    run_ftl_sim(*SMALL, *args, "--summary", out)
    return json.loads(out.read_text())


COUNTERS = ("reads", "writes", "host_write_pages", "host_read_pages", "gc_write_pages",
            "erased_blocks")


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_each_format_is_detected_and_read(femu_trace, tmp_path, name):
    path = tmp_path / f"t.{name}"
    path.write_text(FORMATS[name]())
    proc = femu_trace("info", path, "--json")
    facts = json.loads(proc.stdout)
    assert facts["format"] == name
    if name != "femu":
        assert f"detected format {name}" in proc.stderr
    assert (facts["records"], facts["reads"], facts["writes"]) == (6, 2, 4)
    assert facts["bytes_read"] == 4096 + 8192
    assert facts["bytes_written"] == 4096 + 16384 + 65536 + 4096
    assert facts["span_ns"] == 5000000
    # pages 0-5 and 16, 256-271: 4 KiB pages touched
    assert facts["footprint_bytes"] == (6 + 16 + 1) * 4096
    assert facts["size_histogram"] == {"4096": 3, "8192": 1, "16384": 1, "65536": 1}


def test_fio_version2_times_are_the_sum_of_waits(femu_trace, tmp_path):
    path = tmp_path / "v2.iolog"
    path.write_text(fio_v2())
    facts = info(femu_trace, path)
    assert facts["format"] == "fio-iolog" and facts["span_ns"] == 5000000


@pytest.mark.parametrize("compress", [gzip.compress, lzma.compress])
def test_compressed_input(femu_trace, run_ftl_sim, tmp_path, compress):
    path = tmp_path / "t.csv.z"
    path.write_bytes(compress(msr().encode()))
    assert info(femu_trace, path)["records"] == 6
    s = summary(run_ftl_sim, tmp_path, "--trace", path)
    assert (s["reads"], s["writes"]) == (2, 4)


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_same_requests_in_every_format_give_the_same_counters(run_ftl_sim, tmp_path, name):
    path, ref = tmp_path / f"t.{name}", tmp_path / "ref.femu"
    path.write_text(FORMATS[name]())
    ref.write_text(femu())
    got = summary(run_ftl_sim, tmp_path, "--trace", path)
    want = summary(run_ftl_sim, tmp_path, "--trace", ref)
    assert {k: got[k] for k in COUNTERS} == {k: want[k] for k in COUNTERS}
    assert got["trace_input"]["format"] == name
    assert got["trace_input"]["records"] == 6
    # open loop at the recorded times: the last request arrives 5 ms in
    assert got["sim_time_s"] == pytest.approx(want["sim_time_s"])


@pytest.mark.parametrize("name,content,line_and_error", [
    ("bad.csv", msr() + f"{FILETIME_0},hm,0,Rd,0,4096,1\n" + msr(header=False),
     "8: Type 'Rd' is not Read or Write"),
    # femu's own format is checked whole before the replay too (a file, not stdin)
    ("bad.trace", "V 2\nW 0 0 8 1 0\nW 10 8 8 1 0\nW x 8 8 1 0\n",
     "4: time 'x' is not a decimal number")], ids=["msr", "femu"])
def test_bad_line_exits_2_naming_file_and_line_and_writes_nothing(run_ftl_sim, tmp_path, name,
                                                                  content, line_and_error):
    path = tmp_path / name
    path.write_text(content)
    stats, summ, rec = tmp_path / "stats", tmp_path / "s.json", tmp_path / "rec.trace"
    proc = run_ftl_sim(*SMALL, "--trace", path, "--stats-dir", stats, "--summary", summ,
                       "--trace-out", rec, check=False)
    assert proc.returncode == 2
    errors = [line for line in proc.stderr.splitlines() if line.startswith("ftl-sim:")]
    assert errors == [f"ftl-sim: {path}:{line_and_error}"]
    assert not stats.exists() and not summ.exists() and not rec.exists()


def test_skip_bad_counts_in_the_summary(run_ftl_sim, tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text(msr() + "garbage\n" + f"{FILETIME_0},hm,0,Write,0,0,1\n")
    s = summary(run_ftl_sim, tmp_path, "--trace", path, "--trace-skip-bad")
    t = s["trace_input"]
    assert (t["records"], t["skipped_bad"], t["zero_length"]) == (6, 1, 1)
    assert s["writes"] == 4


def test_filters(femu_trace, run_ftl_sim, tmp_path):
    path = tmp_path / "two.csv"
    other = msr(header=False).replace(",hm,0,", ",prn,1,")
    path.write_text(msr() + other)
    assert info(femu_trace, path)["records"] == 12
    assert info(femu_trace, path, "--trace-host", "prn")["records"] == 6
    assert info(femu_trace, path, "--trace-disk", "0")["filtered"] == 6
    s = summary(run_ftl_sim, tmp_path, "--trace", path, "--trace-host", "hm")
    assert s["trace_input"]["filtered"] == 6 and s["trace_input"]["filters"] == "host=hm"


def test_lba_maps(run_ftl_sim, tmp_path):
    far = [(off + (100 << 30), size, read) for off, size, read in REQUESTS]
    path = tmp_path / "far.csv"
    path.write_text(msr(far))
    proc = run_ftl_sim(*SMALL, "--trace", path, check=False)
    assert proc.returncode == 2
    assert f"{path}:2: bytes {100 << 30}..{(100 << 30) + 4095} are beyond the device" \
        in proc.stderr
    s = summary(run_ftl_sim, tmp_path, "--trace", path, "--trace-lba-map", "modulo")
    assert s["trace_input"]["remapped"] == 6 and s["writes"] == 4
    s = summary(run_ftl_sim, tmp_path, "--trace", path, "--trace-lba-map", "scale")
    assert s["trace_input"]["lba_map"] == "scale" and s["writes"] == 4
    s = summary(run_ftl_sim, tmp_path, "--trace", path, "--trace-lba-map", "scale",
                "--trace-extent", str(200 << 30))
    assert s["writes"] == 4


def test_convert_lba_map_folds_into_device_bytes(femu_trace, tmp_path):
    src, out = tmp_path / "far.csv", tmp_path / "out.iolog"
    src.write_text(msr([(1 << 30, 4096, False), ((1 << 30) + 4096, 4096, False)]))
    proc = femu_trace("convert", src, out, "--to", "fio-iolog", "--device-bytes", str(1 << 20),
                      check=False)
    assert proc.returncode == 2 and f"{src}:2: bytes" in proc.stderr and not out.exists()
    femu_trace("convert", src, out, "--to", "fio-iolog", "--trace-lba-map", "modulo",
               "--device-bytes", str(1 << 20))
    assert [line.split()[3] for line in out.read_text().splitlines()[3:5]] == ["0", "4096"]
    femu_trace("convert", src, out, "--to", "fio-iolog", "--trace-lba-map", "scale",
               "--device-bytes", str(1 << 20))
    # the extent is 2^30 + 8192: 2^30 scales to just below 2^20, rounded down to 4 KiB,
    # and both end at the device's end
    assert [line.split()[3] for line in out.read_text().splitlines()[3:5]] == \
        ["1044480", "1044480"]
    femu_trace("convert", src, out, "--to", "fio-iolog", "--trace-lba-map", "scale",
               "--device-bytes", str(1 << 20), "--trace-extent", str(1 << 31))
    # 2^30 and 2^30 + 4096 scaled by 2^20 / 2^31: both in the page at 2^19
    assert [line.split()[3] for line in out.read_text().splitlines()[3:5]] == \
        ["524288", "524288"]


def test_time_scale_and_closed_loop(run_ftl_sim, tmp_path):
    path = tmp_path / "t.csv"
    path.write_text(msr())
    base = summary(run_ftl_sim, tmp_path, "--trace", path)
    slow = summary(run_ftl_sim, tmp_path, "--trace", path, "--trace-time", "scale=10")
    assert base["sim_time_s"] < 0.006 < 0.05 < slow["sim_time_s"] < 0.051
    closed = summary(run_ftl_sim, tmp_path, "--trace", path, "--trace-time", "closed-loop",
                     "--qd", "4")
    assert closed["sim_time_s"] < 0.005
    assert {k: closed[k] for k in COUNTERS} == {k: base[k] for k in COUNTERS}
    proc = run_ftl_sim(*SMALL, "--trace", path, "--trace-time", "scale=-1", check=False)
    assert proc.returncode == 2 and "--trace-time" in proc.stderr


def test_round_trips(femu_trace, tmp_path):
    src, fio, back = tmp_path / "a.femu", tmp_path / "a.iolog", tmp_path / "b.femu"
    src.write_text(femu() + "D 6000000 1 0 8\nF 7000000 1\n")
    femu_trace("convert", src, fio, "--to", "fio-iolog", "--fio-file", "/dev/x")
    lines = fio.read_text().splitlines()
    assert lines[:3] == ["fio version 3 iolog", "0 /dev/x add", "0 /dev/x open"]
    assert lines[-3:] == ["6000 /dev/x trim 0 4096", "7000 /dev/x sync 0 0",
                          "7000 /dev/x close"]
    femu_trace("convert", fio, back, "--to", "femu")
    records = lambda p: [l for l in p.read_text().splitlines() if l[:1] in "WRDF"]
    assert records(back) == records(src)
    m, from_msr = tmp_path / "m.csv", tmp_path / "m.femu"
    m.write_text(msr())
    femu_trace("convert", m, from_msr, "--to", "femu")
    assert records(from_msr) == femu().splitlines()[1:]
    mq = tmp_path / "m.mqsim"
    femu_trace("convert", m, mq, "--to", "mqsim")
    assert mq.read_text() == mqsim()


def test_convert_failure_leaves_nothing(femu_trace, tmp_path):
    src, out = tmp_path / "bad.csv", tmp_path / "out.iolog"
    src.write_text(msr() + "1,2,3\n")
    proc = femu_trace("convert", src, out, "--to", "fio-iolog", check=False)
    assert proc.returncode == 2 and f"{src}:8: want 7 comma-separated fields" in proc.stderr
    assert list(tmp_path.iterdir()) == [src]


@pytest.mark.parametrize("args, message", [
    (["--trace-format", "csv"], "--trace-format: 'csv' is not one of auto, msr"),
    (["--trace-lba-map", "wrap"], "--trace-lba-map: 'wrap' is not one of"),
    (["--trace-events", "D"], "--trace-events: 'D' is not one of queue, complete"),
])
def test_bad_trace_options_exit_2(run_ftl_sim, femu_trace, tmp_path, args, message):
    path = tmp_path / "t.csv"
    path.write_text(msr())
    proc = run_ftl_sim(*SMALL, "--trace", path, *args, check=False)
    assert proc.returncode == 2 and message in proc.stderr
    proc = femu_trace("info", path, *args, check=False)
    assert proc.returncode == 2 and message in proc.stderr


def test_unknown_content_and_empty_trace_exit_2(run_ftl_sim, tmp_path):
    junk, empty = tmp_path / "junk", tmp_path / "empty.csv"
    junk.write_text("hello world\n")
    empty.write_text("Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime\n")
    proc = run_ftl_sim(*SMALL, "--trace", junk, check=False)
    assert proc.returncode == 2 and "cannot tell the trace format" in proc.stderr
    proc = run_ftl_sim(*SMALL, "--trace", empty, check=False)
    assert proc.returncode == 2 and "no usable request" in proc.stderr


def test_femu_records_that_are_not_block_requests_are_counted(femu_trace, tmp_path):
    """femu's own trace may hold requests no block format has (here a Verify, a zone-less
    Format, a write cache switch, key-value commands with a store's life and an Identify):
    info counts them apart, convert leaves them out and says how many, never silently."""
    path = tmp_path / "mixed.trace"
    path.write_text("V 8\nP 0 run\nKC 1 2 0 2048 65536\nW 2 0 8 1 0\nKS 3 2 6b 10 1 0\n"
                    "Y 4 0 8 1\nWC 5 1 1\nR 6 0 8 1\nX 7 1 0 8 0\nKX 8 2\n"
                    "N 9 1 admin 0 4096\nPS 9 3\nPA 9 1 100:3\nPG 9\nE 9\n")
    facts = info(femu_trace, path)
    assert (facts["records"], facts["writes"], facts["reads"]) == (2, 1, 1)
    assert facts["not_block"] == 10
    assert "not block       10 (verify" in femu_trace("info", path).stdout
    out = tmp_path / "mixed.fio"
    proc = femu_trace("convert", path, out, "--to", "fio-iolog")
    assert "10 verify, format, zone, copy, FDP, write cache, key-value, admin or power " \
           "requests are not block requests: left out" in proc.stderr
    assert sum(1 for line in out.read_text().splitlines()
               if " write " in line or " read " in line) == 2
