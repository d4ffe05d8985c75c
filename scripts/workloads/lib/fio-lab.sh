# The labs' fio job on ext4: four 576 MiB files, 16 KiB blocks, psync, direct I/O.
# lab_fio RW: lays the files out first (not measured), then runs RW for $RUNTIME s.
lab_fio() {
    mount_ext4
    phase setup
    fio --directory="$MNT" --name=fio_test --size=576M --numjobs=4 --create_only=1 \
        --output-format=terse >/dev/null
    sync
    phase workload
    fio_json "fio-$1" --directory="$MNT" --name=fio_test --direct=1 --rw="$1" \
        --bs=16k --size=576M --numjobs=4 --time_based --runtime="$RUNTIME" \
        --group_reporting --norandommap
}
