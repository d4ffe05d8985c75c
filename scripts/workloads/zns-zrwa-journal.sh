# description: zoned namespace (conf/zns-lab.conf, one ZRWA): a journal's 4 KiB block rewritten 8 times before moving on, ARG blocks (default 256), once in place in a Zone Random Write Area and once each version at the write pointer; flash pages per phase and each mode's mean write latency
# runtime: 60
# length: its work
# arg: 256
# config: zns-lab.conf
# device: zrwa_zones=1
# include: lib/zns.sh
# The journal of a file system or a key-value store rewrites its last block until it is
# full. Phase `workload`: zone 0 opened with its ZRWA (nvme zns open-zone --zrwaa), block i
# written 8 times at the same LBA (in the window: no flash program; a block's first write
# once the window is full commits the oldest unit, the device's implicit flush); phase
# `zrwa-flush`: zrwa-flush-zone commits what the window still holds; phase `plain`: the same
# 8 x ARG writes from zone 2 on without a ZRWA, every version at the write pointer (what a
# host must do without one). Every write is `nvme write --latency` (the ioctl's time, not
# the process's); zrwa-journal.csv has each mode's writes and mean / max latency, the host's
# zns-phases.csv the flash pages each phase programmed (NAND_write, zone_write_pages).
zns_setup
blocks=$ARG
case "$blocks" in ''|*[!0-9]*) say "error: ARG must be a whole number of blocks, not '$ARG'"; exit 1 ;; esac
versions=8
block_lbas=$((4096 / LBA_BYTES))
zone_lbas=$((ZONE_SECTORS * 512 / LBA_BYTES))
cap_lbas=$((ZONE_CAP * 512 / LBA_BYTES))
if [ "$blocks" -lt 1 ] || [ $((blocks * block_lbas)) -gt "$cap_lbas" ]; then
    say "error: ARG must be 1..$((cap_lbas / block_lbas)) blocks (one zone's capacity)"
    exit 1
fi
if [ $((blocks * versions * block_lbas)) -gt $(( (NR_ZONES - 2) * zone_lbas)) ]; then
    say "error: $blocks blocks x $versions versions do not fit in zones 2.."; exit 1
fi
nvme zns id-ns "$ZDEV" >"$FEMU_OUT/id-ns-zns.txt"
field() { awk -v key="$1" '$1 == key && $2 == ":" { print $3 }' "$FEMU_OUT/id-ns-zns.txt"; }
fg_lbas=$(field zrwafg)
window_lbas=$(field zrwasz)
if [ -z "$window_lbas" ] || [ "${window_lbas:-0}" -eq 0 ] || [ "${fg_lbas:-0}" -eq 0 ]; then
    say "error: $ZDEV offers no Zone Random Write Area (nvme zns id-ns: zrwasz" \
        "'${window_lbas}'): run with --set zrwa_zones=1 on a zoned configuration"
    exit 1
fi
say "journal: $blocks blocks x $versions versions of 4 KiB; ZRWAFG $fg_lbas LBAs," \
    "ZRWAS $window_lbas LBAs"
head -c 4096 /dev/urandom >/tmp/journal-block
blkzone reset "$ZDEV"

# journal_write MODE LBA: one 4 KiB write, its latency (us) appended to /tmp/lat-MODE
journal_write() {
    nvme write "$ZDEV" --start-block="$2" --block-count=$((block_lbas - 1)) \
        --data-size=4096 --data=/tmp/journal-block --latency >/tmp/journal-out 2>&1 || {
        say "error: nvme write at LBA $2 ($1) failed: $(tr '\n' ' ' </tmp/journal-out)"
        exit 1
    }
    latency=$(sed -n 's/.*latency:.* \([0-9][0-9]*\) us.*/\1/p' /tmp/journal-out)
    case "$latency" in
        ''|*[!0-9]*) say "error: no latency in nvme write's output: $(tr '\n' ' ' </tmp/journal-out)"
                     exit 1 ;;
    esac
    echo "$latency" >>"/tmp/lat-$1"
}
: >/tmp/lat-zrwa
: >/tmp/lat-plain

phase workload
nvme zns open-zone "$ZDEV" --start-lba=0 --zrwaa >/dev/null
b=0
while [ "$b" -lt "$blocks" ]; do
    v=0
    while [ "$v" -lt "$versions" ]; do
        journal_write zrwa $((b * block_lbas))
        v=$((v + 1))
    done
    b=$((b + 1))
done
zone_reports after-zrwa
phase zrwa-flush
# up to the last LBA written, rounded up to a whole ZRWAFG unit (still in the window)
last=$(( (blocks * block_lbas + fg_lbas - 1) / fg_lbas * fg_lbas - 1 ))
nvme zns zrwa-flush-zone "$ZDEV" --lba="$last" >/dev/null

phase plain
k=0
while [ "$k" -lt $((blocks * versions)) ]; do
    journal_write plain $((2 * zone_lbas + k * block_lbas))
    k=$((k + 1))
done
zone_reports end

# mode,writes,mean_latency_us,max_latency_us
{
    echo "mode,writes,mean_latency_us,max_latency_us"
    for mode in zrwa plain; do
        awk -v mode="$mode" '{ n++; sum += $1; if ($1 > max) max = $1 }
            END { printf "%s,%d,%.1f,%d\n", mode, n, n ? sum / n : 0, max }' "/tmp/lat-$mode"
    done
} >"$FEMU_OUT/zrwa-journal.csv"
cat "$FEMU_OUT/zrwa-journal.csv"
