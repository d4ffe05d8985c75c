# The write-cliff workloads (write-cliff.sh, write-cliff-half.sh): ARG is fio's and
# ftl-sim's --rw, write or randwrite.
write_cliff_check_arg() {
    case "$ARG" in
        write|randwrite) ;;
        *) say "error: ARG must be write or randwrite, not '$ARG'"; exit 1 ;;
    esac
}

# write_cliff_rounds REGION_BYTES: three rounds of 640 MiB of 128 KiB writes at QD 8 within
# the first REGION_BYTES of the device, RUNTIME seconds idle after each; sequential rounds
# continue where the last one stopped (wrapping in the region), as ftl-sim's closed loop.
write_cliff_rounds() {
    region=$1
    round_bytes=$((640 << 20))
    written=0
    for round in 1 2 3; do
        offset=0
        size=$region
        if [ "$ARG" = write ]; then
            offset=$((written % region))
            size=$((region - offset))
        fi
        fio_json "fio-write-cliff-$round" --name=write-cliff --filename="$DEV" --rw="$ARG" \
            --bs=128k --ioengine=libaio --iodepth=8 --direct=1 --offset="$offset" \
            --size="$size" --io_size="$round_bytes" --norandommap
        written=$((written + round_bytes))
        say "round $round written; idle for $RUNTIME s"
        sleep "$RUNTIME"
    done
}
