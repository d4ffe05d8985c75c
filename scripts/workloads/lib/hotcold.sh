# The hot/cold lab: four fio jobs writing 16 KiB blocks into one shared 576 MiB file on
# ext4 with a skewed offset distribution, so some pages are written far more often than
# others. One shared file (not one per job as in the 2304 MiB lab job) fits lab-1g's
# 768 MiB and gives every job the same hot spots.
# hotcold_randwrite DIST: DIST in fio's --random_distribution spelling.
hotcold_randwrite() {
    mount_ext4
    phase setup
    fio --directory="$MNT" --filename=hotcold.dat --name=layout --size=576M \
        --create_only=1 --output-format=terse >/dev/null
    sync
    phase workload
    fio_json fio-hotcold --directory="$MNT" --filename=hotcold.dat --name=hotcold \
        --direct=1 --rw=randwrite --bs=16k --size=576M --numjobs=4 --time_based \
        --runtime="$RUNTIME" --group_reporting --norandommap --random_distribution="$1"
}
