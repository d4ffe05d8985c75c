# description: study: iodepth 1-64, psync vs libaio (4 KiB random writes, 512 MiB file)
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
