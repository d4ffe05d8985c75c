# description: zoned namespace (conf/zns-lab.conf): host-driven compaction of victim zones, their valid 4 KiB blocks (ARG percent, default 50) moved into fresh zones once by Simple Copy (nvme copy) and once by read + Zone Append, victims reset; NAND_cpbk vs NAND_read + NAND_write per phase
# runtime: 60
# length: its work
# arg: 50
# include: lib/zns.sh
# include: lib/zns-compaction.sh
# Phases (phases.csv): `setup` fills 2 x VICTIMS zones and reads them back for checksums;
# `workload` compacts the first VICTIMS zones with `nvme copy` (source ranges = the valid
# extents, destination = the target zone's write pointer, within the namespace's MSRC /
# MSSRL / MCL); `compact-rw` compacts the others by `nvme read` of each valid extent and
# `nvme zns zone-append` of what was read; `verify` reads every moved payload back and
# compares checksums. Each victim is reset (`nvme zns reset-zone`) once moved. Which blocks
# are valid is the host's bookkeeping only (as a file system's would be): runs of 1..16
# blocks, each valid with probability ARG %, drawn from a fixed seed, the same layout for
# the victims of both methods. Idle gaps of 2 s between phases keep each second of the
# device's nand.csv in one phase. The job prints a table (compaction.csv); the host adds
# the NAND counts per phase (zns-phases.csv).
zns_setup
valid_pct=$ARG
case "$valid_pct" in ''|*[!0-9]*) say "error: ARG must be a whole percent, not '$ARG'"; exit 1 ;; esac
[ "$valid_pct" -ge 1 ] && [ "$valid_pct" -le 100 ] || { say "error: ARG must be 1..100"; exit 1; }
victims=8
[ $((NR_ZONES / 4)) -lt "$victims" ] && victims=$((NR_ZONES / 4))
work=/tmp/compaction
rm -rf "$work"
mkdir -p "$work"
lbas_per_sector_unit=$((LBA_BYTES / 512))
zone_lbas=$((ZONE_SECTORS / lbas_per_sector_unit))
cap_lbas=$((ZONE_CAP / lbas_per_sector_unit))
block_lbas=$((4096 / LBA_BYTES))
# Reads and appends move at most 256 KiB a command, and no more than the controller takes
# (MDTS), a Zone Append may carry (ZASL) or the driver maps from nvme-cli's buffer, one
# segment per 4 KiB page (max_segments; a larger buffer fails with "Invalid argument").
chunk_bytes=$((256 << 10))
for queue_limit in $(($(cat "$ZSYS/queue/max_hw_sectors_kb") * 1024)) \
                   "$(cat "$ZSYS/queue/zone_append_max_bytes")" \
                   $(( ($(cat "$ZSYS/queue/max_segments") - 1) * 4096 )); do
    [ "$queue_limit" -gt 0 ] && [ "$queue_limit" -lt "$chunk_bytes" ] && chunk_bytes=$queue_limit
done

# Copy limits from Identify Namespace (nvme-cli's JSON), in LBAs; MSRC is 0-based.
nvme id-ns "$ZDEV" -o json >"$FEMU_OUT/id-ns-zoned.json"
limit() { sed -n "s/.*\"$1\" *: *\([0-9]*\).*/\1/p" "$FEMU_OUT/id-ns-zoned.json" | head -n 1; }
mssrl=$(limit mssrl)
mcl=$(limit mcl)
msrc=$(limit msrc)
if [ -z "$mssrl" ] || [ -z "$mcl" ] || [ -z "$msrc" ] || [ "$mcl" -eq 0 ]; then
    say "error: Identify Namespace of $ZDEV reports no Copy limits (MSSRL, MCL, MSRC)"
    exit 1
fi
say "victims: 2 x $victims zones, $valid_pct % valid; Copy limits: MSSRL $mssrl, MCL $mcl" \
    "LBAs, $((msrc + 1)) ranges"

valid_extents "$victims" "$valid_pct" "$cap_lbas" "$block_lbas" \
    >"$FEMU_OUT/compaction-extents.txt"
compaction_plan copy 0 $((2 * victims)) <"$FEMU_OUT/compaction-extents.txt" \
    >"$FEMU_OUT/compaction-plan-copy.sh"
compaction_plan rw "$victims" $((3 * victims)) <"$FEMU_OUT/compaction-extents.txt" \
    >"$FEMU_OUT/compaction-plan-rw.sh"

# read_lbas FIRST COUNT FILE: COUNT LBAs from FIRST into FILE (direct I/O through the
# block layer, for the checksums only: the rw method reads with nvme read).
read_lbas() {
    dd if="$ZDEV" of="$3" bs=1M iflag=direct,skip_bytes,count_bytes \
        skip=$(($1 * LBA_BYTES)) count=$(($2 * LBA_BYTES)) 2>/dev/null
}

# payload_sum ZONE VICTIM: md5 of the victim's valid extents, in order (zone read once).
payload_sum() {
    read_lbas $(($1 * zone_lbas)) "$cap_lbas" "$work/zone"
    awk -v v="$2" '$1 == v { print $2, $3 }' "$FEMU_OUT/compaction-extents.txt" \
        | while read -r start length; do
            dd if="$work/zone" bs="$LBA_BYTES" skip="$start" count="$length" 2>/dev/null
        done | md5sum | cut -d' ' -f1
}

phase setup
blkzone reset "$ZDEV"
fio --name=fill --filename="$ZDEV" --zonemode=zbd --direct=1 --ioengine=libaio --iodepth=4 \
    --rw=write --bs=128k --size=$((2 * victims * ZONE_SECTORS * 512)) --refill_buffers \
    --output-format=terse >/dev/null
v=0
while [ "$v" -lt "$victims" ]; do
    echo "copy $v $(payload_sum "$v" "$v")" >>"$work/expected"
    echo "rw $v $(payload_sum $((victims + v)) "$v")" >>"$work/expected"
    v=$((v + 1))
done
zone_reports filled
sync
sleep 2

# run_method METHOD: the plan's commands, timed by the guest's clock.
run_method() {
    started=$(uptime_s)
    # nvme-cli reports every success on stderr: kept out of the log unless a command fails.
    if ! sh -e "$FEMU_OUT/compaction-plan-$1.sh" 2>"$work/stderr"; then
        tail -n 5 "$work/stderr"
        say "error: compaction by $1 failed"
        exit 1
    fi
    ended=$(uptime_s)
    echo "$started $ended" | awk '{ printf "%.2f", $2 - $1 }' >"$work/seconds-$1"
    sleep 2
}
phase workload
run_method copy
phase compact-rw
run_method rw
zone_reports compacted

phase verify
: >"$work/verified"
while read -r method v target length; do
    read_lbas "$target" "$length" "$work/moved"
    got=$(md5sum <"$work/moved" | cut -d' ' -f1)
    want=$(awk -v m="$method" -v v="$v" '$1 == m && $2 == v { print $3 }' "$work/expected")
    if [ "$got" = "$want" ]; then echo "$method ok" >>"$work/verified"
    else echo "$method bad" >>"$work/verified"; say "victim $v ($method): payload differs"; fi
done <"$work/targets"

# The table: one row per method (compaction.csv), printed too.
valid_blocks=$(awk -v b="$block_lbas" '{ s += $3 / b } END { print s + 0 }' \
    "$FEMU_OUT/compaction-extents.txt")
extents=$(wc -l <"$FEMU_OUT/compaction-extents.txt")
{
    echo "method,victims,valid_pct,valid_blocks,extents,commands,seconds,verified"
    for method in copy rw; do
        commands=$(sed -n 's/^# \([0-9]*\) commands$/\1/p' "$FEMU_OUT/compaction-plan-$method.sh")
        ok=$(grep -c "^$method ok" "$work/verified" || true)
        echo "$method,$victims,$valid_pct,$valid_blocks,$extents,$commands,$(cat "$work/seconds-$method"),$ok/$victims"
    done
} >"$FEMU_OUT/compaction.csv"
say "compaction of $victims victim zones each way ($valid_pct % valid: $valid_blocks blocks" \
    "in $extents extents per way):"
awk -F, 'NR == 1 { printf "  %-7s %9s %8s %9s\n", "method", "commands", "seconds", "verified"; next }
         { printf "  %-7s %9s %8s %9s\n", $1, $6, $7, $8 }' "$FEMU_OUT/compaction.csv"
if grep -q " bad$" "$work/verified"; then
    say "error: moved data differs from what the victims held"
    exit 1
fi
