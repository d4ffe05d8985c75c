# description: study: numjobs 1-32 (4 KiB random writes, psync, 512 MiB file on ext4)
# runtime: 20
# runs: 6
# sweep-param: numjobs
# include: lib/study.sh
study_setup 512M
phase workload
for jobs in 1 2 4 8 16 32; do
    study_point "numjobs-$jobs" --ioengine=psync --numjobs="$jobs"
done
