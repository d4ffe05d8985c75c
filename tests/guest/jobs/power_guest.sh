# Guest job of tests/guest/test_power_guest.py: what Linux's nvme driver made of femu's
# power states. The test prepends DEEPEST (the state APST should end in, or 0 when it
# should not move) and TRIES, then jobs/steps.sh (say, run, ns_disk).

run id-ctrl nvme id-ctrl "$ctrl" --output-format=binary
# the limit the driver was loaded with (kernel command line, nvme_core.PARAM)
run latency cat /sys/module/nvme_core/parameters/default_ps_max_latency_us
# the table the driver programmed, as nvme-cli reads it back, and APSTE
run apst nvme get-feature "$ctrl" --feature-id=0x0c --human-readable
run apst-bin nvme get-feature "$ctrl" --feature-id=0x0c --raw-binary
# idle: poll the power state (an admin command leaves it as it is) until it is the
# deepest, at most TRIES seconds; a guest without APST takes the whole time
i=0
while [ "$i" -lt "$TRIES" ]; do
    sleep 1
    i=$((i + 1))
    # "Current value:0x00000003" ("00000000" for 0: printf's # adds no 0x to a zero)
    ps=$(nvme get-feature "$ctrl" --feature-id=0x02 2>/dev/null |
         sed -n 's/.*value: *\(0x\)\{0,1\}\([0-9a-fA-F]*\).*/\2/p')
    [ -n "$ps" ] && [ $((0x$ps & 31)) -eq "$DEEPEST" ] && [ "$DEEPEST" -ne 0 ] && break
done
run ps-idle nvme get-feature "$ctrl" --feature-id=0x02
# one O_DIRECT read: it finds the drive asleep and pays the exit latency
run read dd if="/dev/$(ns_disk 1)" of=/dev/null bs=4096 count=1 iflag=direct
run ps-after nvme get-feature "$ctrl" --feature-id=0x02
say end rc=0
