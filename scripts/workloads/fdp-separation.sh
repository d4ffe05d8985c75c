# description: FDP lab (conf/lab-fdp.conf): two fio jobs of 4 KiB random writes through io_uring_cmd on /dev/ng0nX, a hot one over the first 10 % of the LBAs taking 90 % of the writes and a cold one over the rest; ARG is the hot job's placement handle (cold on 0), and ARG 0 sends no placement identifier at all (the same jobs without FDP)
# runtime: 60
# arg: 1
# include: lib/fdp.sh
# sim: --rw randwrite --bs 4k --qd 16 --dist hotcold:10:90 --fdp 0 --fdp-hot $ARG
# The two jobs share one fio flow (flow_id 1, weights 9 and 1), so the hot job issues 9
# writes for every cold one; each has 8 writes in flight. With ARG N > 0 the hot job
# writes with placement identifier N and the cold one with 0 (fio's fdp=1, plids); with
# ARG 0 neither names one, so every write goes to placement handle 0, as from a host that
# knows nothing of FDP. The FDP logs are saved before and after the writes
# (fdp-start-*.json, fdp-end-*.json: MBMW / HBMW between them is the device's WAF). Run
# both from an aged state of their own (femu-lab age with the same workload), or the pair
# with `femu-lab fdp-lab`, which also compares them (femu-plot fdp).
fdp_setup
hot_handle=$ARG
case "$hot_handle" in ''|*[!0-9]*) say "error: ARG must be a placement handle, not '$ARG'"; exit 1 ;; esac
if [ "$hot_handle" -ge "$FDP_RUHS" ]; then
    say "error: ARG $hot_handle: the namespace has placement handles 0-$((FDP_RUHS - 1))"
    exit 1
fi
bytes=$(blockdev --getsize64 "$DEV")
hot_bytes=$((bytes / 10 / 4096 * 4096))
if [ "$hot_handle" -gt 0 ]; then
    hot_place="--fdp=1 --plids=$hot_handle"
    cold_place="--fdp=1 --plids=0"
    say "hot data ($((hot_bytes >> 20)) MiB) on placement handle $hot_handle, cold data on 0"
else
    hot_place=""
    cold_place=""
    say "no placement identifiers: hot and cold data both on placement handle 0"
fi
phase setup
fdp_logs start
phase workload
fio_json fio-fdp-separation --filename="$NG" --ioengine=io_uring_cmd --cmd_type=nvme \
    --rw=randwrite --bs=4k --iodepth=8 --norandommap --time_based --runtime="$RUNTIME" \
    --flow_id=1 --flow_sleep=100 \
    --name=hot --offset=0 --size="$hot_bytes" --flow=9 $hot_place \
    --name=cold --offset="$hot_bytes" --size=$((bytes - hot_bytes)) --flow=1 $cold_place
fdp_logs end
