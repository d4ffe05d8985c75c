# description: the SLC cache's write cliff (conf/consumer-qlc.conf, consumer-tlc.conf) from an empty device: three rounds of 640 MiB of 128 KiB writes at QD 8 on the raw device, RUNTIME seconds idle after each (the cache folds and refills); ARG is fio's and ftl-sim's --rw: write (sequential, round after round) or randwrite. Plot: femu-plot write-cliff
# runtime: 20
# length: 1920m of I/O + 3 x RUNTIME
# arg: write
# needs-mib: 2048
# include: lib/write-cliff.sh
# sim: --rw $ARG --bs 128k --qd 8 --io-size 1920m --idle 640m:20s
# The idle time after each round is RUNTIME, 20 s by default, as in the '# sim:' line's
# --idle: change both together. write-cliff-half starts from a half-full device.
write_cliff_check_arg
phase workload
write_cliff_rounds "$(blockdev --getsize64 "$DEV")"
