# description: DFTL's CMT at work: fill the raw device, then 4 KiB random reads over all of it, QD 1 (compare cmt_entries)
# runtime: 30
# sim: --rw randread --bs 4k --qd 1 --precondition seq
phase precondition
fio_json fio-dftl-fill --name=fill --filename="$DEV" --rw=write --bs=1M --ioengine=libaio \
    --iodepth=4 --direct=1
phase workload
fio_json fio-dftl-randread --name=dftl-randread --filename="$DEV" --rw=randread --bs=4k \
    --ioengine=psync --direct=1 --time_based --runtime="$RUNTIME" --norandommap
