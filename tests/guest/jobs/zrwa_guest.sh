# Guest job of tests/guest/test_zrwa_guest.py: nvme-cli's ZRWA commands on the femu zoned
# namespace (nsid 2). The test prepends the variables (zone start, ZRWAFG, ZRWAS in LBAs)
# and jobs/steps.sh (say, run, ns_disk); every LBA below is derived from them here so
# the test's hand-computed write pointers name the same numbers.

zdev=/dev/$(ns_disk 2)
# Data of one byte value each: the test knows what every sector must read back.
fill() { head -c "$2" /dev/zero | tr '\0' "$1" >"/tmp/$1"; }
fill A 4096
fill B 2048
fill C 12288
fill D 10240
fill E 4096
report() { run "$1" nvme zns report-zones "$zdev" --start-lba="$Z" --descs=1; }

run id-ns nvme zns id-ns "$zdev"
run id-ns-bin nvme zns id-ns "$zdev" --output-format=binary
run open nvme zns open-zone "$zdev" --start-lba="$Z" --zrwaa
report report-open
# 8 LBAs at the write pointer, a rewrite of 4 of them in the window, 24 more after them
run write-a nvme write "$zdev" --start-block="$Z" --block-count=7 --data-size=4096 --data=/tmp/A
run write-b nvme write "$zdev" --start-block=$((Z + 4)) --block-count=3 --data-size=2048 --data=/tmp/B
run write-c nvme write "$zdev" --start-block=$((Z + 8)) --block-count=23 --data-size=12288 --data=/tmp/C
report report-written
run read-1 nvme read "$zdev" --start-block="$Z" --block-count=31 --data-size=16384 --data="$out/read-1.bin"
# commit one ZRWAFG unit explicitly (up to its last LBA), then one LBA off a unit boundary
run flush nvme zns zrwa-flush-zone "$zdev" --lba=$((Z + FG - 1))
report report-flushed
run flush-odd nvme zns zrwa-flush-zone "$zdev" --lba=$((Z + FG + 2))
# a write ending 8 LBAs past wp + ZRWAS: the device commits what brings its end inside
run write-d nvme write "$zdev" --start-block=$((Z + FG + WINDOW - 12)) --block-count=19 --data-size=10240 --data=/tmp/D
report report-implicit
run write-below nvme write "$zdev" --start-block=$((Z + FG)) --block-count=7 --data-size=4096 --data=/tmp/E
run append nvme zns zone-append "$zdev" --zslba="$Z" --data-size=4096 --data=/tmp/E
run finish nvme zns finish-zone "$zdev" --start-lba="$Z"
report report-finished
run read-2 nvme read "$zdev" --start-block="$Z" --block-count=127 --data-size=65536 --data="$out/read-2.bin"
say end rc=0
