# description: zoned namespace (conf/zns-lab.conf): F2FS with its metadata on the conventional /dev/nvme0n1 and its data on the zoned /dev/nvme0n2, a cold file, then fileserver-like cycles (files of 64 KiB..2 MiB created, read and written at random with fsyncs, deleted a cycle later) that keep F2FS cleaning sections
# runtime: 120
# include: lib/zns.sh
# mkfs.f2fs -m (zoned block device support) -c ZONED CONVENTIONAL: the device given last is
# the first of the volume and holds the superblock, checkpoints, SIT, NAT and SSA (they
# need random writes); -c appends the zoned one. The mount names the first device.
# Setup (not measured): a cold file of 55 % of the free space, so the fileserver's churn
# works in what is left and F2FS must clean sections (zones) to find free ones. F2FS's own
# counters (debugfs status: GC calls, segments and blocks moved) are saved before and after.
zns_setup
phase setup
modprobe f2fs
blkzone reset "$ZDEV"
mkfs.f2fs -f -m -c "$ZDEV" "$DEV" >"$FEMU_OUT/mkfs-f2fs.txt"
mount -t f2fs -o noatime "$DEV" "$MNT"
grep -q ' /sys/kernel/debug ' /proc/mounts || mount -t debugfs debugfs /sys/kernel/debug
say "F2FS on $DEV + $ZDEV mounted at $MNT ($(free_mib) MiB free)"
cold_mib=$(( $(free_mib) * 55 / 100 ))
fio --name=cold --directory="$MNT" --filename=cold.dat --rw=write --bs=1M \
    --size="${cold_mib}M" --end_fsync=1 --output-format=terse >/dev/null
sync
say "cold file: $cold_mib MiB; $(free_mib) MiB free"
cp /sys/kernel/debug/f2fs/status "$FEMU_OUT/f2fs-status-before.txt"
zone_reports start

phase workload
# Cycles until RUNTIME: four fio jobs lay out 12 files each in a new set (64 KiB..2 MiB,
# ~48 MiB a set), read and write them at random (4..64 KiB, 60 % writes, an fsync every
# 32 writes, as much as the files hold); then half the files of the set before are deleted
# and the rest of the one before that. The four jobs' files share F2FS's sections, so the
# deletes leave sections partly valid, and F2FS must clean them. Buffered I/O: F2FS on a
# zoned disk writes in LFS mode, which would turn direct writes into buffered ones anyway.
# (Not fio's unlink_each_loop: fio 3.33 fails the reads of the loop after an unlink with
# "full resid".)
mkdir -p "$FEMU_OUT/fileserver"
deadline=$(( $(cut -d. -f1 /proc/uptime) + RUNTIME ))
cycle=0
while left=$(( deadline - $(cut -d. -f1 /proc/uptime) )) && [ "$left" -gt 0 ]; do
    cycle=$((cycle + 1))
    mkdir -p "$MNT/set$cycle"
    fio --name=fileserver --directory="$MNT/set$cycle" --numjobs=4 --nrfiles=12 \
        --filesize=64k:2m --bsrange=4k-64k --rw=randrw --rwmixread=40 \
        --file_service_type=random --fsync=32 --ioengine=psync --group_reporting \
        --runtime="$left" --output-format=json \
        --output="$FEMU_OUT/fileserver/cycle-$(printf %03d "$cycle").json"
    rm -f "$MNT/set$((cycle - 1))"/*[02468]
    rm -rf "$MNT/set$((cycle - 2))"
done
sync
say "fileserver: $cycle cycles; $(free_mib) MiB free at the end"
cp /sys/kernel/debug/f2fs/status "$FEMU_OUT/f2fs-status-after.txt"
zone_reports end
