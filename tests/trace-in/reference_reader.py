"""A second reading of the trace formats, written from the documentation only
(docs/ftl-sim.md "Trace formats", docs/femu-trace.md, femu_ftl/trace.h), never from the C
readers in tools/trace-in: the differential test holds femu-trace to it.

read_trace(data, options) gives the requests femu-trace convert --to femu should write
(op, time in ns relative to the first request and scaled, lba and nsect in 512-byte
sectors after the LBA map and the widening) and the counts of what it passed by;
parse_femu_output(text) reads what femu-trace wrote back into the same shape.
"""
import dataclasses
import fractions
import gzip
import lzma
import re

SECTOR = 512
TIB = 1 << 40
ALIGN_CAP = 4096
U64_MAX = (1 << 64) - 1
MAX_LINE = 4096                  # bytes of a line, its LF or CRLF not counted
MAX_TIME_NS = 1 << 53            # the longest replay; the latest time of a femu record
MAX_TIME_SCALE = 10**6
MAX_RANGES = 256                 # of a femu D record
GZIP_MAGIC = b"\x1f\x8b"
XZ_MAGIC = b"\xfd7zXZ\x00"


class BadLine(ValueError):
    """A line the documentation does not allow (exit 2, or counted with skip-bad)."""


class TraceError(ValueError):
    """Not a bad line but a trace that cannot be read (exit 2 even with skip-bad)."""

    def __init__(self, line, what):
        super().__init__(f"line {line}: {what}")
        self.line = line


class Refused(ValueError):
    """A request the refuse map will not fold into the device (exit 2, FILE:LINE)."""

    def __init__(self, line):
        super().__init__(f"line {line}: a request beyond the device")
        self.line = line


@dataclasses.dataclass(frozen=True)
class Request:
    """One request as femu's trace writes it; a flush has lba = nsect = None; fua: a FUA
    write (version 5's mark)."""
    op: str
    time_ns: int
    lba: int | None = None
    nsect: int | None = None
    fua: bool = False


@dataclasses.dataclass
class Options:
    """femu-trace's reader options, as they are spelt on its command line."""
    fmt: str
    sector_size: int = SECTOR
    asu: str = "stream"
    host: str | None = None
    disk: int | None = None
    events: str = "queue"
    skip_bad: bool = False
    time: str | None = None            # None, "closed-loop" or "scale=F"
    lba_map: str = "refuse"
    device_bytes: int | None = None
    extent: int | None = None

    def argv(self):
        args = ["--trace-format", self.fmt]
        if self.sector_size != SECTOR:
            args += ["--trace-sector-size", str(self.sector_size)]
        if self.asu != "stream":
            args += ["--trace-asu", self.asu]
        if self.host is not None:
            args += ["--trace-host", self.host]
        if self.disk is not None:
            args += ["--trace-disk", str(self.disk)]
        if self.events != "queue":
            args += ["--trace-events", self.events]
        if self.skip_bad:
            args += ["--trace-skip-bad"]
        if self.time is not None:
            args += ["--trace-time", self.time]
        if self.device_bytes is not None:
            args += ["--device-bytes", str(self.device_bytes),
                     "--trace-lba-map", self.lba_map]
        if self.extent is not None:
            args += ["--trace-extent", str(self.extent)]
        return args


@dataclasses.dataclass
class Raw:
    """A request as a format gives it: byte offset and length, absolute time in ns."""
    op: str
    time_ns: int | None
    offset: int = 0
    length: int = 0
    line: int = 0
    fua: bool = False

    def __post_init__(self):
        byte_range(self.offset, self.length)


@dataclasses.dataclass
class Counts:
    skipped_bad: int = 0
    zero_length: int = 0
    filtered: int = 0
    dropped: int = 0


FILTERED = "filtered"


# --- numbers --------------------------------------------------------------------------

def whole(text):
    """A whole decimal number, digits only."""
    if not text.isdigit():
        raise BadLine(f"not a whole number: {text!r}")
    return int(text)


def check_whole(*texts):
    """Fields that must be whole numbers though their values are not used."""
    for text in texts:
        whole(text)


def decimal_ns(text, unit_ns):
    """A decimal number of units (seconds, ms) in whole ns, the fraction beyond 1 ns cut."""
    if not re.fullmatch(r"\d+(\.\d*)?|\.\d+", text):
        raise BadLine(f"not a decimal number: {text!r}")
    return int(fractions.Fraction(text) * unit_ns)


def byte_range(offset, length):
    """A range whose end fits in 64 bits (the readers' limit: the docs leave it unsaid)."""
    if offset + length > U64_MAX:
        raise BadLine("the range's end is beyond 2^64 bytes")
    return offset, length


def op_of(text, names):
    op = names.get(text.lower())
    if op is None:
        raise BadLine(f"unknown operation {text!r}")
    return op


# --- the formats ------------------------------------------------------------------------
# parse_FORMAT(line, options, state) reads one data line: a list of Raw (empty for a line
# passed over), FILTERED, or BadLine; state is the reader's memory between lines.

def filetime_ns(text):
    """A Windows filetime (100 ns units) whose ns fit in 64 bits (the docs leave it unsaid)."""
    time_ns = whole(text) * 100
    if time_ns > U64_MAX:
        raise BadLine("a filetime beyond 2^64 ns")
    return time_ns


def parse_msr(line, options, state):
    if line.startswith("Timestamp,"):
        return []
    fields = line.split(",")
    if len(fields) != 7:
        raise BadLine("an MSR line has 7 fields")
    stamp, host, disk, kind, offset, size, _response = fields
    raw = Raw(op_of(kind, {"read": "R", "write": "W"}), filetime_ns(stamp),
              whole(offset), whole(size))
    if options.host is not None and host != options.host:
        return FILTERED
    if options.disk is not None and whole(disk) != options.disk:
        return FILTERED
    return [raw]


def parse_spc(line, options, state):
    fields = line.split(",")
    if len(fields) < 5:
        raise BadLine("an SPC line has 5 or more fields")
    asu, lba, size, opcode, stamp = fields[:5]
    offset = whole(lba) * options.sector_size
    if options.asu == "offset":
        offset += whole(asu) * TIB
    else:
        check_whole(asu)
    return [Raw(op_of(opcode, {"r": "R", "w": "W"}), decimal_ns(stamp, 10**9),
                offset, whole(size))]


BLKPARSE_OPS = {"R": "R", "W": "W", "D": "D", "DE": "D", "E": "D", "F": "F", "N": None}


def blkparse_fua(rwbs):
    """Whether the flags after the operation hold F (FUA)."""
    body = rwbs[1:] if blkparse_op(rwbs)[0] else rwbs
    return "F" in body[2 if body.startswith("DE") else 1:]


def blkparse_op(rwbs):
    """(preflush, op) of an RWBS string: an optional leading F, then the operation (Linux
    writes a secure erase as DE)."""
    preflush = len(rwbs) > 1 and rwbs[0] == "F" and rwbs[1] in BLKPARSE_OPS
    body = rwbs[1:] if preflush else rwbs
    kind = "DE" if body.startswith("DE") else body[:1]
    if kind not in BLKPARSE_OPS or not set(body[len(kind):]) <= set("FSMA"):
        raise BadLine(f"RWBS {rwbs!r}")
    return preflush, BLKPARSE_OPS[kind]


def parse_blkparse(line, options, state):
    fields = line.split()
    if not re.fullmatch(r"\d+,\d+", fields[0]) or len(fields) < 7:
        return []                                   # a summary line
    wanted = "C" if options.events == "complete" else "Q"
    if fields[5] != wanted:
        return []
    if len(fields) < 10 or fields[8] != "+":
        raise BadLine("a request is 'sector + nsectors'")
    preflush, op = blkparse_op(fields[6])
    time_ns = blkparse_time(fields[3])
    offset = whole(fields[7]) * options.sector_size
    length = whole(fields[9]) * options.sector_size
    out = [Raw("F", time_ns)] if preflush or op == "F" else []
    if op in ("R", "W", "D") and (length or not preflush):
        out.append(Raw(op, time_ns, offset, length,
                       fua=op == "W" and blkparse_fua(fields[6])))
    return out


def blkparse_time(text):
    """sec.nsec: seconds with a fraction (blkparse writes 9 digits; fewer read as decimals)."""
    return decimal_ns(text, 10**9)


FIO_OPS = {"read": "R", "write": "W", "trim": "D"}


def parse_fio(line, options, state):
    fields = line.split()
    if "version" not in state:
        match = re.fullmatch(r"fio version ([23]) iolog", line)
        if not match:
            raise BadLine("an iolog starts with its version line")
        state["version"], state["waited_us"] = int(match[1]), 0
        return []
    if state["version"] == 3:
        if not fields:
            raise BadLine("empty")
        time_ns, fields = whole(fields[0]) * 1000, fields[1:]
    else:
        time_ns = state["waited_us"] * 1000
    if len(fields) < 2:
        raise BadLine("FILE ACTION")
    name, action, args = fields[0], fields[1], fields[2:]
    if state.setdefault("file", name) != name:
        raise BadLine("a second file")
    return fio_action(action, args, time_ns, state)


def fio_action(action, args, time_ns, state):
    if action in ("add", "open", "close") and not args:
        return []
    if action == "wait" and state["version"] == 2 and len(args) == 1:
        state["waited_us"] += whole(args[0])
        return []
    if action in FIO_OPS and len(args) == 2:
        return [Raw(FIO_OPS[action], time_ns, whole(args[0]), whole(args[1]))]
    if action in ("sync", "datasync") and len(args) in (0, 2):
        check_whole(*args)
        return [Raw("F", time_ns)]
    raise BadLine(f"fio action {action!r} {args}")


def parse_mqsim(line, options, state):
    fields = line.split()
    if len(fields) != 5:
        raise BadLine("an MQSim line has 5 fields")
    arrival, device, start, size, kind = map(whole, fields)
    if kind not in (0, 1):
        raise BadLine("type 0 or 1")
    if options.disk is not None and device != options.disk:
        return FILTERED
    return [Raw("W" if kind == 0 else "R", arrival, start * options.sector_size,
                size * options.sector_size)]


def parse_disksim(line, options, state):
    fields = line.split()
    if len(fields) != 5:
        raise BadLine("a DiskSim line has 5 fields")
    time_ns = decimal_ns(fields[0], 10**6)
    device, block, count, flags = map(whole, fields[1:])
    if options.disk is not None and device != options.disk:
        return FILTERED
    return [Raw("R" if flags & 1 else "W", time_ns, block * options.sector_size,
                count * options.sector_size)]


def parse_femu(line, options, state):
    fields = without_comment(line).split()
    if not fields:
        return []
    if "version" not in state:
        if fields[0] == "V" and len(fields) == 2:
            state["version"] = whole(fields[1])
            if not 2 <= state["version"] <= 5:
                raise BadLine("version 1 to 5")
            return []
        state["version"] = 1
    if state["version"] == 1:
        return femu_v1(fields)
    return femu_timed(fields, state["version"])


def without_comment(line):
    """femu's format: '#' starts a comment at the start of a line or after a blank."""
    match = re.search(r"(^|\s)#", line)
    return line[:match.start()] if match else line


# Records that are not block requests, passed over: version 1's zone compaction records;
# a version's verify, format, phase, advance and end records, its zone commands and
# Copy (3), handle updates (4) and write cache switches (5).
FEMU_PASSED_OVER = {1: {"ZW", "ZA", "ZR", "ZM", "C"}, 2: {"Y", "X", "P", "A", "E"}}
FEMU_PASSED_OVER[3] = FEMU_PASSED_OVER[2] | FEMU_PASSED_OVER[1]
FEMU_PASSED_OVER[4] = FEMU_PASSED_OVER[3] | {"U"}
FEMU_PASSED_OVER[5] = FEMU_PASSED_OVER[4] | {"WC"}


def femu_block(op, time_ns, lba, nsect):
    """A femu W or R: femu's own writer never writes 0 sectors, so trace.h makes nsect > 0
    part of the format (a D range of 0 sectors is allowed: skipped)."""
    if whole(nsect) == 0:
        raise BadLine("nsect is 0")
    return sectors_raw(op, time_ns, lba, nsect)


def femu_v1(fields):
    kind, args = fields[0], fields[1:]
    if kind == "S" and len(args) == 1:
        check_whole(args[0])
        return []
    if kind == "W" and (len(args) == 2 or len(args) == 3 and args[2] in ("H", "C")):
        return [femu_block("W", None, args[0], args[1])]
    if kind == "R" and len(args) == 2:
        return [femu_block("R", None, args[0], args[1])]
    if kind in FEMU_PASSED_OVER[1]:
        return []
    raise BadLine(f"version-1 record {fields}")


def femu_time(text):
    time_ns = whole(text)
    if time_ns > MAX_TIME_NS:
        raise BadLine("a time beyond 2^53 ns")
    return time_ns


def femu_timed(fields, version):
    kind, args = fields[0], fields[1:]
    if not args:
        raise BadLine("a record has its time")
    time_ns = femu_time(args[0])
    if kind in FEMU_PASSED_OVER[version]:
        return []
    if kind == "W" and (len(args) == 5 or version == 5 and len(args) == 6
                        and args[5] == "fua"):
        check_whole(args[3], args[4])
        write = femu_block("W", time_ns, args[1], args[2])
        write.fua = len(args) == 6
        return [write]
    if kind == "R" and len(args) == 4:
        check_whole(args[3])
        return [femu_block("R", time_ns, args[1], args[2])]
    if kind == "F" and len(args) == 2:
        check_whole(args[1])
        return [Raw("F", time_ns)]
    if kind == "D" and len(args) >= 4 and len(args) % 2 == 0:
        return femu_trims(time_ns, args[1], args[2:])
    raise BadLine(f"record {fields}")


def femu_trims(time_ns, nsid, ranges):
    """A D record: one trim a range, up to 256 ranges."""
    check_whole(nsid)
    if len(ranges) > 2 * MAX_RANGES:
        raise BadLine("more than 256 ranges")
    return [sectors_raw("D", time_ns, ranges[i], ranges[i + 1])
            for i in range(0, len(ranges), 2)]


def sectors_raw(op, time_ns, lba, nsect):
    return Raw(op, time_ns, whole(lba) * SECTOR, whole(nsect) * SECTOR)


PARSERS = {"msr": parse_msr, "spc": parse_spc, "blkparse": parse_blkparse,
           "fio-iolog": parse_fio, "mqsim": parse_mqsim, "disksim": parse_disksim,
           "femu": parse_femu}


# --- the reader ---------------------------------------------------------------------------

def decompressed(data):
    if data.startswith(GZIP_MAGIC):
        return gzip.decompress(data)
    if data.startswith(XZ_MAGIC):
        return lzma.decompress(data)
    return data


def data_lines(data):
    """(line number, text) of every line that is neither blank nor a # comment (its first
    character but blanks a #)."""
    for number, line in enumerate(decompressed(data).split(b"\n"), 1):
        line = line.removesuffix(b"\r")
        if len(line) > MAX_LINE:
            raise TraceError(number, "a line longer than 4096 bytes")
        if b"\0" in line:
            raise TraceError(number, "a NUL byte")
        text = line.decode("ascii")
        if text.strip() and not text.lstrip().startswith("#"):
            yield number, text


def raw_requests(data, options, counts):
    parse, state = PARSERS[options.fmt], {}
    for number, text in data_lines(data):
        try:
            got = parse(text, options, state)
        except BadLine as error:
            if not options.skip_bad:
                error.line = number
                raise
            counts.skipped_bad += 1
            continue
        if got == FILTERED:
            counts.filtered += 1
            continue
        for raw in got:
            raw.line = number
            if raw.op != "F" and raw.length == 0:
                counts.zero_length += 1
            else:
                yield raw


def lowest_set_bit_capped(offset):
    return ALIGN_CAP if offset == 0 else min(offset & -offset, ALIGN_CAP)


def folded(raw, options, extent, counts):
    """raw moved into the device by the LBA map, or None when it is dropped."""
    device = options.device_bytes
    if device is None or raw.op == "F":
        return raw
    if options.lba_map == "scale":
        if extent <= device:
            return raw
        offset = raw.offset * device // extent
        offset -= offset % lowest_set_bit_capped(raw.offset)
    elif raw.offset + raw.length <= device:
        return raw
    elif options.lba_map == "modulo":
        offset = raw.offset % device
    else:
        raise Refused(raw.line)
    if raw.length > device:
        counts.dropped += 1
        return None
    offset = min(offset, device - raw.length)
    return dataclasses.replace(raw, offset=offset)


def time_factor(time_option):
    """F of scale=F (1 without the option), 0 for closed-loop."""
    if time_option is None:
        return fractions.Fraction(1)
    if time_option == "closed-loop":
        return fractions.Fraction(0)
    factor = fractions.Fraction(time_option.removeprefix("scale="))
    if not 0 < factor <= MAX_TIME_SCALE:
        raise ValueError("--trace-time scale=F: 0 < F <= 10^6")
    return factor


def scaled_time(raw, first_ns, factor):
    """raw's time after the first request's, times the factor, to the nearest ns."""
    if raw.time_ns is None:                     # a version-1 femu trace: no times
        return 0
    time_ns = int(max(0, raw.time_ns - first_ns) * factor + fractions.Fraction(1, 2))
    if time_ns > MAX_TIME_NS:
        raise TraceError(raw.line, "beyond the 2^53 ns a replay may last")
    return time_ns


def as_request(raw, first_ns, factor):
    time_ns = scaled_time(raw, first_ns, factor)
    if raw.op == "F":
        return Request("F", time_ns)
    lba = raw.offset // SECTOR
    end = -(-(raw.offset + raw.length) // SECTOR)
    return Request(raw.op, time_ns, lba, end - lba, raw.fua)


def read_trace(data, options):
    """(requests, counts) femu-trace convert --to femu should give for data."""
    counts = Counts()
    raws = list(raw_requests(data, options, counts))
    ends = [raw.offset + raw.length for raw in raws if raw.op != "F"]
    extent = options.extent if options.extent is not None else max(ends, default=0)
    first_ns = raws[0].time_ns if raws else 0
    factor = time_factor(options.time)
    requests = []
    for raw in raws:
        moved = folded(raw, options, extent, counts)
        if moved is not None:
            requests.append(as_request(moved, first_ns, factor))
    return requests, counts


# --- femu-trace's output ---------------------------------------------------------------------

def parse_femu_output(text):
    """The requests of a femu trace as femu-trace convert --to femu writes it: version 2,
    or 5 with FUA writes marked."""
    requests = []
    for line in text.splitlines():
        fields = line.split()
        if not fields or fields[0].startswith("#") or fields[0] == "V":
            continue
        fua = fields[-1] == "fua"
        kind, numbers = fields[0], [int(field) for field in fields[1:len(fields) - fua]]
        if kind == "W":
            requests.append(Request("W", numbers[0], numbers[1], numbers[2], fua))
        elif kind == "R":
            requests.append(Request("R", numbers[0], numbers[1], numbers[2]))
        elif kind == "F":
            requests.append(Request("F", numbers[0]))
        elif kind == "D":
            ranges = numbers[2:]
            requests += [Request("D", numbers[0], ranges[i], ranges[i + 1])
                         for i in range(0, len(ranges), 2)]
        else:
            raise ValueError(f"femu-trace wrote an unexpected record: {line!r}")
    return requests
