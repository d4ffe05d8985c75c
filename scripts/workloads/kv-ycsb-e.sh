# description: YCSB E on the Key Value namespace (conf/kv-lab.conf): scan (List of 1-100 keys) 95 % / insert 5 %, zipfian keys; kv-load over io_uring passthrough, values of ARG bytes
# runtime: 60
# arg: 4096
# config: kv-lab.conf
# device: kv_ns_mb=256
# include: lib/kv.sh
# sim: --kv --kv-mix e --kv-keys 4000 --kv-ops 100000000000 --kv-value-size $ARG --qd 4
kv_ycsb e
