# Guest job of tests/guest/test_fdp_guest.py: nvme-cli's `nvme fdp` commands and fio's
# FDP writes (io_uring_cmd on the namespace's generic character device) against a femu
# device with placement=fdp. The test prepends the variables it names below (the writes'
# offsets and sizes, the handles), so every number lives in one place: the test.
# The steps' preamble (say, run, ns_disk) is jobs/steps.sh.

# Namespace 1's block device and its generic character device (the same instance
# numbers: nvme0nX and ng0nX).
dev=/dev/$(ns_disk 1)
ng=/dev/ng0n${dev##*/nvme0n}

# fio_fdp NAME OFFSET SIZE FIO-OPTIONS...: sequential 4 KiB writes through io_uring_cmd.
fio_fdp() {
    name=$1 offset=$2 size=$3
    shift 3
    run "$name" fio --name="$name" --filename="$ng" --ioengine=io_uring_cmd --cmd_type=nvme \
        --rw=write --bs=4k --iodepth=8 --offset="$offset" --size="$size" "$@" \
        --output-format=json --output="$out/$name.json"
}

# What the controller says before any write.
run feature nvme fdp feature $ctrl -e 1
run configs nvme fdp configs $ctrl -e 1
run configs-json nvme fdp configs $ctrl -e 1 -o json
run usage nvme fdp usage $ctrl -e 1 -o json
run status-0 nvme fdp status "$dev" -o json
run stats-0 nvme fdp stats $ctrl -e 1 -o json
run events-0 nvme fdp events $ctrl -e 1 -E -o json

# Placed writes: fio's placement identifiers are indices into the RUH status list, which
# femu orders by placement identifier (index i is placement identifier i).
fio_fdp fio-one "$ONE_OFFSET" "$ONE_SIZE" --fdp=1 --plids="$ONE_PLID"
fio_fdp fio-two "$TWO_OFFSET" "$TWO_SIZE" --fdp=1 --plids="$TWO_PLIDS" \
    --plid_select=roundrobin
fio_fdp fio-none "$NONE_OFFSET" "$NONE_SIZE"
run status-1 nvme fdp status "$dev" -o json
run stats-1 nvme fdp stats $ctrl -e 1 -o json

# Events: every type on one handle, only Invalid Placement Identifier on handle 0.
run set-events-one nvme fdp set-events "$dev" -n 1 -p "$ONE_PLID" -e -t 0,1,2,3
run set-events-zero nvme fdp set-events "$dev" -n 1 -p 0 -e -t 3
# One page with DTYPE 2 and a placement identifier the namespace lacks: it still writes
# (to placement handle 0) and raises Invalid Placement Identifier.
head -c 4096 /dev/urandom >/tmp/page
run write-bad-pid nvme write "$dev" --start-block="$BAD_LBA" --block-count=7 \
    --data-size=4096 --data=/tmp/page --dir-type=2 --dir-spec="$BAD_PID"
# Close the partly written units of the first handle (events on) and of the second
# handle named by fio-two (events off): one Reclaim Unit Not Fully Written event.
run update nvme fdp update "$dev" -n 1 -p "$ONE_PLID,$UPDATE_PLID"
run status-2 nvme fdp status "$dev" -o json
run stats-2 nvme fdp stats $ctrl -e 1 -o json
run usage-2 nvme fdp usage $ctrl -e 1 -o json

# A controller reset closes every open unit (femu's model): with Controller Level Reset
# Modified RUHs enabled on the last fio-two handle, one event for it.
run set-events-reset nvme fdp set-events "$dev" -n 1 -p "$RESET_PLID" -e -t 2
run reset nvme reset $ctrl
tenths=0   # the driver brings the controller back; wait (30 s at most) until it serves
while :; do
    nvme fdp status "$dev" -o json >"$out/status-3.out" 2>"$out/status-3.err"
    rc=$?
    [ "$rc" = 0 ] || [ "$tenths" -ge 300 ] && break
    usleep 100000
    tenths=$((tenths + 1))
done
say "status-3 rc=$rc waited_ms=$((tenths * 100))"
run events-host nvme fdp events $ctrl -e 1 -E -o json
run events-text nvme fdp events $ctrl -e 1 -E
run events-ctrl nvme fdp events $ctrl -e 1 -o json

# FDP cannot be turned off while a namespace is in the endurance group: Set Features 1Dh
# (CDW11 endurance group 1, CDW12 FDPE 0) says Command Sequence Error, and so does
# nvme-cli's `fdp feature -d`, which always sets the Save bit (1Dh is saveable).
run disable-set-feature nvme admin-passthru $ctrl --opcode=0x09 --cdw10=0x1d --cdw11=1 \
    --cdw12=0
run disable nvme fdp feature $ctrl -e 1 -d
run feature-after nvme fdp feature $ctrl -e 1
say "end rc=0"
