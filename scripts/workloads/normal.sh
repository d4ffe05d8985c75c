# description: hot/cold lab, fio's normal[:DEV% jitter]: 16 KiB writes, one 576 MiB file
# runtime: 300
# arg: 0
# include: lib/hotcold.sh
# sim: --rw randwrite --bs 16k --qd 4 --size 576m --dist normal:$ARG --precondition region
# workload-keys: bs rwmixread
hotcold_randwrite "normal:$ARG"
