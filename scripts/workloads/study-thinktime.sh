# description: study: thinktime 0-1000 us (4 KiB random writes, psync, 4 jobs, 512 MiB)
# runtime: 20
# runs: 6
# sweep-param: thinktime
# include: lib/study.sh
study_setup 512M
phase workload
for think in 0 10 50 100 500 1000; do
    study_point "thinktime-$think" --ioengine=psync --numjobs=4 --thinktime="$think"
done
