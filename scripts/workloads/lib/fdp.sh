# Flexible Data Placement workloads: namespace 1's generic character device (fio's
# io_uring_cmd engine sends NVMe commands through it, placement identifiers included)
# and the controller's FDP logs saved into the results.
# /dev/ng0nX shares the instance numbers of its block device /dev/nvme0nX ($DEV).
NG=/dev/ng0n${DEV##*/nvme0n}

# fdp_setup: FDP must be on (a device with placement=fdp, e.g. conf/lab-fdp.conf); sets
# FDP_RUHS (placement handles of namespace 1) and FDP_RU_BYTES (a reclaim unit).
fdp_setup() {
    if ! nvme fdp feature /dev/nvme0 -e 1 2>/dev/null | grep -q '(FDPE).*: Yes'; then
        say "error: the device offers no Flexible Data Placement: run with placement=fdp," \
            "e.g. --config conf/lab-fdp.conf"
        exit 1
    fi
    nvme fdp configs /dev/nvme0 -e 1 >"$FEMU_OUT/fdp-configs.txt"
    FDP_RUHS=$(nvme fdp status "$DEV" -o json | sed -n 's/.*"nruhsd" *: *\([0-9]*\).*/\1/p')
    FDP_RU_BYTES=$(sed -n 's/^Reclaim Unit Nominal Size: *\([0-9]*\)$/\1/p' \
        "$FEMU_OUT/fdp-configs.txt")
    say "FDP: $FDP_RUHS placement handles on $NG, reclaim units of" \
        "$((FDP_RU_BYTES >> 20)) MiB"
}

# fdp_logs NAME: the FDP statistics (log 22h: host and media bytes written, media bytes
# erased), the handles' status, their usage and the host events as they are now, into
# $FEMU_OUT/fdp-NAME-{stats,status,usage,events}.json.
fdp_logs() {
    nvme fdp stats /dev/nvme0 -e 1 -o json >"$FEMU_OUT/fdp-$1-stats.json"
    nvme fdp status "$DEV" -o json >"$FEMU_OUT/fdp-$1-status.json"
    nvme fdp usage /dev/nvme0 -e 1 -o json >"$FEMU_OUT/fdp-$1-usage.json"
    nvme fdp events /dev/nvme0 -e 1 -E -o json >"$FEMU_OUT/fdp-$1-events.json"
}
