# description: hot/cold lab, pareto:H (0.5 is uniform in fio): 16 KiB writes, one 576 MiB file
# runtime: 300
# arg: 0.5
# include: lib/hotcold.sh
# sim: --rw randwrite --bs 16k --qd 4 --size 576m --dist pareto:$ARG --precondition region
# workload-keys: bs rwmixread
hotcold_randwrite "pareto:$ARG"
