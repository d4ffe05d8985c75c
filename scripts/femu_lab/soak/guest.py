"""The guest side of the soak (femu_lab.soak): one shell job per pattern.

Every job writes SIZE_MIB MiB with fio (4 KiB random writes, libaio, iodepth 32, direct,
crc32c verify headers, a seed of its own so no two writes leave the same data), lets fio
read it all back, and around each event compares a sha256 per MiB of that region taken
before the event with one taken after. It reports on the console, one line per fact, which
the host parses (femu_lab.soak.console):

    soak: fio name=w1 rc=0 verify_errors=0
    soak: check name=reset-idle chunks=32 differ=0
    soak: event kind=reset-controller n=1 rc=0 during_io=1
    soak: ready-for-unplug n=1            (device-del-add: the host may unplug now)
    soak: stuck what=disk-back            (a bounded wait in the guest ran out)
    soak: dmesg-begin / ... / soak: dmesg-end
    soak: done                            (every step ran; the job then ends)

The reboot pattern keeps its state on the disk itself (the device keeps its data across a
guest reboot): 4 MiB after the fio region hold the boot number, the checksums and what the
boots before the last one reported, which the last one prints (`soak-live:` lines are
progress only).
"""
from typing import Dict

PATTERNS = ("poweroff", "reboot", "reset-controller", "pci-remove-rescan", "device-del-add")
# Patterns whose event resets the controller on purpose (see femu_lab.soak.console).
RESET_PATTERNS = ("reset-controller", "pci-remove-rescan", "device-del-add")
DEFAULT_EVENTS: Dict[str, int] = {"poweroff": 1, "reboot": 1, "reset-controller": 4,
                                  "pci-remove-rescan": 2, "device-del-add": 2}
WAIT_SECONDS = 300   # a bound on each in-guest wait (disk gone / back, controller live)

_LIBRARY = r"""
say() { echo "soak: $*"; }
disk() { ls /sys/class/block 2>/dev/null | grep -m1 '^nvme[0-9]*n1$'; }
ctrl() { ls /sys/class/nvme 2>/dev/null | grep -m1 '^nvme[0-9]*$'; }

# wait_until SECONDS COMMAND...: poll COMMAND every 0.1 s; false when time ran out.
wait_until() {
    limit=$(($1 * 10)); shift
    tries=0
    until "$@"; do
        [ "$tries" -ge "$limit" ] && return 1
        usleep 100000
        tries=$((tries + 1))
    done
}
no_disk() { [ -z "$(disk)" ]; }
disk_live() {
    d=$(disk); c=$(ctrl)
    [ -n "$d" ] && [ -n "$c" ] && [ -b "/dev/$d" ] \
        && [ "$(cat /sys/class/nvme/$c/state 2>/dev/null)" = live ]
}
use_disk() { DEV=/dev/$(disk); CTRL=$(ctrl); }
# stuck WHAT: a bounded wait ran out; report (straight to the output, with anything a
# reboot-pattern boot was carrying) and end the job.
stuck() {
    cat /tmp/carried /tmp/carry 2>/dev/null
    echo "soak: stuck what=$1"
    echo "soak: dmesg-begin"; dmesg; echo "soak: dmesg-end"
    exit 3
}

# fio_run NAME SEED [FIO OPTIONS...]: the soak's write (then read-back) of the region.
fio_run() {
    name=$1 seed=$2
    shift 2
    fio --name="$name" --filename="$DEV" --rw=randwrite --bs=4k --size="${SIZE_MIB}m" \
        --ioengine=libaio --iodepth=32 --direct=1 --verify=crc32c --randseed="$seed" \
        --output-format=json --output="$FEMU_OUT/$name.json" "$@" 2>"$FEMU_OUT/$name.err"
    rc=$?
    bad=$(grep -c -E 'verify: bad |verify failed' "$FEMU_OUT/$name.err")
    say "fio name=$name rc=$rc verify_errors=$bad"
    [ "$rc" = 0 ] || tail -n 5 "$FEMU_OUT/$name.err"
}

# sums FILE [EXPECTED]: sha256 of each MiB of the fio region, read around the page cache
# (a MiB that cannot be read whole is "read-failed"). With EXPECTED (an earlier FILE), a
# MiB that differs is described at once: a second read, and its bytes (soak-od: lines).
sums() {
    : >"$1"
    i=0
    while [ "$i" -lt "$SIZE_MIB" ]; do
        rm -f /tmp/chunk
        dd if="$DEV" of=/tmp/chunk bs=1M skip="$i" count=1 iflag=direct 2>/tmp/dd.err
        rc=$?
        bytes=$(wc -c </tmp/chunk)
        sum=$(sha256sum </tmp/chunk | cut -d' ' -f1)
        if [ "$rc" != 0 ] || [ "$bytes" != 1048576 ]; then
            say "read-problem chunk=$i rc=$rc bytes=$bytes:" \
                "$(head -c 160 /tmp/dd.err | tr '\n' ' ')"
            sum=read-failed
        fi
        echo "$sum" >>"$1"
        if [ -n "${2:-}" ] && [ "$sum" != "$(sed -n "$((i + 1))p" "$2")" ]; then
            describe_chunk "$i" "$sum" "$(sed -n "$((i + 1))p" "$2")"
        fi
        i=$((i + 1))
    done
}

describe_chunk() {  # describe_chunk INDEX GOT EXPECTED
    again=$(dd if="$DEV" bs=1M skip="$1" count=1 iflag=direct 2>/dev/null | sha256sum \
            | cut -c1-16)
    nonzero=""
    b=0
    while [ "$b" -lt 256 ]; do   # which 4 KiB blocks of the MiB hold something
        dd if=/tmp/chunk bs=4k skip="$b" count=1 2>/dev/null | od -An -tx1 \
            | grep -q '[1-9a-f]' && nonzero="$nonzero $b"
        b=$((b + 1))
    done
    say "differ-detail chunk=$1 got=$(echo "$2" | cut -c1-16)" \
        "expected=$(echo "$3" | cut -c1-16) reread=$again" \
        "nonzero_4k_blocks=$(echo $nonzero | wc -w):$(echo $nonzero | cut -d' ' -f1-16)"
    for b in $(echo $nonzero | cut -d' ' -f1-3); do
        dd if=/tmp/chunk bs=4k skip="$b" count=1 2>/dev/null | od -A d -t x1 | head -n 3 \
            | sed "s/^/soak-od: block $b: /"
    done
}

# compare NAME BEFORE AFTER: how many MiB differ (a missing line counts as different).
compare() {
    differ=$(awk 'NR == FNR { a[FNR] = $1; n1 = FNR; next }
                  { if (a[FNR] != $1) d++; n2 = FNR }
                  END { print d + (n1 > n2 ? n1 - n2 : 0) }' "$2" "$3")
    say "check name=$1 chunks=$SIZE_MIB differ=$differ"
}

dump_dmesg() { say "dmesg-begin"; dmesg; say "dmesg-end"; }
"""

_POWEROFF = r"""
use_disk
fio_run w1 11
sums /tmp/before
corrupt_hook
fio_run v1 11 --verify_only
sums /tmp/after /tmp/before
compare reread /tmp/before /tmp/after
# The event is the power-off itself: init powers the guest off when this job ends, and the
# host checks that QEMU then exits cleanly.
"""

_REBOOT = r"""
use_disk
# The state: STATE_MIB MiB right after the fio region, zeroes on a fresh device. It holds
# the boot number, the seed and checksums of the data written, and what the boots before
# the last reported ("carried:"): a reboot can cut the console short (the job's output
# reaches it through tee), so only the last boot, which ends normally, prints it all.
STATE_MIB=4
dd if="$DEV" bs=1M skip="$SIZE_MIB" count="$STATE_MIB" iflag=direct 2>/dev/null \
    | tr -d '\000' >/tmp/state
boot=$(($(sed -n 's/^boot=//p' /tmp/state | head -n1) + 1))
sed -n '/^sums:$/,/^carried:$/p' /tmp/state | grep -E '^[0-9a-f]{64}$' >/tmp/before
sed '1,/^carried:$/d' /tmp/state >/tmp/carried
: >/tmp/carry
if [ "$boot" -le "$EVENTS" ]; then
    say() { echo "soak-live: $*"; echo "soak: $*" >>/tmp/carry; }
else
    cat /tmp/carried
fi
say "reboot-boot n=$boot of=$((EVENTS + 1))"
if [ "$boot" -gt 1 ]; then
    seed=$(sed -n 's/^seed=//p' /tmp/state | head -n1)
    sums /tmp/after /tmp/before
    compare "reboot-$((boot - 1))" /tmp/before /tmp/after
    fio_run "v$boot" "$seed" --verify_only
    say "event kind=reboot n=$((boot - 1))"
fi
if [ "$boot" -le "$EVENTS" ]; then
    seed=$((100 + boot))
    fio_run "w$boot" "$seed"
    sums /tmp/sums
    {
        echo "boot=$boot"; echo "seed=$seed"
        echo "sums:"; cat /tmp/sums
        echo "carried:"; cat /tmp/carried /tmp/carry
        echo "soak: dmesg-begin"; dmesg; echo "soak: dmesg-end"
    } | head -c $((STATE_MIB * 1048576 - 1)) >/tmp/state
    truncate -s "${STATE_MIB}M" /tmp/state
    dd if=/tmp/state of="$DEV" bs=1M seek="$SIZE_MIB" count="$STATE_MIB" oflag=direct \
        2>/dev/null || stuck state-write
    echo "soak-live: rebooting"
    reboot -f
    sleep 600   # the reboot takes the job with it
    stuck reboot
fi
"""

_RESET_CONTROLLER = r"""
use_disk
reset_once() {  # reset_once LABEL: reset the controller, wait until it is live again
    running=0
    [ -n "${fio_pid:-}" ] && kill -0 "$fio_pid" 2>/dev/null && running=1
    echo 1 >"/sys/class/nvme/$CTRL/reset_controller"
    rc=$?
    wait_until "$WAIT_SECONDS" disk_live || stuck "live-after-reset-$1"
    n=$((n + 1))
    say "event kind=reset-controller n=$n rc=$rc during_io=$running"
}
n=0
fio_run w1 11 &
fio_pid=$!
while [ "$n" -lt "$EVENTS" ] && kill -0 "$fio_pid" 2>/dev/null; do
    usleep 300000
    reset_once "io-$n"
done
wait "$fio_pid"
fio_pid=
sums /tmp/before
reset_once idle
use_disk
sums /tmp/after /tmp/before
compare reset-idle /tmp/before /tmp/after
fio_run v1 11 --verify_only
"""

_PCI_REMOVE_RESCAN = r"""
k=1
while [ "$k" -le "$EVENTS" ]; do
    use_disk
    fio_run "w$k" $((20 + k))
    sums /tmp/before
    bdf=$(basename "$(readlink -f "/sys/class/nvme/$CTRL/device")")
    echo 1 >"/sys/bus/pci/devices/$bdf/remove"
    rc=$?
    wait_until "$WAIT_SECONDS" no_disk || stuck "disk-gone-$k"
    echo 1 >/sys/bus/pci/rescan
    wait_until "$WAIT_SECONDS" disk_live || stuck "disk-back-$k"
    say "event kind=pci-remove-rescan n=$k rc=$rc bdf=$bdf"
    use_disk
    sums /tmp/after /tmp/before
    compare "remove-rescan-$k" /tmp/before /tmp/after
    fio_run "v$k" $((20 + k)) --verify_only
    k=$((k + 1))
done
use_disk
fio_run w-after 29
"""

_DEVICE_DEL_ADD = r"""
zero=$(head -c 1048576 /dev/zero | sha256sum | cut -d' ' -f1)
: >/tmp/zeros
i=0
while [ "$i" -lt "$SIZE_MIB" ]; do echo "$zero" >>/tmp/zeros; i=$((i + 1)); done
k=1
while [ "$k" -le "$EVENTS" ]; do
    use_disk
    fio_run "w$k" $((30 + k))
    # Reads in flight while the host unplugs the device (their errors are expected).
    fio --name=inflight --filename="$DEV" --rw=randread --bs=4k --ioengine=libaio \
        --iodepth=32 --direct=1 --time_based --runtime=900 --output=/dev/null \
        >/dev/null 2>&1 &
    reader=$!
    say "ready-for-unplug n=$k"
    wait_until "$WAIT_SECONDS" no_disk || stuck "disk-gone-$k"
    kill -KILL "$reader" 2>/dev/null   # not waited for: it may sit on the gone device
    wait_until "$WAIT_SECONDS" disk_live || stuck "disk-back-$k"
    say "event kind=device-del-add n=$k"
    use_disk
    # A new device: every block of it reads zeroes (deallocated).
    sums /tmp/after /tmp/zeros
    compare "fresh-$k" /tmp/zeros /tmp/after
    k=$((k + 1))
done
use_disk
fio_run w-after 39
"""

_BODIES = {"poweroff": _POWEROFF, "reboot": _REBOOT, "reset-controller": _RESET_CONTROLLER,
           "pci-remove-rescan": _PCI_REMOVE_RESCAN, "device-del-add": _DEVICE_DEL_ADD}


# The checker's own check: the poweroff job overwrites one 4 KiB block of the region
# between its two checksum passes, which must show as mismatches.
_CORRUPT = """corrupt_hook() {
    dd if=/dev/urandom of="$DEV" bs=4k seek=5 count=1 oflag=direct 2>/dev/null
    say "corrupted block 5 on purpose"
}
"""
_NO_CORRUPT = "corrupt_hook() { :; }\n"


def job(pattern: str, events: int, size_mib: int, corrupt: bool = False) -> str:
    """The guest job (busybox sh) for one boot of `pattern`. corrupt=True (poweroff only)
    damages one block after it was written, to show that the checks catch it."""
    if pattern not in _BODIES:
        raise ValueError(f"unknown soak pattern {pattern!r}")
    if corrupt and pattern != "poweroff":
        raise ValueError("corrupt=True is for the poweroff pattern")
    header = (f"# femu soak job: pattern {pattern} (generated by femu_lab.soak.guest)\n"
              f"PATTERN={pattern}\nEVENTS={int(events)}\nSIZE_MIB={int(size_mib)}\n"
              f"WAIT_SECONDS={WAIT_SECONDS}\n")
    footer = "dump_dmesg\nsay done\n"
    hook = _CORRUPT if corrupt else _NO_CORRUPT
    return header + _LIBRARY + hook + _BODIES[pattern] + footer
