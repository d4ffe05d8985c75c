"""Addresses through femu-trace info and convert: a range whose end is beyond 2^64 bytes
is refused with FILE:LINE (it used to wrap into a small request at a low address), SPC
regions of --trace-asu offset do not wrap, --trace-lba-map scale moves every address in
proportion, and the footprint of huge requests is exact."""
import json
import subprocess

import pytest

CAP = 1 << 20   # --device-bytes of the conversions below


def run(femu_trace, *args):
    return subprocess.run([str(femu_trace), *map(str, args)], capture_output=True, text=True,
                          timeout=300)


def one_error(proc):
    lines = [x for x in proc.stderr.splitlines() if not x.startswith("trace: ")]
    assert proc.returncode == 2 and len(lines) == 1, proc.stderr
    return lines[0]


# 2^55 + 8 sectors * 512 wraps to 4 KiB
HUGE = ["W 8 36028797018963976\n", "V 2\nW 0 8 36028797018963976 1 0\n",
        "V 2\nD 0 1 0 8 16 36028797018963976\n"]


@pytest.mark.parametrize("content", HUGE, ids=["v1-W", "v2-W", "v2-D"])
def test_femu_range_beyond_2_64_bytes_is_refused(femu_trace, tmp_path, content):
    src, out = tmp_path / "huge.trace", tmp_path / "out.femu"
    src.write_text(content)
    line = content.count("\n")
    assert f"{src}:{line}: " in one_error(run(femu_trace, "info", src))
    assert f"{src}:{line}: " in one_error(run(femu_trace, "convert", src, out, "--to", "femu"))
    assert not out.exists()


def test_spc_asu_offset_does_not_wrap(femu_trace, tmp_path):
    src = tmp_path / "t.spc"
    src.write_text("0,0,4096,w,0.0\n16777216,0,4096,w,0.1\n")
    error = one_error(run(femu_trace, "info", src, "--trace-asu", "offset"))
    assert f"{src}:2: ASU 16777216's region (ASU x 2^40 bytes) is beyond 2^64 bytes" in error
    # as a stream tag it is fine
    assert run(femu_trace, "info", src, "--trace-asu", "stream").returncode == 0


def converted_offsets(femu_trace, tmp_path, requests, *args):
    """The femu W records' (offset, length) in bytes after convert --to femu."""
    src, out = tmp_path / "t.trace", tmp_path / "out.femu"
    src.write_text("".join(f"W {off // 512} {size // 512}\n" for off, size in requests))
    proc = run(femu_trace, "convert", src, out, "--to", "femu", "--device-bytes", CAP, *args)
    assert proc.returncode == 0, proc.stderr
    words = [line.split() for line in out.read_text().splitlines() if line.startswith("W")]
    return [(int(w[2]) * 512, int(w[3]) * 512) for w in words]


def test_scale_moves_every_address_in_proportion(femu_trace, tmp_path):
    # extent 2 x the device: each offset halves, rounded down to its alignment; the last,
    # cap - 4 KiB + 4 KiB, would cross the end and ends there
    requests = [(0, 4096), (CAP // 2, 4096), (CAP, 4096), (2 * CAP - 4096, 4096),
                (CAP + 1536, 512), (2 * CAP - 8192, 8192)]
    got = converted_offsets(femu_trace, tmp_path, requests, "--trace-lba-map", "scale")
    assert got == [(0, 4096), (CAP // 4, 4096), (CAP // 2, 4096), (CAP - 4096, 4096),
                   (CAP // 2 + 512, 512), (CAP - 8192, 8192)]


def test_scale_leaves_a_trace_that_fits(femu_trace, tmp_path):
    requests = [(0, 4096), (CAP // 2, 4096), (CAP - 4096, 4096)]
    assert converted_offsets(femu_trace, tmp_path, requests, "--trace-lba-map", "scale") == \
        requests


def test_scale_refuses_beyond_a_given_extent(femu_trace, tmp_path):
    src, out = tmp_path / "t.trace", tmp_path / "out.femu"
    src.write_text("W 0 8\nW 4096 16\n")
    error = one_error(run(femu_trace, "convert", src, out, "--to", "femu", "--device-bytes",
                          CAP, "--trace-lba-map", "scale", "--trace-extent", 2 * CAP + 4096))
    assert f"{src}:2: bytes {2 * CAP}..{2 * CAP + 8191} are beyond --trace-extent " \
           f"{2 * CAP + 4096}" in error
    assert not out.exists()


def test_footprint_of_huge_requests_is_exact(femu_trace, tmp_path):
    """40 requests just under 4 TiB each, 4 KiB apart: their union is 4 TiB - 8 KiB, every
    page below the bitmap's cap, so the count is exact (and the bitmap filled a word at a
    time, not a page at a time)."""
    page, tib4 = 4096, 1 << 42
    length = tib4 - 41 * page
    src = tmp_path / "huge.trace"
    src.write_text("".join(f"W {i * page // 512} {length // 512}\n" for i in range(40)))
    proc = run(femu_trace, "info", src, "--json")
    assert proc.returncode == 0, proc.stderr
    facts = json.loads(proc.stdout)
    assert facts["footprint_bytes"] == 39 * page + length
    assert facts["footprint_approximate"] is False
