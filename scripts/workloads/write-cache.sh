# description: the volatile write cache's cost: 4 KiB random writes at QD 8 on the raw device for RUNTIME s with the cache on (feature 06h WCE 1), then for RUNTIME s with it off (WCE 0: every write programmed before it completes), each its own fio JSON; needs a write buffer (--set write_buffer_sectors=N)
# runtime: 30
# runs: 2
# sim: --rw randwrite --bs 4k --qd 8
# ftl-sim's line runs the cache-on half only (a WCE switch is a version-5 trace record).
if ! nvme get-feature /dev/nvme0 -f 6 >/dev/null 2>&1; then
    say "error: the device has no volatile write cache (set write_buffer_sectors)"
    exit 1
fi
phase workload
for wce in 1 0; do
    nvme set-feature /dev/nvme0 -f 6 --value="$wce" >/dev/null
    say "write cache $(nvme get-feature /dev/nvme0 -f 6 -H 2>/dev/null | tail -1)"
    fio_json "fio-wce-$wce" --name="wce-$wce" --filename="$DEV" --rw=randwrite --bs=4k \
        --ioengine=libaio --iodepth=8 --direct=1 --time_based --runtime="$RUNTIME" \
        --norandommap
done
nvme set-feature /dev/nvme0 -f 6 --value=1 >/dev/null
