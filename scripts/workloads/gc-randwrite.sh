# description: the default: 4 KiB random writes, raw device, libaio iodepth 16; GC within seconds
# runtime: 60
# sim: --rw randwrite --bs 4k --qd 16
# workload-keys: bs iodepth numjobs rwmixread
phase workload
fio_json fio-gc-randwrite --name=gc-randwrite --filename="$DEV" --rw=randwrite --bs=4k \
    --ioengine=libaio --iodepth=16 --direct=1 --time_based --runtime="$RUNTIME" --norandommap
