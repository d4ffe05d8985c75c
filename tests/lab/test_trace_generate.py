"""`femu-lab trace generate`: one seeded request stream written in every trace format.
Each format's lines are read back here by hand (its own units: filetime ticks, sectors,
seconds, ms, µs, ns) and must give the very requests the stream holds."""
import gzip
import lzma
import os
import stat

import pytest

from femu_lab.traces import generate, requests
from femu_lab.traces.writers import MSR_EPOCH_TICKS, WRITERS
from lab_calls import lab

SEED, RECORDS, FOOTPRINT = 7, 300, 64 << 20


def expected():
    return [(r.time_us, r.op, r.offset, r.length)
            for r in requests.synthetic(RECORDS, SEED, FOOTPRINT)]


def _csv_fields(text):
    return [line.split(",") for line in text.splitlines()]


def parse_msr(text):
    return [((int(t) - MSR_EPOCH_TICKS) // 10, {"Read": "R", "Write": "W"}[kind], int(off),
             int(size)) for t, host, disk, kind, off, size, _ in _csv_fields(text)]


def parse_spc(text):
    return [(round(float(t) * 1e6), op.upper(), int(lba) * 512, int(size))
            for asu, lba, size, op, t in _csv_fields(text)]


def parse_blkparse(text, action="Q"):
    rows = []
    for line in text.splitlines():
        fields = line.split()
        if len(fields) == 11 and fields[5] == action:   # dev cpu seq time pid Q rwbs s + n [p]
            rows.append((round(float(fields[3]) * 1e6), fields[6], int(fields[7]) * 512,
                         int(fields[9]) * 512))
    return rows


def parse_fio_v3(text):
    lines = text.splitlines()
    assert lines[:3] == ["fio version 3 iolog", "0 /dev/nvme0n1 add", "0 /dev/nvme0n1 open"]
    assert lines[-1].split()[1:] == ["/dev/nvme0n1", "close"]
    return [(int(t), {"read": "R", "write": "W"}[act], int(off), int(size))
            for t, name, act, off, size in (line.split() for line in lines[3:-1])]


def parse_fio_v2(text):
    lines = text.splitlines()
    assert lines[:3] == ["fio version 2 iolog", "/dev/nvme0n1 add", "/dev/nvme0n1 open"]
    assert lines[-1] == "/dev/nvme0n1 close"
    return [({"read": "R", "write": "W"}[act], int(off), int(size))
            for name, act, off, size in (line.split() for line in lines[3:-1])]


def parse_mqsim(text):
    return [(int(t) // 1000, "R" if kind == "1" else "W", int(start) * 512, int(n) * 512)
            for t, dev, start, n, kind in (line.split() for line in text.splitlines())]


def parse_disksim(text):
    return [(round(float(t) * 1000), "R" if int(flags) & 1 else "W", int(blk) * 512,
             int(n) * 512)
            for t, dev, blk, n, flags in (line.split() for line in text.splitlines())]


def parse_femu(text):
    lines = text.splitlines()
    assert lines[0] == "V 2"
    rows = []
    for fields in (line.split() for line in lines[1:] if not line.startswith("#")):
        if fields[0] in "RW":
            assert fields[4] == "1"                              # namespace 1
            rows.append((int(fields[1]) // 1000, fields[0], int(fields[2]) * 512,
                         int(fields[3]) * 512))
    assert lines[-1] == f"E {rows[-1][0] * 1000}"
    return rows


PARSERS = {"msr": parse_msr, "spc": parse_spc, "blkparse": parse_blkparse,
           "fio-iolog": parse_fio_v3, "mqsim": parse_mqsim, "disksim": parse_disksim,
           "femu": parse_femu}


def test_every_writer_has_a_reader_here():
    assert set(WRITERS) == set(PARSERS) | {"fio-iolog-v2"}


@pytest.mark.parametrize("fmt", sorted(PARSERS))
def test_each_format_holds_the_seeded_requests(fmt, tmp_path):
    out = tmp_path / f"trace.{fmt}"
    counts = generate.generate(out, fmt, RECORDS, SEED, FOOTPRINT, progress=False)
    assert PARSERS[fmt](out.read_text()) == expected()
    assert counts.records == RECORDS
    assert counts.reads + counts.writes == RECORDS


def test_the_untimed_fio_iolog_holds_the_requests_in_order(tmp_path):
    out = tmp_path / "trace.iolog"
    generate.generate(out, "fio-iolog-v2", RECORDS, SEED, FOOTPRINT, progress=False)
    assert parse_fio_v2(out.read_text()) == [row[1:] for row in expected()]


def test_known_first_lines_and_counts(tmp_path):
    """The stream is fixed by its seed: these are the lines seed 7 gives, for good (a read
    at 0, a write 344 µs later, then a read that continues it sequentially)."""
    msr, spc = tmp_path / "trace.msr", tmp_path / "trace.spc"
    counts = generate.generate(msr, "msr", RECORDS, SEED, FOOTPRINT, progress=False)
    generate.generate(spc, "spc", RECORDS, SEED, FOOTPRINT, progress=False)
    assert msr.read_text().splitlines()[:3] == [
        "128166372000000000,hm,0,Read,9719808,4096,700",
        "128166372000003440,hm,0,Write,28815360,4096,300",
        "128166372000003520,hm,0,Read,28819456,8192,800"]
    assert spc.read_text().splitlines()[:3] == [
        "0,18984,4096,r,0.000000", "0,56280,4096,w,0.000344", "0,56288,8192,r,0.000352"]
    rows = expected()
    assert counts.reads == sum(1 for row in rows if row[1] == "R")
    assert counts.bytes_written == sum(row[3] for row in rows if row[1] == "W")
    assert counts.span_ns == rows[-1][0] * 1000
    assert all(row[2] % 4096 == 0 and row[3] % 4096 == 0 and row[2] + row[3] <= FOOTPRINT
               for row in rows)


def test_the_read_fraction_and_footprint_are_honoured():
    rows = list(requests.synthetic(5000, 3, footprint=8 << 20, read_fraction=0.8))
    reads = sum(1 for r in rows if r.is_read)
    assert 0.75 < reads / len(rows) < 0.85
    assert max(r.offset + r.length for r in rows) <= 8 << 20
    assert all(not r.is_read for r in requests.synthetic(200, 3, read_fraction=0.0))


def test_the_same_seed_gives_the_same_file_and_another_seed_another(tmp_path):
    paths = [tmp_path / name for name in ("a.spc", "b.spc", "c.spc")]
    for path, seed in zip(paths, (5, 5, 6)):
        generate.generate(path, "spc", 500, seed, progress=False)
    assert paths[0].read_bytes() == paths[1].read_bytes()
    assert paths[0].read_bytes() != paths[2].read_bytes()


@pytest.mark.parametrize("suffix, opener", [(".gz", gzip.open), (".xz", lzma.open)])
def test_the_suffix_compresses(suffix, opener, tmp_path):
    plain, packed = tmp_path / "t.mqsim", tmp_path / f"t.mqsim{suffix}"
    generate.generate(plain, "mqsim", 400, 2, progress=False)
    generate.generate(packed, "mqsim", 400, 2, progress=False)
    with opener(packed, "rt") as f:
        assert f.read() == plain.read_text()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([plain.name, packed.name])


def test_blkparse_completes_every_request_and_ends_with_its_summary(tmp_path):
    out = tmp_path / "t.blkparse"
    generate.generate(out, "blkparse", RECORDS, SEED, FOOTPRINT, progress=False)
    text = out.read_text()
    queued, completed = parse_blkparse(text, "Q"), parse_blkparse(text, "C")
    assert sorted(row[1:] for row in queued) == sorted(row[1:] for row in completed)
    times = [float(line.split()[3]) for line in text.splitlines()
             if len(line.split()) == 11 and line.split()[5] in "QC"]
    assert times == sorted(times)                                # time order, as blkparse
    assert "CPU0 (8,0):" in text and "Total (8,0):" in text
    assert text.rstrip().endswith("Skips: 0 forward (0 -   0.0%)")
    assert f"Events (8,0): {2 * RECORDS} entries" in text


def test_the_command_line(capsys, tmp_path):
    out = tmp_path / "t.fio.gz"
    status, stdout, stderr = lab(capsys, "trace", "generate", "--format", "fio-iolog",
                                 "--records", "50", "--seed", "9", "--footprint", "16M",
                                 "--read-fraction", "0.5", out)
    assert status == 0 and stdout == [str(out)]
    assert "50 fio-iolog records" in stderr[-1]
    with gzip.open(out, "rt") as f:
        assert f.readline() == "fio version 3 iolog\n"


@pytest.mark.parametrize("args, message", [
    (["--format", "csv"], "invalid choice"),
    (["--footprint", "4k"], "below the largest request"),
    (["--footprint", "lots"], "is not a size"),
    (["--read-fraction", "1.5"], "not between"),
    (["--records", "0"], "not between"),
])
def test_bad_arguments_are_one_line_and_exit_2(capsys, tmp_path, args, message):
    full = {"--format": "msr", "--records": "10", **dict(zip(args[::2], args[1::2]))}
    argv = [item for pair in full.items() for item in pair]
    status, _, stderr = lab(capsys, "trace", "generate", *argv, tmp_path / "t")
    assert status == 2 and len(stderr) == 1 and message in stderr[0]
    assert not (tmp_path / "t").exists()


def test_a_large_footprint_allocates_nothing_up_front(tmp_path):
    """A bitmap of the whole footprint was allocated first (MemoryError at 4 EiB); the
    pages touched are counted as they come, and exactly."""
    out = tmp_path / "t.msr"
    counts = generate.generate(out, "msr", 200, 3, requests.MAX_FOOTPRINT, progress=False)
    rows = parse_msr(out.read_text())
    assert rows == [(r.time_us, r.op, r.offset, r.length)
                    for r in requests.synthetic(200, 3, requests.MAX_FOOTPRINT)]
    assert max(offset + length for _, _, offset, length in rows) <= requests.MAX_FOOTPRINT
    pages = {page for _, _, offset, length in rows
             for page in range(offset // 4096, (offset + length) // 4096)}
    assert counts.footprint_bytes == len(pages) * 4096


def test_the_footprint_counts_overlapping_requests_once(tmp_path):
    rows = expected()
    pages = {page for _, _, offset, length in rows
             for page in range(offset // 4096, (offset + length) // 4096)}
    counts = generate.generate(tmp_path / "t.spc", "spc", RECORDS, SEED, FOOTPRINT,
                               progress=False)
    assert counts.footprint_bytes == len(pages) * 4096 < sum(row[3] for row in rows)


@pytest.mark.parametrize("footprint, message", [
    ("8388608T", "above 4611686018427387904 (4 EiB)"),      # 2^63 bytes
    ("9" * 30 + "T", "above"),
    ("9" * 5000, "is not a size"),                          # int() refused the digits
])
def test_a_footprint_too_large_is_one_line(capsys, tmp_path, footprint, message):
    status, _, stderr = lab(capsys, "trace", "generate", "--format", "msr", "--records", "5",
                            "--footprint", footprint, tmp_path / "t")
    assert status == 2 and len(stderr) == 1 and message in stderr[0], stderr
    assert not (tmp_path / "t").exists()


def test_out_in_a_missing_folder_is_one_line(capsys, tmp_path):
    status, stdout, stderr = lab(capsys, "trace", "generate", "--format", "msr",
                                 "--records", "5", tmp_path / "no" / "t.msr")
    assert status == 2 and stdout == [] and len(stderr) == 1, stderr
    assert f"folder {tmp_path / 'no'} does not exist" in stderr[0]


def _fifo(tmp_path):
    os.mkfifo(tmp_path / "out")
    return tmp_path / "out"


def _symlink(tmp_path):
    (tmp_path / "target").write_text("kept\n")
    (tmp_path / "out").symlink_to(tmp_path / "target")
    return tmp_path / "out"


@pytest.mark.parametrize("make, says", [(_fifo, "is a FIFO"),
                                        (_symlink, "is a symbolic link")])
def test_out_that_is_not_a_regular_file_is_never_replaced(capsys, tmp_path, make, says):
    """The rename over OUT made a FIFO or a symlink a regular file (as root /dev/null)."""
    out = make(tmp_path)
    mode = os.lstat(out).st_mode
    status, stdout, stderr = lab(capsys, "trace", "generate", "--format", "msr",
                                 "--records", "5", out)
    assert status == 2 and stdout == [] and len(stderr) == 1 and says in stderr[0], stderr
    assert os.lstat(out).st_mode == mode and not stat.S_ISREG(mode)
    assert sorted(p.name for p in tmp_path.iterdir()) in (["out"], ["out", "target"])
    if (tmp_path / "target").exists():
        assert (tmp_path / "target").read_text() == "kept\n"


def test_a_failed_write_is_one_line_and_leaves_no_file(capsys, tmp_path, monkeypatch):
    def full_disk(raw, suffix):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(generate, "open_for_writing", full_disk)
    status, stdout, stderr = lab(capsys, "trace", "generate", "--format", "msr",
                                 "--records", "5", tmp_path / "t.msr")
    assert status == 1 and stdout == [] and len(stderr) == 1, stderr
    assert "No space left on device" in stderr[0] and list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("make, says", [(_fifo, "is a FIFO"),
                                        (_symlink, "is a symbolic link")])
def test_convert_never_replaces_what_is_not_a_regular_file(capsys, tmp_path, make, says,
                                                            femu_trace):
    """femu-trace convert renames over OUT as well: femu-lab checks OUT before it runs."""
    source = tmp_path / "in.msr"
    generate.generate(source, "msr", 5, 1, progress=False)
    out = make(tmp_path)
    mode = os.lstat(out).st_mode
    status, _, stderr = lab(capsys, "trace", "convert", source, out, "--to", "femu")
    assert status == 2 and len(stderr) == 1 and says in stderr[0], stderr
    assert os.lstat(out).st_mode == mode


@pytest.mark.parametrize("suffix", ["", ".gz"])
def test_a_link_at_the_partial_name_is_never_written_through(tmp_path, suffix):
    """The file written beside OUT has a known name: a symlink put there (in a shared
    folder) made the generator write into the file it points to."""
    victim = tmp_path / "victim"
    victim.write_text("kept\n")
    out = tmp_path / f"t.msr{suffix}"
    (tmp_path / f".t.msr.partial{suffix}" if suffix else tmp_path / ".t.partial.msr") \
        .symlink_to(victim)
    generate.generate(out, "msr", 20, 1, progress=False)
    assert victim.read_text() == "kept\n"
    opener = gzip.open if suffix else open
    with opener(out, "rt") as f:
        assert len(f.read().splitlines()) == 20
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["victim", out.name])


def test_convert_never_replaces_its_own_input(capsys, tmp_path, femu_trace):
    """femu-trace wrote the conversion over IN when OUT named the same file."""
    source = tmp_path / "in.msr"
    generate.generate(source, "msr", 5, 1, progress=False)
    before = source.read_bytes()
    for out in (source, tmp_path / "." / "in.msr"):
        status, _, stderr = lab(capsys, "trace", "convert", source, out, "--to", "femu")
        assert status == 2 and len(stderr) == 1 and "the same file" in stderr[0], stderr
    assert source.read_bytes() == before
