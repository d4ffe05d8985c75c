# description: zoned namespace (conf/zns-lab.conf): fio --zonemode=zbd on /dev/nvme0n2, sequential 128 KiB writes, then 4 KiB random writes fio keeps zone-sequential within max_open zones, resetting zones as it goes; zone reports saved
# runtime: 60
# length: RUNTIME / 2
# include: lib/zns.sh
# Half of RUNTIME each: phase `seqwrite` (fio wraps around and resets the zones it comes
# back to), then phase `workload` (the random writes, the measured window). Every zone is
# reset before each part; blkzone and nvme-cli zone reports are saved before, between and
# after.
zns_setup
phase setup
blkzone reset "$ZDEV"
zone_reports start
half=$((RUNTIME / 2))
[ "$half" -ge 1 ] || half=1
open=$(zone_max_open)

phase seqwrite
fio_json fio-zns-seqwrite --name=zns-seqwrite --filename="$ZDEV" --zonemode=zbd \
    --direct=1 --ioengine=libaio --iodepth=4 --rw=write --bs=128k \
    --max_open_zones="$open" --time_based --runtime="$half"
zone_reports after-seqwrite

blkzone reset "$ZDEV"
phase workload
# Random writes: fio picks a random open zone (at most $open) and writes at its write
# pointer. Past 70 % of the namespace written, every 100th write also resets a zone.
fio_json fio-zns-randwrite --name=zns-randwrite --filename="$ZDEV" --zonemode=zbd \
    --direct=1 --ioengine=libaio --iodepth=8 --rw=randwrite --bs=4k \
    --max_open_zones="$open" --zone_reset_threshold=0.7 --zone_reset_frequency=0.01 \
    --time_based --runtime="$half"
zone_reports end
