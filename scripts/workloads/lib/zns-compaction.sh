# zns-compaction's plan: which blocks of the victim zones are valid (the host's
# bookkeeping) and the commands that move them, one shell script per method.

# valid_extents VICTIMS PCT CAP_LBAS BLOCK_LBAS: "victim offset length" lines (LBAs from
# the zone's start), the valid extents of each victim in order. Runs of 1..16 blocks of
# BLOCK_LBAS, each valid with probability PCT %; runs that touch make one extent. The
# draws come from a Park-Miller generator of its own (exact in awk's doubles), so every
# awk (busybox's in the guest, the tests' on the host) gives the same layout.
valid_extents() {
    awk -v victims="$1" -v pct="$2" -v cap="$3" -v blk="$4" '
    function draw() { seed = (seed * 16807) % 2147483647; return seed / 2147483647 }
    BEGIN {
        seed = 1
        blocks = int(cap / blk)
        for (v = 0; v < victims; v++) {
            for (b = 0; b < blocks; b += run) {
                run = 1 + int(draw() * 16)
                if (b + run > blocks) run = blocks - b
                if (draw() * 100 < pct) print v, b * blk, run * blk
            }
        }
    }' | awk 'NR > 1 && v == $1 && end == $2 { len += $3; end += $3; next }
              NR > 1 { print v, start, len }
              { v = $1; start = $2; len = $3; end = $2 + $3 }
              END { if (NR) print v, start, len }'
}

# compaction_plan METHOD FIRST_VICTIM_ZONE FIRST_TARGET_ZONE <extents >script
# METHOD copy: `nvme copy` commands, the source ranges within MSSRL, at most MSRC + 1 of
# them and MCL LBAs a command, the destination at the target zone's write pointer.
# METHOD rw: `nvme read` of each extent (pieces of at most chunk_bytes) into $work, then
# `nvme zns zone-append` of what was read, chunk_bytes at most a command.
# Victim v is zone FIRST_VICTIM_ZONE + v, reset once moved; payloads are packed into the
# zones from FIRST_TARGET_ZONE on, a victim's never split across two. Appends "METHOD v
# first_lba lbas" (where its payload went) to $work/targets; the script's last line is
# "# N commands". Reads ZDEV, LBA_BYTES, zone_lbas, cap_lbas, mssrl, mcl, msrc (0-based),
# chunk_bytes and work.
compaction_plan() {
    awk -v method="$1" -v vzone="$2" -v tzone="$3" -v zone="$zone_lbas" -v cap="$cap_lbas" \
        -v mssrl="$mssrl" -v mcl="$mcl" -v ranges="$((msrc + 1))" -v lba="$LBA_BYTES" \
        -v chunk="$chunk_bytes" -v dev="$ZDEV" -v work="$work" -v targets="$work/targets" \
        'function flush_copy() {
             if (n == 0) return
             printf "nvme copy %s --sdlba=%d --slbs=%s --blocks=%s >/dev/null\n", dev, dest, slbs, nlbs
             dest += total; n = 0; total = 0; slbs = ""; nlbs = ""; commands++
         }
         function copy_range(s, len) {
             if (n == ranges || total + len > mcl) flush_copy()
             slbs = slbs (n ? "," : "") s; nlbs = nlbs (n ? "," : "") (len - 1)
             n++; total += len
         }
         function flush_append() {
             if (pending == 0) return
             printf "cat %s/part-* >%s/buf && rm -f %s/part-*\n", work, work, work
             printf "nvme zns zone-append %s --zslba=%d --data-size=%d --data=%s/buf >/dev/null\n", dev, tstart, pending * lba, work
             pending = 0; parts = 0; commands++
         }
         function read_range(s, len) {
             if ((pending + len) * lba > chunk) flush_append()
             printf "nvme read %s --start-block=%d --block-count=%d --data-size=%d --data=%s/part-%04d >/dev/null\n", dev, s, len - 1, len * lba, work, parts++
             pending += len; commands++
         }
         { payload[$1] += $3; ext_v[NR] = $1; ext_s[NR] = $2; ext_l[NR] = $3 }
         END {
             t = tzone; used = 0
             for (i = 1; i <= NR; i = j) {
                 v = ext_v[i]
                 if (used + payload[v] > cap) { t++; used = 0 }
                 tstart = t * zone; dest = tstart + used
                 printf "%s %d %d %d\n", method, v, dest, payload[v] >>targets
                 for (j = i; j <= NR && ext_v[j] == v; j++) {
                     s = (vzone + v) * zone + ext_s[j]
                     for (left = ext_l[j]; left > 0; left -= len) {
                         len = left
                         if (method == "copy" && len > mssrl) len = mssrl
                         if (method == "rw" && len * lba > chunk) len = int(chunk / lba)
                         if (method == "copy") copy_range(s, len); else read_range(s, len)
                         s += len
                     }
                 }
                 if (method == "copy") flush_copy(); else flush_append()
                 printf "nvme zns reset-zone %s --start-lba=%d >/dev/null\n", dev, (vzone + v) * zone
                 commands++
                 used += payload[v]
             }
             printf "# %d commands\n", commands
         }'
}
