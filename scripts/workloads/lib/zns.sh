# Zoned-namespace workloads: the zoned disk (nsid 2, /dev/nvme0n2, host-managed) beside
# the conventional one ($DEV), its geometry, and zone reports saved into the results.
# Namespace 2's disk and its sysfs folder (ns_dev: Linux 6.x may name it nvme0n1).
ZDEV=$(ns_dev 2)
ZNAME=${ZDEV#/dev/}
ZSYS=/sys/block/$ZNAME

# zns_setup: waits (10 s at most) for the zoned namespace to be there as a host-managed
# disk (the driver may add it after namespace 1, and set its model after adding it), checks
# it is host-managed with mq-deadline (init sets it; Linux needs it for zoned writes at a
# queue depth above one), and sets ZONE_SECTORS, ZONE_CAP, NR_ZONES, MAX_OPEN, MAX_ACTIVE
# and LBA_BYTES. Zone geometry in 512-byte sectors, as the block layer counts.
zns_setup() {
    # Linux 6.12 can show the disk before it has read the zones: "none" until then.
    waited=0
    model=missing
    while [ "$model" != host-managed ] && [ "$waited" -lt 100 ]; do
        [ "$waited" -gt 0 ] && usleep 100000
        ZDEV=$(ns_dev 2)
        ZNAME=${ZDEV#/dev/}
        ZSYS=/sys/block/$ZNAME
        model=$(cat "$ZSYS/queue/zoned" 2>/dev/null || echo missing)
        waited=$((waited + 1))
    done
    if [ "$model" != host-managed ]; then
        say "error: $ZDEV is not a host-managed zoned disk ($model): run with a zoned" \
            "configuration, e.g. --config conf/zns-lab.conf"
        exit 1
    fi
    if ! grep -q '\[mq-deadline\]' "$ZSYS/queue/scheduler"; then
        echo mq-deadline >"$ZSYS/queue/scheduler"
    fi
    ZONE_SECTORS=$(cat "$ZSYS/queue/chunk_sectors")
    NR_ZONES=$(cat "$ZSYS/queue/nr_zones")
    MAX_OPEN=$(cat "$ZSYS/queue/max_open_zones")
    MAX_ACTIVE=$(cat "$ZSYS/queue/max_active_zones")
    LBA_BYTES=$(cat "$ZSYS/queue/logical_block_size")
    # Zone capacity: the first zone's, from the report (every zone has the same).
    ZONE_CAP=$(blkzone report --count 1 "$ZDEV" | sed -n 's/.* cap 0x\([0-9a-f]*\),.*/\1/p')
    ZONE_CAP=$((0x$ZONE_CAP))
    say "zoned $ZDEV: $NR_ZONES zones of $((ZONE_SECTORS / 2048)) MiB" \
        "(capacity $((ZONE_CAP / 2048)) MiB), max open $MAX_OPEN, max active $MAX_ACTIVE," \
        "$LBA_BYTES-byte LBAs, scheduler $(cat "$ZSYS/queue/scheduler")"
}

# zone_reports NAME: blkzone's and nvme-cli's zone reports as they are now, into
# $FEMU_OUT/zones-NAME-blkzone.txt and zones-NAME-nvme.txt.
zone_reports() {
    blkzone report "$ZDEV" >"$FEMU_OUT/zones-$1-blkzone.txt"
    nvme zns report-zones "$ZDEV" >"$FEMU_OUT/zones-$1-nvme.txt"
}

# zone_max_open: the open-zone limit a job may use (the device's, or 8 without a limit).
zone_max_open() {
    if [ "$MAX_OPEN" -gt 0 ]; then echo "$MAX_OPEN"; else echo 8; fi
}

# uptime_s: seconds since boot (10 ms resolution), for the guest's own phase times.
uptime_s() { cut -d' ' -f1 /proc/uptime; }
