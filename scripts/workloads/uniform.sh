# description: hot/cold lab, uniform offsets: 16 KiB writes, 4 jobs, one 576 MiB ext4 file
# runtime: 300
# include: lib/hotcold.sh
# sim: --rw randwrite --bs 16k --qd 4 --size 576m --dist random --precondition region
# workload-keys: bs rwmixread
hotcold_randwrite random
