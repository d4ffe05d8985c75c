# description: write-cliff from a half-full device (conf/consumer-qlc.conf, consumer-tlc.conf): the first 1280 MiB written once sequentially (not measured), then the same three rounds within it, so half of the logical space holds data and the dynamic cache is smaller by the rule; ARG: write or randwrite. Plot: femu-plot write-cliff
# runtime: 20
# length: 1920m of I/O + 3 x RUNTIME
# arg: write
# needs-mib: 2048
# include: lib/write-cliff.sh
# sim: --rw $ARG --bs 128k --qd 8 --precondition region --size 1280m --io-size 1920m --idle 640m:20s
# ftl-sim's '--precondition region' writes the region once before the measured part, as
# the setup phase here does.
write_cliff_check_arg
region=$((1280 << 20))
phase setup
fio --name=fill --filename="$DEV" --rw=write --bs=1M --direct=1 --ioengine=libaio \
    --iodepth=8 --size="$region" --output-format=terse >/dev/null
phase workload
write_cliff_rounds "$region"
