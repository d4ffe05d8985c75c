# description: the SLC cache's write cliff (conf/consumer-qlc.conf, consumer-tlc.conf): three rounds of 640 MiB of 128 KiB writes at QD 8 on the raw device, RUNTIME seconds idle after each (the cache folds and refills); ARG is fio's and ftl-sim's --rw: write (sequential, round after round) or randwrite. Plot: femu-plot write-cliff
# runtime: 20
# arg: write
# needs-mib: 2048
# sim: --rw $ARG --bs 128k --qd 8 --io-size 1920m --idle 640m:20s
# The device starts empty (or from --aged STATE: femu-lab age --passes 0 fills it once,
# which leaves the dynamic cache its smallest). The idle time after each round is
# RUNTIME, 20 s by default, as in the '# sim:' line's --idle: change both together.
case "$ARG" in
    write|randwrite) ;;
    *) say "error: ARG must be write or randwrite, not '$ARG'"; exit 1 ;;
esac
round_bytes=$((640 << 20))
phase workload
for round in 1 2 3; do
    # sequential rounds continue where the last one stopped, as ftl-sim's do
    offset=0
    size=$(blockdev --getsize64 "$DEV")
    if [ "$ARG" = write ]; then
        offset=$(((round - 1) * round_bytes))
        size=$round_bytes
    fi
    fio_json "fio-write-cliff-$round" --name=write-cliff --filename="$DEV" --rw="$ARG" \
        --bs=128k --ioengine=libaio --iodepth=8 --direct=1 --offset="$offset" \
        --size="$size" --io_size="$round_bytes" --norandommap
    say "round $round written; idle for $RUNTIME s"
    sleep "$RUNTIME"
done
