"""The readers (tools/trace-in) against a second reading of their documentation
(reference_reader.py): every generated trace of every format, under each option set,
read from a file, a pipe, gzip and xz, must give request for request what the reference
gives, and the same counts of bad, empty and filtered lines and of dropped requests.

The scale cases (ids with "scale") follow --trace-lba-map scale as issue 39 redesigned it:
every address maps proportionally when the extent is beyond the device. The cases where
the first build and the documentation parted (the old scale, --trace-skip-bad on femu's
own format, blkparse FN and DE, a time of 2^53 + 1 ns) now agree and sit in EDGES."""
import dataclasses
import gzip
import json
import lzma
import pathlib
import random
import re
import subprocess

import pytest

import generate_traces as gen
from reference_reader import (U64_MAX, BadLine, Options, Refused, Request, TraceError,
                              decompressed, parse_femu_output, read_trace)

pytestmark = pytest.mark.unit

DEVICE = 64 << 20                     # a small device for modulo and scale
SEEDS = (1, 2)
SECTOR_FORMATS = ("spc", "blkparse", "mqsim", "disksim")
# What agreed (tests/trace-in/conftest.py prints it at the end of the session).
TOTALS = {"runs": 0, "requests": 0, "traces": set(), "formats": set(), "option_sets": set()}
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
            ("time-factor", Options(fmt, time="scale=0.37"), False),
            ("time-factor-limit", Options(fmt, time="scale=1000000"), False),
            ("closed-loop", Options(fmt, time="closed-loop"), False),
            ("modulo", Options(fmt, lba_map="modulo", device_bytes=DEVICE), False),
            ("refuse-big-device", Options(fmt, device_bytes=gen.TOP), False),
            ("lba-scale", Options(fmt, lba_map="scale", device_bytes=DEVICE), False),
            ("lba-scale-extent", Options(fmt, lba_map="scale", device_bytes=DEVICE,
                                         extent=(1 << 64) - 1), False),
            ("lba-scale-big-device", Options(fmt, lba_map="scale", device_bytes=gen.TOP),
             False),
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
SECOND_SEED = ("plain", "modulo", "sector-4096")
COUNTED = ("plain", "skip-bad", "host", "disk", "host-disk", "complete", "sector-4096")
# femu's versions 3 and 4 read as version 2 for block records: two option sets do, from
# a file, and detected.
FEW_OPTIONS = {"femu-v3": ("plain", "time-factor"), "femu-v4": ("plain", "modulo")}


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
        out.append(Case(name, 1, "detected", plain, detect=True))
        if wanted:
            continue
        out += [Case(name, 1, "plain", plain, via=via) for via in ("pipe", "gzip", "xz")]
        out += [Case(name, 1, "lba-scale-extent", scale, via="pipe"),
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


def marks(case):
    """Every case must agree (the disagreements found are fixed): no marks."""
    return []


CASES = cases()


@pytest.mark.parametrize("case", [pytest.param(case, id=case.id, marks=marks(case))
                                  for case in CASES])
def test_convert_agrees_with_the_reference(femu_trace, tmp_path, case):
    data = case.trace()
    expected, counts = read_trace(data, case.options)
    got, stderr = convert(femu_trace, case, data, tmp_path)
    assert_same_requests(got, expected)
    count_agreement(expected, case.options.fmt, case.label,
                    (case.name, case.seed, case.options.sector_size, case.bad))
    moved = MOVED.search(stderr)
    assert (int(moved[2]) if moved else 0) == counts.dropped
    if case.label not in COUNTED:
        return
    info = info_counts(femu_trace, case, data, tmp_path)
    assert ({key: info[key] for key in ("skipped_bad", "zero_length", "filtered")}
            == {"skipped_bad": counts.skipped_bad, "zero_length": counts.zero_length,
                "filtered": counts.filtered})


def count_agreement(requests, fmt, option_set, trace=None):
    TOTALS["runs"] += 1
    TOTALS["requests"] += len(requests) if isinstance(requests, list) else 0
    TOTALS["formats"].add(fmt)
    TOTALS["option_sets"].add(option_set)
    if trace:
        TOTALS["traces"].add(trace)


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


MSR_WRITE = "128166372000000000,hm,0,Write,{},{},1\n"
MQSIM_TWO = "0 0 0 8 0\n{} 0 8 8 1\n"
FEMU_V2 = "V 2\nR 0 0 8 1\n{}\n"
BLK_Q = "  8,0 0 1 {} 42 Q {} 8 + 8 [fio]\n"

# (id, format, trace, options): the limits the generated traces keep clear of, each
# agreed on (the same requests, or both refusing the same line).
EDGES = [
    ("msr-end-2^64-1", "msr", MSR_WRITE.format(U64_MAX - 4096, 4096), {}),
    ("msr-end-2^64", "msr", MSR_WRITE.format(U64_MAX - 4095, 4096), {}),
    ("msr-offset-2^64", "msr", MSR_WRITE.format(U64_MAX + 1, 1), {}),
    ("msr-latest-filetime", "msr", f"{U64_MAX // 100},hm,0,Read,0,512,1\n", {}),
    ("msr-filetime-beyond", "msr", f"{U64_MAX // 100 + 1},hm,0,Read,0,512,1\n", {}),
    ("msr-blank-and-indented-comment", "msr",
     MSR_WRITE.format(0, 512) + " \t \n   # note\n" + MSR_WRITE.format(512, 512), {}),
    ("msr-response-time-ignored", "msr", MSR_WRITE.format(0, 512)[:-2] + "x\n", {}),
    ("msr-line-of-4096", "msr", "#" * 4096 + "\r\n" + MSR_WRITE.format(0, 512), {}),
    ("msr-line-of-4097", "msr", "#" * 4097 + "\n" + MSR_WRITE.format(0, 512), {}),
    ("msr-line-of-4097-skip-bad", "msr", "#" * 4097 + "\n" + MSR_WRITE.format(0, 512),
     {"skip_bad": True}),
    ("msr-gzip-members", "msr", gzip.compress(MSR_WRITE.format(0, 512).encode())
     + gzip.compress(MSR_WRITE.format(4096, 512).encode()), {}),
    ("msr-xz", "msr", lzma.compress(MSR_WRITE.format(0, 512).encode()), {}),
    ("msr-nul", "msr", MSR_WRITE.format(0, 512) + "\0\n", {"skip_bad": True}),
    ("mqsim-end-2^64", "mqsim", f"0 0 {(1 << 55) - 1} 1 0\n", {}),
    ("mqsim-time-2^53", "mqsim", MQSIM_TWO.format(1 << 53), {}),
    ("mqsim-time-2^54-skip-bad", "mqsim", MQSIM_TWO.format(1 << 54), {"skip_bad": True}),
    ("mqsim-time-factor-beyond", "mqsim", MQSIM_TWO.format(10**10),
     {"time": "scale=1000000"}),
    ("mqsim-time-factor-0", "mqsim", MQSIM_TWO.format(10), {"time": "scale=0"}),
    ("mqsim-time-factor-above-10^6", "mqsim", MQSIM_TWO.format(10),
     {"time": "scale=1000001"}),
    ("blkparse-short-fraction", "blkparse",
     BLK_Q.format("0.5", "W") + BLK_Q.format("1.25", "R"), {}),
    ("blkparse-preflush-flush", "blkparse", BLK_Q.format("0.5", "FF"), {}),
    ("blkparse-preflush-read", "blkparse", BLK_Q.format("0.5", "FRA"), {}),
    ("blkparse-DE", "blkparse", BLK_Q.format("0.5", "DE"), {}),
    ("fio-v3-wait", "fio-iolog", "fio version 3 iolog\n0 /dev/a wait 5\n", {}),
    ("fio-v2-sync-one-argument", "fio-iolog", "fio version 2 iolog\n/dev/a sync 5\n", {}),
    ("femu-time-2^53", "femu", FEMU_V2.format(f"R {1 << 53} 8 8 1"), {}),
    ("femu-time-beyond-2^53", "femu", FEMU_V2.format(f"R {(1 << 53) + 1} 8 8 1"), {}),
    ("femu-end-2^64", "femu", FEMU_V2.format(f"R 1 {(1 << 55) - 1} 1 1"), {}),
    ("femu-256-ranges", "femu",
     FEMU_V2.format("D 1 1 " + " ".join(f"{8 * i} 8" for i in range(256))), {}),
    ("femu-257-ranges", "femu",
     FEMU_V2.format("D 1 1 " + " ".join(f"{8 * i} 8" for i in range(257))), {}),
    ("femu-v2-fua", "femu", FEMU_V2.format("W 1 0 8 1 0 fua"), {}),
    ("femu-v2-zone-write", "femu", FEMU_V2.format("ZW 1 0 8 2"), {}),
    ("femu-hash-inside-a-field", "femu", FEMU_V2.format("R 1 0 8 1#x"), {}),
    ("femu-version-1-record", "femu", "V 1\nR 0 8\n", {}),
    ("femu-v1-zone-records", "femu", "R 0 8\nZW 0 8\nC 0 0 8 8\n", {}),
    ("femu-v5-passed-over", "femu", "V 5\nP 0 warm\nU 0 1 0\nWC 1 1 1\nR 2 0 8 1\n"
     "ZW 3 0 8 2\nZM 3 2 reset 0 0\nC 4 1 0 0 0 8\nY 5 0 8 1\nX 5 1 0 8 0\nA 6\nE 9\n", {}),
    ("blkparse-preflush-of-nothing", "blkparse",
     BLK_Q.format("0.5", "FN") + BLK_Q.format("0.6", "W"), {}),
    ("mqsim-time-just-beyond-2^53", "mqsim", MQSIM_TWO.format((1 << 53) + 1), {}),
    ("femu-nsect-0", "femu", "V 2\nR 0 8 0 1\nW 5 0 8 1 0\n", {}),
    ("femu-v1-nsect-0", "femu", "W 8 0\nR 0 8\n", {}),
    ("femu-skip-bad", "femu", "V 2\nQ 1 0 8 1\nR 2 0 8 1\n", {"skip_bad": True}),
    ("femu-nsect-0-skipped", "femu", "V 2\nR 0 8 0 1\nW 5 0 8 1 0\n", {"skip_bad": True}),
    ("blkparse-DE-sync", "blkparse", BLK_Q.format("0.5", "DES"), {}),
]


def reference_outcome(data, options):
    """The reference's requests, or ("refused", line) (line None for a bad option)."""
    try:
        return read_trace(data, options)[0]
    except (BadLine, Refused, TraceError) as error:
        return ("refused", error.line)
    except ValueError:
        return ("refused", None)


def tool_outcome(femu_trace, tmp_path, data, options):
    source, out = tmp_path / "in", tmp_path / "out.femu"
    source.write_bytes(data)
    proc = run(femu_trace, ["convert", str(source), str(out), "--to", "femu",
                            *options.argv()])
    if proc.returncode == 0:
        return parse_femu_output(out.read_text())
    assert proc.returncode == 2, proc.stderr.decode()
    where = re.search(rf"{re.escape(str(source))}:(\d+):", proc.stderr.decode())
    return ("refused", int(where[1]) if where else None)


@pytest.mark.parametrize("fmt, trace, options",
                         [pytest.param(fmt, trace, options, id=name)
                          for name, fmt, trace, options in EDGES])
def test_the_limits_agree(femu_trace, tmp_path, fmt, trace, options):
    options = Options(fmt, **options)
    data = trace if isinstance(trace, bytes) else trace.encode()
    expected = reference_outcome(data, options)
    assert tool_outcome(femu_trace, tmp_path, data, options) == expected
    count_agreement(expected, fmt, "limits")


MIB = 1 << 20
# The new --trace-lba-map scale worked by hand: a 1 MiB device, an extent of 4 MiB.
SCALE_BY_HAND = [
    # (offset, length) -> (lba, nsect) or None (dropped)
    ((0, 4096), (0, 8)),                           # 0 stays 0
    ((4096, 4096), (0, 8)),                        # 1024, down to 4 KiB: 0
    ((MIB + 512, 512), (512, 1)),                  # 262272, down to 512: 262144
    ((4 * MIB - 8192, 8192), (2032, 16)),          # 1046528 -> 1044480, ends past: 1040384
    ((3 * MIB + 1, 3), (1536, 1)),                 # 786432 (aligned to 1 byte)
    ((0, 2 * MIB), None),                          # longer than the device: dropped
]
SCALE_OPTIONS = dict(lba_map="scale", device_bytes=MIB, extent=4 * MIB)


def scale_by_hand_trace():
    return "".join(MSR_WRITE.format(offset, length)
                   for (offset, length), _ in SCALE_BY_HAND).encode()


def scale_by_hand_expected():
    return [Request("W", 0, *where) for _, where in SCALE_BY_HAND if where]


def test_the_reference_scales_as_worked_by_hand():
    requests, counts = read_trace(scale_by_hand_trace(), Options("msr", **SCALE_OPTIONS))
    assert requests == scale_by_hand_expected()
    assert counts.dropped == 1


def test_scale_as_worked_by_hand(femu_trace, tmp_path):
    assert (tool_outcome(femu_trace, tmp_path, scale_by_hand_trace(),
                         Options("msr", **SCALE_OPTIONS)) == scale_by_hand_expected())


CORPUS = (pathlib.Path(__file__).resolve().parent.parent / "fuzz" / "targets" / "corpus"
          / "trace-in")


@pytest.mark.parametrize("file_name", sorted(gen.FUZZ_SEEDS))
def test_the_fuzz_seeds_are_generated_traces_femu_trace_reads_as_documented(
        femu_trace, tmp_path, file_name):
    """The fuzz-trace_in target's diffcheck-* seeds: what generate_traces.py writes
    (python tests/trace-in/generate_traces.py tests/fuzz/targets/corpus/trace-in), read
    from the corpus itself (gzip and xz too) as the reference reads them."""
    seed = CORPUS / file_name
    trace, fmt = gen.fuzz_seed_trace(file_name)
    assert decompressed(seed.read_bytes()) == trace
    assert seed.stat().st_size < 4096
    options = Options(fmt, skip_bad=gen.FUZZ_SEEDS[file_name][3])
    expected = read_trace(trace, options)[0]
    proc = run(femu_trace, ["convert", str(seed), str(tmp_path / "out"), "--to", "femu",
                            *options.argv()])
    assert proc.returncode == 0, proc.stderr.decode()
    assert_same_requests(parse_femu_output((tmp_path / "out").read_text()), expected)
    count_agreement(expected, fmt, "fuzz-seed")


def test_scale_from_a_pipe_is_the_file_s(femu_trace, tmp_path):
    """ftl-sim.md: a stream is read once into a spool file, so scale finds the extent of a
    pipe as of a file: the same requests either way."""
    options = Options("mqsim", lba_map="scale", device_bytes=DEVICE)
    # sectors 0, 2^18 and 2^19 - 8 of 512 bytes: an extent of 256 MiB, four devices
    data = b"0 0 0 8 0\n5 0 262144 8 0\n9 0 524280 8 1\n"
    piped = run(femu_trace, ["convert", "-", str(tmp_path / "piped"), "--to", "femu",
                             *options.argv()], data)
    assert piped.returncode == 0, piped.stderr.decode()
    expected = reference_outcome(data, options)
    assert parse_femu_output((tmp_path / "piped").read_text()) == expected
    assert [request.lba for request in expected] == [0, 65536, 131064]
    assert tool_outcome(femu_trace, tmp_path, data, options) == expected
