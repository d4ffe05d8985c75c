# description: hot/cold lab, uniform offsets (fio random): 16 KiB random writes, 4 jobs, one 576 MiB file on ext4
# runtime: 300
# include: lib/hotcold.sh
# sim: --rw randwrite --bs 16k --qd 4 --size 576m --dist random --precondition region
hotcold_randwrite random
