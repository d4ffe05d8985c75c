# The labs' sysbench fileio job on ext4: 2304 MiB of files, random read/write, direct
# I/O, fsync after every write. lab_sysbench THREADS: prepare (not measured), then run.
lab_sysbench() {
    mount_ext4
    phase setup
    cd "$MNT"
    set -- --threads="$1" --file-total-size=2304M --file-test-mode=rndrw \
        --file-extra-flags=direct --file-fsync-all=on
    sysbench fileio "$@" prepare >"$FEMU_OUT/sysbench-prepare.txt"
    sync
    phase workload
    sysbench fileio "$@" --time="$RUNTIME" run | tee "$FEMU_OUT/sysbench.txt"
    cd /
}
