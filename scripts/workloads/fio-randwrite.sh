# description: the labs' fio randwrite: 16 KiB, 4 jobs x 576 MiB files on ext4 (lab-4g)
# runtime: 300
# needs-mib: 2400
# include: lib/fio-lab.sh
# sim: --rw randwrite --bs 16k --qd 4 --size 2304m --precondition region
# workload-keys: bs rwmixread
lab_fio randwrite
