# description: hot/cold lab, pareto:H (the hottest H of the blocks get 1-H of the writes; 0.5 is uniform in fio): 16 KiB random writes, 4 jobs, one 576 MiB file
# runtime: 300
# arg: 0.5
# include: lib/hotcold.sh
# sim: --rw randwrite --bs 16k --qd 4 --size 576m --dist pareto:$ARG --precondition region
hotcold_randwrite "pareto:$ARG"
