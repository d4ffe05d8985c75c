# description: FDP lab (conf/lab-fdp.conf): 512 MiB of 4 KiB random writes by one fio job through io_uring_cmd on /dev/ng0nX, 90 % of them to the first 10 % of the LBAs (hot), the rest to the other 90 % (cold); ARG is the hot data's placement handle (cold on 0), and ARG 0 sends no placement identifier at all (the same writes without FDP)
# arg: 1
# include: lib/fdp.sh
# length: 512m of I/O
# sim: --rw randwrite --bs 4k --qd 16 --io-size 512m --dist hotcold:10:90 --fdp 0 --fdp-hot $ARG
# The request stream is the same at any host speed: one fio job (16 writes in flight,
# pinned to one vCPU, so one submission queue keeps its order) draws every offset from
# its fixed seed and stops after 512 MiB, not after a time; the hot/cold mix is fio's
# zoned_abs distribution, not two jobs whose interleaving would follow the guest's speed.
# With ARG N > 0 each write's placement identifier follows its offset (fio's dp_scheme:
# the hot range on N, the cold range on 0); with ARG 0 no write names one, so every write
# goes to placement handle 0, as from a host that knows nothing of FDP. RUNTIME is not
# used. The FDP logs are saved before and after the writes (fdp-start-*.json,
# fdp-end-*.json: MBMW / HBMW between them is the device's WAF). Run both from an aged
# state of their own (femu-lab age with the same workload), or the pair with
# `femu-lab fdp-lab`, which also compares them (femu-plot fdp).
fdp_setup
hot_handle=$ARG
case "$hot_handle" in ''|*[!0-9]*) say "error: ARG must be a placement handle, not '$ARG'"; exit 1 ;; esac
if [ "$hot_handle" -ge "$FDP_RUHS" ]; then
    say "error: ARG $hot_handle: the namespace has placement handles 0-$((FDP_RUHS - 1))"
    exit 1
fi
bytes=$(blockdev --getsize64 "$DEV")
hot_bytes=$((bytes / 10 / 4096 * 4096))
cold_bytes=$((bytes - hot_bytes))
if [ "$hot_handle" -gt 0 ]; then
    # start, end (exclusive), placement identifier index: one line per range
    scheme="$FEMU_OUT/fdp-scheme.txt"
    printf '%s, %s, %s\n' 0 "$hot_bytes" "$hot_handle" "$hot_bytes" "$bytes" 0 >"$scheme"
    place="--fdp=1 --fdp_pli_select=scheme --dp_scheme=$scheme"
    say "hot data ($((hot_bytes >> 20)) MiB) on placement handle $hot_handle, cold data on 0"
else
    place=""
    say "no placement identifiers: hot and cold data both on placement handle 0"
fi
phase setup
fdp_logs start
phase workload
fio_json fio-fdp-separation --filename="$NG" --ioengine=io_uring_cmd --cmd_type=nvme \
    --name=fdp-separation --rw=randwrite --bs=4k --iodepth=16 --norandommap \
    --randrepeat=1 --randseed=1 --cpus_allowed=0 --io_size=512m \
    --random_distribution="zoned_abs:90/${hot_bytes}:10/${cold_bytes}" $place
fdp_logs end
