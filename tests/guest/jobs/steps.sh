# The preamble of the nvme-cli guest jobs (nvme_surface.sh, fdp_guest.sh): their tests
# prepend it, after their variables, with job_with_steps() (tests/support/femu_fixtures.py).
#
# Every step leaves one line in $FEMU_OUT/steps.txt (and on the console):
#     STEP <name> rc=<exit status> [key=value ...]
# and the command's stdout / stderr in $FEMU_OUT/<name>.out / <name>.err. A job never
# stops at a failing step (no set -e) and always ends with "STEP end rc=0"; its test
# decides which exit statuses are right.

out=$FEMU_OUT
ctrl=/dev/nvme0
steps=$out/steps.txt
: >"$steps"

say() { echo "STEP $*" | tee -a "$steps"; }

run() {  # run NAME CMD...: CMD's stdout to NAME.out, stderr to NAME.err
    name=$1; shift
    "$@" >"$out/$name.out" 2>"$out/$name.err"
    rc=$?
    say "$name rc=$rc"
    return $rc
}

ns_disk() {  # ns_disk NSID: the block device (nvme0nX) showing that NSID, if any
    for d in /sys/block/nvme0n*; do
        [ -e "$d/nsid" ] || continue
        if [ "$(cat "$d/nsid")" = "$1" ]; then
            basename "$d"
            return 0
        fi
    done
    return 1
}
