"""femu-trace through `femu-lab trace info | convert`: every generated format reads back
with the generator's own counts; conversions keep the requests; a bad line is exit 2,
FILE:LINE, and nothing written."""
import json

import pytest

from femu_lab.traces import generate
from femu_lab.traces.writers import READER_FORMAT, WRITERS
from lab_calls import lab

SEED, RECORDS, FOOTPRINT = 5, 400, 48 << 20


@pytest.fixture(autouse=True)
def _built(femu_trace):
    """femu-trace must be built (tests/conftest.py fails the test otherwise)."""


def info(capsys, path, *args):
    status, stdout, stderr = lab(capsys, "trace", "info", path, "--json", *args)
    assert status == 0, stderr
    return json.loads("\n".join(stdout))


@pytest.mark.parametrize("fmt", sorted(WRITERS))
@pytest.mark.parametrize("suffix", ["", ".gz"])
def test_info_agrees_with_the_generator_for_every_format(capsys, tmp_path, fmt, suffix):
    path = tmp_path / f"trace.{fmt}{suffix}"
    counts = generate.generate(path, fmt, RECORDS, SEED, FOOTPRINT, progress=False)
    summary = info(capsys, path)                        # detected, not told
    assert summary["format"] == READER_FORMAT[fmt]
    expected = counts.as_info()
    if fmt == "fio-iolog-v2":
        expected["span_ns"] = 0                         # no times in a version-2 iolog
    assert {key: summary[key] for key in expected} == expected
    assert summary["trims"] == summary["flushes"] == 0
    assert {int(size): n for size, n in summary["size_histogram"].items()} == counts.sizes


def test_info_in_words(capsys, tmp_path):
    path = tmp_path / "t.msr"
    generate.generate(path, "msr", RECORDS, SEED, FOOTPRINT, progress=False)
    status, stdout, _ = lab(capsys, "trace", "info", path, "--trace-format", "msr")
    assert status == 0
    assert stdout[0].startswith(f"{path}: msr trace, {RECORDS} records over ")
    assert any(line.split()[:1] == ["reads"] for line in stdout)
    assert any("footprint" in line for line in stdout)
    assert "request sizes (up to):" in [line.strip() for line in stdout]


def requests_of_femu(path):
    """(op, lba, nsect) of a femu trace's R and W records, in order."""
    return [(fields[0], int(fields[2]), int(fields[3]))
            for fields in (line.split() for line in path.read_text().splitlines())
            if fields[:1] in (["R"], ["W"])]


def times_of_femu(path):
    return [int(line.split()[1]) for line in path.read_text().splitlines()
            if line[:2] in ("R ", "W ")]


def test_msr_to_femu_to_fio_to_femu_keeps_the_requests(capsys, tmp_path):
    msr = tmp_path / "t.msr"
    generate.generate(msr, "msr", RECORDS, SEED, FOOTPRINT, progress=False)
    first, iolog, second = tmp_path / "1.femu", tmp_path / "2.iolog", tmp_path / "3.femu"
    for source, target, to in ((msr, first, "femu"), (first, iolog, "fio-iolog"),
                               (iolog, second, "femu")):
        status, _, stderr = lab(capsys, "trace", "convert", source, target, "--to", to)
        assert status == 0, stderr
    assert requests_of_femu(first) == requests_of_femu(second)
    assert times_of_femu(first) == times_of_femu(second)      # µs survive the iolog
    generated = tmp_path / "g.femu"
    generate.generate(generated, "femu", RECORDS, SEED, FOOTPRINT, progress=False)
    assert requests_of_femu(first) == requests_of_femu(generated)
    assert times_of_femu(first) == times_of_femu(generated)
    lines = iolog.read_text().splitlines()
    assert lines[0] == "fio version 3 iolog" and lines[1].endswith("/dev/nvme0n1 add")


def test_convert_fits_addresses_into_the_device(capsys, tmp_path):
    msr, out = tmp_path / "t.msr", tmp_path / "t.femu"
    generate.generate(msr, "msr", RECORDS, SEED, FOOTPRINT, progress=False)
    device = 16 << 20
    status, _, stderr = lab(capsys, "trace", "convert", msr, out, "--to", "femu",
                            "--trace-lba-map", "modulo", "--device-bytes", device)
    assert status == 0, stderr
    assert all((lba + nsect) * 512 <= device for _, lba, nsect in requests_of_femu(out))
    status, _, stderr = lab(capsys, "trace", "convert", msr, tmp_path / "x", "--to", "femu",
                            "--trace-lba-map", "refuse", "--device-bytes", device)
    assert status == 2 and not (tmp_path / "x").exists()


@pytest.mark.parametrize("fmt, lines, bad_line", [
    ("msr", ["128166372000000000,hm,0,Read,4096,4096,10",
             "128166372000000100,hm,0,Read,4096"], 2),
    ("spc", ["0,8,4096,r,0.000000", "0,8,4096,x,0.000001"], 2),
    ("mqsim", ["0 0 8 8 1", "10 0 8 8 1", "20 0 eight 8 1"], 3),
])
def test_a_bad_line_is_exit_2_with_file_and_line_and_nothing_written(capsys, tmp_path, fmt,
                                                                     lines, bad_line):
    source, target = tmp_path / f"bad.{fmt}", tmp_path / "out.iolog"
    source.write_text("\n".join(lines) + "\n")
    for args in (["convert", source, target, "--to", "fio-iolog", "--trace-format", fmt],
                 ["info", source, "--trace-format", fmt]):
        status, stdout, stderr = lab(capsys, "trace", *args)
        assert status == 2 and stdout == []
        assert any(line.startswith(f"femu-trace: {source}:{bad_line}: ") for line in stderr), \
            stderr
    assert list(tmp_path.iterdir()) == [source]


def test_reader_options_reach_femu_trace(capsys, tmp_path):
    """--trace-host / --trace-disk filter an MSR trace in info and convert, and the VM
    replay's preparation passes them on too (femu_trace.reader_args, one list)."""
    from types import SimpleNamespace
    from femu_lab.traces import femu_trace
    path = tmp_path / "t.csv"
    path.write_text("Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime\n"
                    "128166372000000000,hm,0,Write,0,4096,1\n"
                    "128166372000010000,hm,1,Write,8192,4096,1\n"
                    "128166372000020000,web,0,Read,4096,4096,1\n")
    assert info(capsys, path)["records"] == 3
    only = info(capsys, path, "--trace-host", "hm", "--trace-disk", "1")
    assert (only["records"], only["writes"], only["filtered"]) == (1, 1, 2)
    out = tmp_path / "hm1.femu"
    status, _, stderr = lab(capsys, "trace", "convert", path, out, "--to", "femu",
                            "--trace-host", "hm", "--trace-disk", "1")
    assert status == 0, stderr
    assert requests_of_femu(out) == [("W", 16, 8)]
    parsed = SimpleNamespace(trace_host="hm", trace_disk=1, trace_asu=None,
                             trace_events="complete", trace_sector_size=None,
                             trace_skip_bad=True)
    assert femu_trace.reader_args(parsed) == ["--trace-host", "hm", "--trace-disk", "1",
                                              "--trace-events", "complete", "--trace-skip-bad"]


def test_disk_0_is_a_filter_too(capsys, tmp_path):
    """reader_args dropped a 0 (0 == False): --trace-disk 0 replayed every disk."""
    path = tmp_path / "t.csv"
    path.write_text("128166372000000000,hm,0,Write,0,4096,1\n"
                    "128166372000010000,hm,1,Write,8192,4096,1\n")
    only = info(capsys, path, "--trace-disk", "0")
    assert (only["records"], only["filtered"]) == (1, 1)


@pytest.mark.parametrize("option, value", [("--trace-disk", "\u0663"),
                                           ("--trace-disk", "-1"),
                                           ("--trace-sector-size", "0"),
                                           ("--trace-sector-size", "\u0661\u0662")])
def test_reader_numbers_are_ascii_and_in_range(capsys, tmp_path, option, value):
    path = tmp_path / "t.csv"
    path.write_text("128166372000000000,hm,0,Write,0,4096,1\n")
    status, stdout, stderr = lab(capsys, "trace", "info", path, option, value)
    assert status == 2 and stdout == [] and len(stderr) == 1, stderr
    assert f"argument {option}" in stderr[0]


def test_info_prints_the_largest_address(capsys, tmp_path):
    """The end of the highest request (README: what must fit the device), in JSON and in
    words; flushes have no address."""
    path = tmp_path / "hand.msr"
    path.write_text("128166372003061629,hm,0,Write,4096,8192,100\n"
                    "128166372003061639,hm,0,Read,1048576,4096,100\n"
                    "128166372003061649,hm,0,Write,65536,4096,100\n")
    assert info(capsys, path)["extent_bytes"] == 1048576 + 4096
    status, stdout, _ = lab(capsys, "trace", "info", path)
    assert status == 0
    line = next(line for line in stdout if "largest address" in line)
    assert "1.0 MiB (1,052,672 bytes, the end of the highest request)" in line
