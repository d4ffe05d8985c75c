# femu workload prelude: runs in the guest before every workload body (busybox sh).
# Gives the body $DEV, $MNT and the helpers below; RUNTIME, ARG, PRECONDITION,
# WORKLOAD and WORKLOAD_FILE are set by the host above this text.
set -eu
# ns_dev NSID: the block device of namespace NSID on nvme0. Linux 6.x names the disks in
# the order its parallel namespace scan finished, so with several namespaces nvme0n1 need
# not be namespace 1.
ns_dev() {
    for disk in /sys/block/nvme0n*; do
        if [ "$(cat "$disk/nsid" 2>/dev/null)" = "$1" ]; then
            echo "/dev/${disk##*/}"
            return 0
        fi
    done
    echo "/dev/nvme0n$1"
}
DEV=$(ns_dev 1)
MNT=/mnt/nvme0n1
say() { echo "femu-workload: $*"; }

# phase NAME: append NAME to the device's phases.csv (vendor admin command C1h; the name
# is 1-16 characters of [A-Za-z0-9_.-], sent as four little-endian dwords in CDW12-15).
# The host cuts the measured window from the `workload` phase to the next one.
phase() {
    set -- $(printf '%s' "$1" | od -An -tu1) -- "$1"
    cdws=""
    for dword in 12 13 14 15; do
        value=0
        for weight in 1 256 65536 16777216; do
            if [ "$1" != "--" ]; then
                value=$((value + $1 * weight))
                shift
            fi
        done
        cdws="$cdws --cdw$dword=$value"
    done
    shift   # the "--"
    if ! output=$(nvme admin-passthru /dev/nvme0 --opcode=0xc1 $cdws 2>&1); then
        say "phase marker '$1' failed: $output"
        return 1
    fi
    say "phase $1"
}

# Fill the whole device once with sequential 1 MiB writes (run-blackbox --precondition),
# so the workload starts on a device whose every logical page holds data.
precondition_device() {
    phase precondition
    fio --name=precondition --filename="$DEV" --rw=write --bs=1M --direct=1 \
        --ioengine=libaio --iodepth=8 --size=100% --output-format=terse >/dev/null
    phase setup
}

# ext4 on the whole device at $MNT. nodiscard keeps a preconditioned device full; the
# eager inode-table and journal initialisation keeps ext4's background writes out of the
# measured window.
mount_ext4() {
    mkfs.ext4 -q -F -E nodiscard,lazy_itable_init=0,lazy_journal_init=0 "$DEV"
    mount -t ext4 -o noatime "$DEV" "$MNT"
    say "ext4 on $DEV mounted at $MNT ($(df -m "$MNT" | awk 'NR==2 {print $4}') MiB free)"
}

# fio_json NAME FIO-ARGS...: run fio, its JSON result in $FEMU_OUT/NAME.json. A sweep's
# workload keys (WL_FIO_ARGS, e.g. --bs=16384 --iodepth=8) come last: fio keeps the last
# value of an option. They are checked words without spaces or quotes (workload_params).
fio_json() {
    name=$1
    shift
    say "fio $name${WL_FIO_ARGS:+ ($WL_FIO_ARGS)}"
    # shellcheck disable=SC2086
    fio "$@" ${WL_FIO_ARGS:-} --output-format=json --output="$FEMU_OUT/$name.json"
}

# Free MiB on the mounted filesystem, for workloads that size themselves to it.
free_mib() { df -m "$MNT" | awk 'NR==2 {print $4}'; }

finish_workload() {
    phase end
    cd /
    if grep -q " $MNT " /proc/mounts; then
        umount "$MNT"
    fi
    dmesg >"$FEMU_OUT/dmesg.txt"
    say "done"
}
