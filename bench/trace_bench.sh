#!/usr/bin/env bash
# Trace input speed: writes a synthetic trace of N records (default 1 M) per format with
# awk, then prints per format femu-trace info's parse rate (M records/s) and ftl-sim's
# replay rate on conf/lab-1g.conf (closed loop, --qd 8, LBA map modulo). With --big, also
# a 10 M-record MSR trace through ftl-sim end to end.
# Figures only, no assertions. Usage: bench/trace_bench.sh [N] [--big]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${FEMU_BUILD_DIR:-$root/build/release}"
n=1000000
big=no
for arg in "$@"; do
    case $arg in
        --big) big=yes ;;
        *) n=$arg ;;
    esac
done
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# gen FORMAT N: N requests, 4 KiB to 64 KiB at random 4 KiB-aligned offsets in 64 GiB,
# 30% reads, 100 us apart, in FORMAT's own spelling
gen() {
    awk -v fmt="$1" -v n="$2" 'BEGIN {
        srand(7)
        if (fmt == "fio") { print "fio version 3 iolog"; print "0 /dev/sdb add"; print "0 /dev/sdb open" }
        if (fmt == "femu") print "V 2"
        if (fmt == "msr") print "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime"
        for (i = 0; i < n; i++) {
            off = int(rand() * 16777216) * 4096; size = 4096 * (1 + int(rand() * 16))
            rd = rand() < 0.3; us = i * 100; sec = off / 512; cnt = size / 512
            if (fmt == "msr") printf "%d,hm,0,%s,%d,%d,100\n", 128166372000000000 + us * 10, rd ? "Read" : "Write", off, size
            else if (fmt == "spc") printf "0,%d,%d,%s,%.6f\n", sec, size, rd ? "r" : "w", us / 1e6
            else if (fmt == "blkparse") printf "  8,0    0 %8d %5d.%09d  77  Q %s %d + %d [fio]\n", i + 1, int(us / 1e6), (us % 1000000) * 1000, rd ? "R" : "WS", sec, cnt
            else if (fmt == "fio") printf "%d /dev/sdb %s %d %d\n", us, rd ? "read" : "write", off, size
            else if (fmt == "mqsim") printf "%d 0 %d %d %d\n", us * 1000, sec, cnt, rd
            else if (fmt == "disksim") printf "%.3f 0 %d %d %d\n", us / 1000, sec, cnt, rd
            # femu traces are recordings of a device: inside lab-1g (no LBA map applies)
            else if (fmt == "femu") { fs = (off % 536870912) / 512; if (rd) printf "R %d %d %d 1\n", us * 1000, fs, cnt; else printf "W %d %d %d 1 0\n", us * 1000, fs, cnt }
        }
    }'
}

# seconds COMMAND...: the wall time of COMMAND (its output dropped; a failure ends the run)
seconds() {
    local start end
    start=$(date +%s.%N)
    if ! "$@" >/dev/null 2>"$work/err"; then
        echo "trace_bench: failed: $* ($(tail -1 "$work/err"))" >&2
        exit 1
    fi
    end=$(date +%s.%N)
    awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }'
}

rate() {  # rate RECORDS SECONDS: millions per second
    awk -v n="$1" -v s="$2" 'BEGIN { printf "%.2f", n / s / 1e6 }'
}

echo "records per trace: $n"
for fmt in msr spc blkparse fio mqsim disksim femu; do
    gen "$fmt" "$n" >"$work/t.$fmt"
    s=$(seconds "$build/tools/femu-trace/femu-trace" info "$work/t.$fmt" --json)
    printf "parse %-9s %6.2f M records/s (%.2f s, %d MB)\n" "$fmt" "$(rate "$n" "$s")" \
        "$s" "$(($(stat -c %s "$work/t.$fmt") / 1000000))"
done
gzip -1 -k "$work/t.msr"
s=$(seconds "$build/tools/femu-trace/femu-trace" info "$work/t.msr.gz" --json)
printf "parse msr.gz    %6.2f M records/s\n" "$(rate "$n" "$s")"
replay() {  # replay FILE RECORDS LABEL
    local s
    s=$(seconds "$build/tools/ftl-sim/ftl-sim" --config "$root/conf/lab-1g.conf" \
        --trace "$1" --trace-lba-map modulo --trace-time closed-loop --qd 8)
    printf "replay %-9s %6.2f M records/s (%d records in %.1f s, lab-1g, closed loop, incl. the checking pass)\n" \
        "$3" "$(rate "$2" "$s")" "$2" "$s"
}
for fmt in msr spc blkparse fio mqsim disksim femu; do
    replay "$work/t.$fmt" "$n" "$fmt"
done
if [[ $big == yes ]]; then
    gen msr 10000000 >"$work/big.msr"
    replay "$work/big.msr" 10000000 "msr (10 M)"
fi
