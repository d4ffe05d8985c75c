"""The readers (tools/trace-in) against a second reading of their documentation
(reference_reader.py): every generated trace of every format, under each option set,
read from a file, a pipe, gzip and xz, must give request for request what the reference
gives, and the same counts of bad, empty and filtered lines and of dropped requests.

The scale cases (ids with "scale") follow the new --trace-lba-map scale (every address
maps proportionally when the extent is beyond the device); where the build still has the
old one (requests inside the device stay) and the two differ, they are strict xfails."""
import dataclasses
import gzip
import json
import lzma
import random
import re
import subprocess

import pytest

import generate_traces as gen
from reference_reader import (BadLine, Options, Refused, parse_femu_output, read_trace)

pytestmark = pytest.mark.unit

DEVICE = 64 << 20                     # a small device for modulo and scale
SEEDS = (1, 2)
SECTOR_FORMATS = ("spc", "blkparse", "mqsim", "disksim")
TOTALS = {"runs": 0, "requests": 0, "traces": set(), "option_sets": set()}
MOVED = re.compile(r"(\d+) requests moved, (\d+) longer than the device dropped")


@dataclasses.dataclass
class Case:
    name: str                          # a generator of generate_traces
    seed: int
    label: str                         # names the option set
    options: Options
    via: str = "file"                  # file, pipe, gzip or xz
    bad: bool = False                  # bad lines put in (with --trace-skip-bad)
    detect: bool = False               # --trace-format auto (left out)

    def argv(self):
        args = self.options.argv()
        return args[2:] if self.detect else args

    @property
    def id(self):
        return f"{self.name}-{self.seed}-{self.label}-{self.via}"

    def trace(self):
        data = gen.generate(self.name, self.seed, sector_size=self.options.sector_size)
        if self.bad:
            rng = random.Random(self.id)
            data = gen.with_bad_lines(rng, data, gen.bad_lines(self.name, self.options.fmt))
        return data


def option_sets(name, fmt):
    """(label, Options, bad) of every option set that applies to the format."""
    sets = [("plain", Options(fmt), False),
            ("time-scale", Options(fmt, time="scale=0.37"), False),
            ("time-scale-limit", Options(fmt, time="scale=1000000"), False),
            ("closed-loop", Options(fmt, time="closed-loop"), False),
            ("modulo", Options(fmt, lba_map="modulo", device_bytes=DEVICE), False),
            ("refuse-big-device", Options(fmt, device_bytes=gen.TOP), False),
            ("lba-scale", Options(fmt, lba_map="scale", device_bytes=DEVICE), False),
            ("lba-scale-extent", Options(fmt, lba_map="scale", device_bytes=DEVICE,
                                         extent=(1 << 64) - 1), False),
            ("skip-bad", Options(fmt, skip_bad=True), True)]
    if fmt in SECTOR_FORMATS:
        sets.append(("sector-4096", Options(fmt, sector_size=4096), False))
    if fmt == "spc":
        sets.append(("asu-offset", Options(fmt, asu="offset", lba_map="modulo",
                                           device_bytes=DEVICE), False))
    if fmt == "msr":
        sets += [("host", Options(fmt, host="hm"), False),
                 ("disk", Options(fmt, disk=1), False),
                 ("host-disk", Options(fmt, host="web", disk=2), False)]
    if fmt in ("mqsim", "disksim"):
        sets.append(("disk", Options(fmt, disk=1), False))
    if fmt == "blkparse":
        sets.append(("complete", Options(fmt, events="complete"), False))
    return sets


# The option sets a second seed goes through too (the ones where limits matter most), and
# the ones whose counts femu-trace info is asked for.
SECOND_SEED = ("plain", "modulo", "lba-scale", "sector-4096")
COUNTED = ("plain", "skip-bad", "host", "disk", "host-disk", "complete", "sector-4096")
# femu's versions 3 and 4 read as version 2 for block records: two option sets do.
FEW_OPTIONS = {"femu-v3": ("plain", "time-scale"), "femu-v4": ("plain", "modulo")}


def cases():
    out = []
    for name, (_, fmt) in gen.GENERATORS.items():
        wanted = FEW_OPTIONS.get(name)
        out += [Case(name, seed, label, options, bad=bad)
                for label, options, bad in option_sets(name, fmt)
                for seed in SEEDS if (seed == 1 or label in SECOND_SEED)
                and (wanted is None or label in wanted)]
        plain, scale = Options(fmt), Options(fmt, lba_map="scale", device_bytes=DEVICE,
                                             extent=(1 << 64) - 1)
        out += [Case(name, 1, "plain", plain, via=via) for via in ("pipe", "gzip", "xz")]
        out += [Case(name, 1, "detected", plain, detect=True),
                Case(name, 1, "lba-scale-extent", scale, via="pipe"),
                Case(name, 1, "skip-bad", Options(fmt, skip_bad=True), via="gzip", bad=True)]
    return out


def stdin_and_path(case, data, tmp_path):
    """What femu-trace reads: (bytes for its stdin or None, IN argument)."""
    if case.via == "pipe":
        return data, "-"
    packed = {"file": lambda d: d, "gzip": gzip.compress, "xz": lzma.compress}[case.via](data)
    path = tmp_path / f"in.{case.name}"
    path.write_bytes(packed)
    return None, str(path)


def run(femu_trace, args, stdin=None):
    return subprocess.run([str(femu_trace), *args], input=stdin, capture_output=True,
                          timeout=60)


def convert(femu_trace, case, data, tmp_path):
    stdin, source = stdin_and_path(case, data, tmp_path)
    out = tmp_path / "out.femu"
    proc = run(femu_trace, ["convert", source, str(out), "--to", "femu",
                            *case.argv()], stdin)
    assert proc.returncode == 0, proc.stderr.decode()
    return parse_femu_output(out.read_text()), proc.stderr.decode()


def reader_only(options):
    """The options femu-trace info takes: the reader's, without the device's map."""
    return dataclasses.replace(options, device_bytes=None, extent=None, time=None,
                               lba_map="refuse")


def info_counts(femu_trace, case, data, tmp_path):
    stdin, source = stdin_and_path(case, data, tmp_path)
    proc = run(femu_trace, ["info", source, "--json", *reader_only(case.options).argv()],
               stdin)
    assert proc.returncode == 0, proc.stderr.decode()
    return json.loads(proc.stdout)


def old_scale_differs(case):
    """Whether the build's scale, which leaves a request inside the device where it is,
    gives other requests than the new one: whether the new one moves one of those."""
    if case.options.lba_map != "scale":
        return False
    data = case.trace()
    unmapped = read_trace(data, dataclasses.replace(case.options, device_bytes=None))[0]
    mapped = read_trace(data, case.options)[0]
    if len(unmapped) != len(mapped):
        return True
    return any(before != after for before, after in zip(unmapped, mapped)
               if before.op != "F" and (before.lba + before.nsect) * 512 <= DEVICE)


FEMU_SKIP_BAD = ("femu-trace --trace-skip-bad does not skip a bad line of femu's own format: "
                 "it exits 2 on it (e.g. 'unknown op', 'not a decimal number'); ftl-sim.md "
                 "'Bad lines and output' (femu's own format too) says it skips and counts it")


def marks(case):
    if case.bad and case.options.fmt == "femu":
        return [pytest.mark.xfail(strict=True, reason=FEMU_SKIP_BAD)]
    if old_scale_differs(case):
        return [pytest.mark.xfail(strict=True, reason=(
            "femu-trace's --trace-lba-map scale still leaves requests inside the device "
            "where they are and moves only those beyond it; the new design maps every "
            "address by device/extent when the extent is beyond the device"))]
    return []


CASES = cases()


@pytest.mark.parametrize("case", [pytest.param(case, id=case.id, marks=marks(case))
                                  for case in CASES])
def test_convert_agrees_with_the_reference(femu_trace, tmp_path, case):
    data = case.trace()
    expected, counts = read_trace(data, case.options)
    got, stderr = convert(femu_trace, case, data, tmp_path)
    TOTALS["runs"] += 1
    TOTALS["traces"].add((case.name, case.seed, case.options.sector_size, case.bad))
    TOTALS["option_sets"].add(case.label)
    TOTALS["requests"] += len(expected)
    assert_same_requests(got, expected)
    moved = MOVED.search(stderr)
    assert (int(moved[2]) if moved else 0) == counts.dropped
    if case.label not in COUNTED:
        return
    info = info_counts(femu_trace, case, data, tmp_path)
    assert ({key: info[key] for key in ("skipped_bad", "zero_length", "filtered")}
            == {"skipped_bad": counts.skipped_bad, "zero_length": counts.zero_length,
                "filtered": counts.filtered})


def assert_same_requests(got, expected):
    """Request for request; the first difference is named with its index."""
    for index, (mine, theirs) in enumerate(zip(got, expected)):
        assert mine == theirs, f"request {index}: femu-trace {mine}, reference {theirs}"
    assert len(got) == len(expected)


@pytest.mark.parametrize("name", sorted(gen.GENERATORS))
def test_a_bad_line_is_refused_with_its_line_number(femu_trace, tmp_path, name):
    fmt = gen.GENERATORS[name][1]
    case = Case(name, 3, "strict", Options(fmt), bad=True)
    data = case.trace()
    with pytest.raises(BadLine) as refused:
        read_trace(data, case.options)
    stdin, source = stdin_and_path(case, data, tmp_path)
    proc = run(femu_trace, ["convert", source, str(tmp_path / "out"), "--to", "femu",
                            *case.options.argv()])
    assert proc.returncode == 2
    assert f"{source}:{refused.value.line}:" in proc.stderr.decode()
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("name", ["msr", "fio-v3", "femu-v2"])
def test_refuse_names_the_first_request_beyond_the_device(femu_trace, tmp_path, name):
    fmt = gen.GENERATORS[name][1]
    case = Case(name, 1, "refuse", Options(fmt, device_bytes=DEVICE))
    data = case.trace()
    with pytest.raises(Refused) as refused:
        read_trace(data, case.options)
    _, source = stdin_and_path(case, data, tmp_path)
    proc = run(femu_trace, ["convert", source, str(tmp_path / "out"), "--to", "femu",
                            *case.options.argv()])
    assert proc.returncode == 2
    assert f"{source}:{refused.value.line}:" in proc.stderr.decode()


@pytest.mark.xfail(strict=True, reason=(
    "femu-trace refuses a femu record with nsect 0 as a bad line ('R: nsect is 0', exit 2); "
    "ftl-sim.md 'Requests': a request of 0 bytes is skipped and counted (zero_length), "
    "with no exception for femu's own format"))
@pytest.mark.parametrize("trace", [b"V 2\nR 0 8 0 1\nW 5 0 8 1 0\n", b"W 8 0\nR 0 8\n"],
                         ids=["v2", "v1"])
def test_a_femu_record_of_0_sectors_is_counted(femu_trace, tmp_path, trace):
    expected, counts = read_trace(trace, Options("femu"))
    assert counts.zero_length == 1
    case = Case("femu-v2", 0, "zero", Options("femu"))
    got, _ = convert(femu_trace, case, trace, tmp_path)
    assert got == expected
