# description: parameter study: iodepth 1-64 with ioengine psync vs libaio (4 KiB random writes, one 512 MiB file on ext4)
# runtime: 20
# runs: 14
# sweep-param: iodepth
# include: lib/study.sh
study_setup 512M
phase workload
for engine in psync libaio; do
    for depth in 1 2 4 8 16 32 64; do
        study_point "iodepth-$engine-$depth" --ioengine="$engine" --iodepth="$depth"
    done
done
