# description: hot/cold lab, zipf:THETA (0.8, 1.2): 16 KiB writes, 4 jobs, one 576 MiB file
# runtime: 300
# arg: 1.2
# include: lib/hotcold.sh
# sim: --rw randwrite --bs 16k --qd 4 --size 576m --dist zipf:$ARG --precondition region
# workload-keys: bs rwmixread
hotcold_randwrite "zipf:$ARG"
