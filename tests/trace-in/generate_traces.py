"""Small, valid traces of every format with their fields at the limits, made by a seeded
random.Random (the same seed gives the same bytes): offsets at 0 and near 2^64, sizes of
0 and 1 byte and unaligned, times with many fraction digits and going backwards, CRLF,
comments, blank lines, headers, hosts and disks to filter, blkparse's preflush and FUA,
fio's waits, several ranges in a femu D record. bad_lines(fmt) gives lines each reader
must refuse (counted by --trace-skip-bad)."""
import gzip
import lzma
import random

U64 = 1 << 64
TOP = U64 - 4096               # the highest end offset a generated request reaches
SPC_ASU_ROOM = 4 << 40         # --trace-asu offset adds up to 3 TiB to an SPC offset
FILETIME_BASE = 128166372000000000
HOSTS = ("hm", "src1", "web")
DISKS = (0, 1, 2)
FIO_FILE = "/dev/nvme0n1"


def byte_size(rng):
    return rng.choice((0, 1, 511, 512, 513, 4096, 4097, 65536, 131072,
                       rng.randrange(1, 1 << 20)))


def byte_offset(rng, size):
    return rng.choice((0, 1, 4095, 4096, 512 * rng.randrange(1 << 16),
                       rng.randrange(1 << 30), TOP - size, TOP - size - 1,
                       rng.randrange(TOP - size)))


def sector_count(rng, sector_size):
    return rng.choice((0, 1, 7, 8, 256, rng.randrange(1, (1 << 20) // sector_size + 2)))


def sector_number(rng, count, sector_size, top_bytes=TOP):
    top = top_bytes // sector_size - count
    return rng.choice((0, 1, 8, rng.randrange(1 << 20), top, top - 1, rng.randrange(top)))


def times(rng, n, step, backwards=0.1):
    """n arrival times in some unit: mostly increasing by up to step, a few going back."""
    now, out = rng.randrange(step), []
    for _ in range(n):
        now += rng.randrange(step)
        out.append(max(0, now - rng.randrange(step * 2)) if rng.random() < backwards else now)
    return out


def decimal(value, digits):
    """value / 10^digits written with exactly that many fraction digits."""
    whole, fraction = divmod(value, 10**digits)
    return f"{whole}.{fraction:0{digits}d}"


def decorated(rng, header, lines):
    """The trace's bytes: header first, comments and blank lines among the data lines, some
    lines ending in CRLF."""
    out = list(header)
    for line in lines:
        roll = rng.random()
        if roll < 0.08:
            out.append("# a comment, " + ",".join(str(rng.randrange(9)) for _ in range(4)))
        elif roll < 0.14:
            out.append("")
        out.append(line)
    return "".join(line + rng.choice(("\n", "\n", "\r\n")) for line in out).encode()


def msr(rng, n, sector_size=512):
    lines = []
    for stamp in times(rng, n, 20000):
        size = byte_size(rng)
        kind = rng.choice(("Read", "Write", "read", "WRITE"))
        lines.append(f"{FILETIME_BASE + stamp},{rng.choice(HOSTS)},{rng.choice(DISKS)},"
                     f"{kind},{byte_offset(rng, size)},{size},{rng.randrange(10**6)}")
    header = ["Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime"]
    return decorated(rng, header if rng.random() < 0.5 else [], lines)


def spc(rng, n, sector_size=512):
    lines = []
    for stamp in times(rng, n, 10**10):
        size = byte_size(rng)
        lba = sector_number(rng, -(-size // sector_size), sector_size, TOP - SPC_ASU_ROOM)
        extra = rng.choice(("", ",extra", ",1,2"))
        lines.append(f"{rng.randrange(4)},{lba},{size},{rng.choice('rwRW')},"
                     f"{decimal(stamp, 13)}{extra}")
    return decorated(rng, [], lines)


BLK_WRITES = ("W", "WS", "WFS", "FWS", "FWFS", "WM", "FWFSM")
BLK_READS = ("R", "RA", "RM", "RS")
BLK_TRIMS = ("D", "DS", "E")


def blkparse_line(cpu, seq, stamp, action, request, process):
    """One event as blkparse prints it; request is (RWBS, sector, nsectors)."""
    rwbs, sector, count = request
    time = decimal(stamp, 9)
    return (f"  8,0 {cpu:4d} {seq:8d} {time:>14s} {4242:5d}  {action}  {rwbs} {sector} + "
            f"{count} {process}")


def blkparse_request(rng, sector_size):
    kind = rng.random()
    if kind < 0.08:
        return rng.choice(("F", "FWS", "FWFS")), 0, 0
    rwbs = rng.choice(BLK_WRITES if kind < 0.5 else BLK_READS if kind < 0.9 else BLK_TRIMS)
    count = sector_count(rng, sector_size)
    return rwbs, sector_number(rng, count, sector_size), count


def blkparse(rng, n, sector_size=512):
    lines = []
    for seq, stamp in enumerate(times(rng, n, 10**7), 1):
        request = blkparse_request(rng, sector_size)
        cpu = rng.randrange(2)
        lines.append(blkparse_line(cpu, seq, stamp, "Q", request, "[fio]"))
        for action in rng.sample(("G", "I", "D", "M"), 2):
            lines.append(blkparse_line(cpu, seq, stamp + 1, action, request, "[fio]"))
        done = stamp + rng.randrange(10**6)
        lines.append(blkparse_line(cpu, seq, done, "C", request, "[0]"))
        if rng.random() < 0.05:
            lines.append(f"  8,0 {cpu:4d} 0 {decimal(stamp, 9)} 4242  m   N "
                         "cfq4242 insert_request")
    return decorated(rng, [], lines) + BLKPARSE_SUMMARY.encode()


BLKPARSE_SUMMARY = """CPU0 (8,0):
 Reads Queued:           3,       12KiB\t Writes Queued:           5,       20KiB
 Read Dispatches:        3,       12KiB\t Write Dispatches:        5,       20KiB
Total (8,0):
 Reads Queued:           3,       12KiB\t Writes Queued:           5,       20KiB

Throughput (R/W): 0KiB/s / 0KiB/s
Events (8,0): 100 entries
Skips: 0 forward (0 -   0.0%)
"""


def fio_request(rng):
    roll = rng.random()
    if roll < 0.1:
        return rng.choice(("sync", "datasync", "sync 0 0", "datasync 4096 8192"))
    size = byte_size(rng)
    op = "trim" if roll < 0.2 else "read" if roll < 0.55 else "write"
    return f"{op} {byte_offset(rng, size)} {size}"


def fio_v3(rng, n, sector_size=512):
    stamps = times(rng, n, 3000, backwards=0)
    lines = [f"0 {FIO_FILE} add", f"0 {FIO_FILE} open"]
    lines += [f"{stamp} {FIO_FILE} {fio_request(rng)}" for stamp in stamps]
    lines.append(f"{stamps[-1]} {FIO_FILE} close")
    return decorated(rng, ["fio version 3 iolog"], lines)


def fio_v2(rng, n, sector_size=512):
    lines = [f"{FIO_FILE} add", f"{FIO_FILE} open"]
    for _ in range(n):
        if rng.random() < 0.5:
            lines.append(f"{FIO_FILE} wait {rng.choice((0, 1, rng.randrange(10**5)))}")
        lines.append(f"{FIO_FILE} {fio_request(rng)}")
    lines.append(f"{FIO_FILE} close")
    return decorated(rng, ["fio version 2 iolog"], lines)


def mqsim(rng, n, sector_size=512):
    lines = []
    for stamp in times(rng, n, 10**7):
        count = sector_count(rng, sector_size)
        lines.append(f"{stamp} {rng.choice(DISKS)} {sector_number(rng, count, sector_size)} "
                     f"{count} {rng.randrange(2)}")
    return decorated(rng, [], lines)


def disksim(rng, n, sector_size=512):
    lines = []
    for stamp in times(rng, n, 10**10):
        count = sector_count(rng, sector_size)
        lines.append(f"{decimal(stamp, 10)} {rng.choice(DISKS)} "
                     f"{sector_number(rng, count, sector_size)} {count} "
                     f"{rng.choice((0, 1, 2, 3, 0x80, 0x81))}")
    return decorated(rng, [], lines)


def femu_sectors(rng):
    count = sector_count(rng, 512) or 1           # nsect 0: femu-nsect-0 (a disagreement)
    return sector_number(rng, count, 512), count


# Records that are not block requests (femu_ftl/trace.h), which a reader passes over:
# version 1's zone compaction records, and each timed version's ("{t}": the time).
FEMU_OTHER_RECORDS = {
    1: ("ZW 0 8", "ZA 0 8", "ZR 0 8", "ZM reset 0 0", "C 0 0 8 8"),
    2: ("Y {t} 0 8 1", "X {t} 1 0 8 0", "P {t} warm-up", "A {t}"),
}
FEMU_OTHER_RECORDS[3] = FEMU_OTHER_RECORDS[2] + (
    "ZW {t} 0 8 2", "ZA {t} 0 8 2", "ZR {t} 0 8 2", "ZM {t} 2 reset 0 0", "ZM {t} 2 open 0 1",
    "C {t} 1 0 0 0 8 16 8")
FEMU_OTHER_RECORDS[4] = FEMU_OTHER_RECORDS[3] + ("U {t} 1 0",)
FEMU_OTHER_RECORDS[5] = FEMU_OTHER_RECORDS[4] + ("WC {t} 1 1", "WC {t} 1 0")


def femu_v1(rng, n, sector_size=512):
    lines = [f"S {rng.randrange(1 << 32)}"]
    for _ in range(n):
        lba, count = femu_sectors(rng)
        kind = rng.choice(("R", "W", "W H", "W C"))
        lines.append(f"{kind[0]} {lba} {count}{kind[1:]}")
        if rng.random() < 0.1:
            lines.append(rng.choice(FEMU_OTHER_RECORDS[1]))
    return decorated(rng, [], lines)


def femu_timed_line(rng, version, stamp):
    roll = rng.random()
    if roll < 0.08:
        return f"F {stamp} 1"
    if roll < 0.2:
        ranges = " ".join("%d %d" % femu_sectors(rng) for _ in range(rng.randrange(1, 5)))
        return f"D {stamp} 1 {ranges}"
    lba, count = femu_sectors(rng)
    if roll < 0.55:
        return f"R {stamp} {lba} {count} 1"
    fua = " fua" if version == 5 and rng.random() < 0.3 else ""
    return f"W {stamp} {lba} {count} 1 {rng.randrange(4)}{fua}"


def femu_timed(version):
    def generate(rng, n, sector_size=512):
        lines = []
        stamps = times(rng, n, 10**7)
        for stamp in stamps:
            line = femu_timed_line(rng, version, stamp)
            lines.append(line + (" # noted" if rng.random() < 0.1 else ""))
            if rng.random() < 0.12:
                lines.append(rng.choice(FEMU_OTHER_RECORDS[version]).format(t=stamp + 1))
        lines.append(f"E {max(stamps) + 1}")
        return decorated(rng, [f"V {version}"], lines)
    return generate


# name -> (generator, the --trace-format that reads it)
GENERATORS = {
    "msr": (msr, "msr"), "spc": (spc, "spc"), "blkparse": (blkparse, "blkparse"),
    "fio-v2": (fio_v2, "fio-iolog"), "fio-v3": (fio_v3, "fio-iolog"),
    "mqsim": (mqsim, "mqsim"), "disksim": (disksim, "disksim"),
    "femu-v1": (femu_v1, "femu"), "femu-v2": (femu_timed(2), "femu"),
    "femu-v3": (femu_timed(3), "femu"), "femu-v4": (femu_timed(4), "femu"),
    "femu-v5": (femu_timed(5), "femu"),
}

BAD_LINES = {
    "msr": ["128166372000000000,hm,0,Write,x12,4096,300",
            "128166372000000000,hm,0,Trim,0,4096,1", "128166372000000000,hm,0,Read,0,4096"],
    "spc": ["0,abc,4096,w,0.1", "0,12,4096,q,0.1", "0,12,4096"],
    "blkparse": ["  8,0 0 9 0.500000000 42  Q  W 12x + 8 [fio]",
                 "  8,0 0 9 0.500000000 42  Q  W 12 - 8 [fio]"],
    "fio-iolog": [f"{FIO_FILE} write abc 4096", f"{FIO_FILE} scribble 0 4096",
                  f"/dev/other write 0 4096"],
    "mqsim": ["100 0 12 x 0", "100 0 12 8 7", "100 0 12 8"],
    "disksim": ["1.5 0 12 x 0", "1.5 0 12 8", "1.5 0 12 8 zz"],
    "femu": ["W 10 abc 8 1 0", "Q 10 0 8 1", "R 10 0 8"],
}


def bad_lines(name, fmt):
    """Lines the reader of fmt refuses; a version-3 iolog's carry a time."""
    if name == "fio-v3":
        return ["5 " + line for line in BAD_LINES[fmt]]
    if name == "femu-v1":
        return ["W abc 8", "R 0", "Q 0 8"]
    return BAD_LINES[fmt]


def with_bad_lines(rng, data, bad):
    """data with the bad lines put among its lines, never first (the header, the version)."""
    lines = data.split(b"\n")
    for line in bad:
        lines.insert(rng.randrange(2, len(lines)), line.encode())
    return b"\n".join(lines)


def generate(name, seed, records=40, sector_size=512):
    rng = random.Random(f"{name}/{seed}/{sector_size}")
    make, _ = GENERATORS[name]
    return make(rng, records, sector_size)


# The libFuzzer seeds made from these traces (tests/fuzz/targets/corpus/trace-in, the
# fuzz-trace_in target): file name -> (generator, seed, records, bad lines, compression).
FUZZ_SEEDS = {
    "diffcheck-msr.seed": ("msr", 7, 30, False, None),
    "diffcheck-msr-bad-lines.seed": ("msr", 8, 12, True, None),
    "diffcheck-msr.gz.seed": ("msr", 9, 20, False, "gzip"),
    "diffcheck-spc.seed": ("spc", 7, 30, False, None),
    "diffcheck-blkparse.seed": ("blkparse", 7, 9, False, None),
    "diffcheck-fio-v2.seed": ("fio-v2", 7, 30, False, None),
    "diffcheck-fio-v3.seed": ("fio-v3", 7, 30, False, None),
    "diffcheck-mqsim.seed": ("mqsim", 7, 30, False, None),
    "diffcheck-disksim.seed": ("disksim", 7, 30, False, None),
    "diffcheck-disksim.xz.seed": ("disksim", 8, 20, False, "xz"),
    "diffcheck-femu-v5.seed": ("femu-v5", 7, 30, False, None),
}


def fuzz_seed_trace(file_name):
    """The uncompressed trace of a fuzz seed, and its reader's --trace-format."""
    name, seed, records, bad, _ = FUZZ_SEEDS[file_name]
    data = generate(name, seed, records)
    fmt = GENERATORS[name][1]
    if bad:
        data = with_bad_lines(random.Random(file_name), data, bad_lines(name, fmt))
    return data, fmt


def fuzz_seed_bytes(file_name):
    data, _ = fuzz_seed_trace(file_name)
    compression = FUZZ_SEEDS[file_name][4]
    if compression == "gzip":
        return gzip.compress(data, mtime=0)
    if compression == "xz":
        return lzma.compress(data)
    return data


if __name__ == "__main__":
    import pathlib
    import sys
    folder = pathlib.Path(sys.argv[1])          # tests/fuzz/targets/corpus/trace-in
    for file_name in FUZZ_SEEDS:
        (folder / file_name).write_bytes(fuzz_seed_bytes(file_name))
