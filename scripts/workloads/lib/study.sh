# Parameter studies: one fio result per parameter value, 4 KiB random writes with direct
# I/O into one file on ext4. `femu-plot sweep RUN --param NAME` draws IOPS, bandwidth and
# mean latency against the value, one line per ioengine.
STUDY_FILE=study.dat

# study_setup SIZE: ext4, and the file laid out (not measured).
study_setup() {
    mount_ext4
    phase setup
    STUDY_SIZE=$1
    fio --directory="$MNT" --filename="$STUDY_FILE" --name=layout --size="$STUDY_SIZE" \
        --create_only=1 --output-format=terse >/dev/null
    sync
}

# study_point NAME FIO-ARGS...: one timed run; FIO-ARGS name the value studied.
study_point() {
    local point=$1
    shift
    fio_json "$point" --directory="$MNT" --filename="$STUDY_FILE" --name="$point" \
        --direct=1 --rw=randwrite --bs=4k --size="$STUDY_SIZE" --time_based \
        --runtime="$RUNTIME" --group_reporting --norandommap "$@"
}
