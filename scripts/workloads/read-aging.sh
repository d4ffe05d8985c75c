# description: read latency of old vs fresh data (read retries; conf/consumer-qlc.conf, consumer-tlc.conf), from an aged state whose data has rested (femu-lab age --rest 60d): rewrite the first ARG percent of the device, then 4 KiB random reads at QD 8 for RUNTIME s over the old part and over the fresh part, each its own fio job and JSON. Plots: femu-plot read-latency (read_retries.csv, by block age)
# runtime: 30
# runs: 2
# arg: 10
# sim: --rw randread --bs 4k --qd 8 --io-size 256m
# ftl-sim's line reads the whole device at random, old and fresh pages alike: its
# read_retries.csv splits them by block age, as the device's does.
case "$ARG" in
    ''|*[!0-9]*) say "error: ARG must be a percentage, not '$ARG'"; exit 1 ;;
esac
if [ "$ARG" -lt 1 ] || [ "$ARG" -gt 90 ]; then
    say "error: ARG $ARG: the fresh part must be 1 to 90 percent of the device"
    exit 1
fi
bytes=$(blockdev --getsize64 "$DEV")
fresh=$((bytes / 100 * ARG / 1048576 * 1048576))
phase setup
fio --name=refresh --filename="$DEV" --rw=write --bs=1M --direct=1 --ioengine=libaio \
    --iodepth=8 --size="$fresh" --output-format=terse >/dev/null
say "rewrote the first $((fresh >> 20)) MiB; the rest is as old as the aged state"
phase workload
fio_json fio-read-old --name=read-old --filename="$DEV" --rw=randread --bs=4k \
    --ioengine=libaio --iodepth=8 --direct=1 --offset="$fresh" --size=$((bytes - fresh)) \
    --time_based --runtime="$RUNTIME" --norandommap
fio_json fio-read-fresh --name=read-fresh --filename="$DEV" --rw=randread --bs=4k \
    --ioengine=libaio --iodepth=8 --direct=1 --offset=0 --size="$fresh" \
    --time_based --runtime="$RUNTIME" --norandommap
