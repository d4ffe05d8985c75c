# description: study: file size 200 MiB-4 GiB, sizes that do not fit skipped (4 KiB writes)
# runtime: 20
# runs: 5
# sweep-param: size
# include: lib/study.sh
mount_ext4
phase workload
for size in 200 512 1024 2048 4096; do
    rm -f "$MNT/$STUDY_FILE"
    if [ "$size" -gt $(( $(free_mib) * 9 / 10 )) ]; then
        say "skipping size ${size}M: the filesystem has $(free_mib) MiB free"
        continue
    fi
    STUDY_SIZE=${size}M
    study_point "size-$size" --ioengine=psync --numjobs=4
done
