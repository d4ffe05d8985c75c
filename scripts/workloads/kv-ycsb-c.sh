# description: YCSB C on the Key Value namespace (conf/kv-lab.conf): read 100 %, zipfian keys; kv-load over io_uring passthrough, values of ARG bytes
# runtime: 60
# arg: 4096
# config: kv-lab.conf
# device: kv_ns_mb=256
# include: lib/kv.sh
# sim: --kv --kv-mix c --kv-keys 4000 --kv-ops 100000000000 --kv-value-size $ARG --qd 4
kv_ycsb c
