"""The guest side of the crash-consistency lab (femu_lab.crash): one shell job, run by every
boot of the machine (the host cuts the device's power and resets the machine, so the
guest boots again with the device as the cut left it).

Each boot first checks what the last run left, if the device holds a file system, then
makes a new one and starts two writers that report, on the console, each write the file
system acknowledged as durable (fsync returned):

    crashlab: check fs=present|none mount=ok|failed fsck=clean|repaired|failed
    crashlab: log-present 1-523,525          the log records that survived, intact
    crashlab: db 12 0 T 40 ...               each database page's version (T: torn)
    crashlab: workload-start                 the writers run: the host arms the cut now
    crashlab: D log 17                       record 17 of the log is durable
    crashlab: D db 5 212                     page 5 holds version 212, durably

The log writer appends a line per record and fsyncs the file (a write-ahead log); the
database writer overwrites a random 4 KiB page of a preallocated file with a version
token and fsyncs it (dd conv=fsync). A record is intact only if its whole line is; a page
only if all its 256 tokens agree. The host compares what was reported durable before the
cut with what the next boot finds (femu_lab.crash.verdict).
"""

DB_PAGES = 64
TOKENS_PER_PAGE = 256           # 16-byte tokens "P0005V000000212\n": 4096 bytes a page

_JOB = r"""
FS=@FS@
BARRIERS=@BARRIERS@
DEV=/dev/nvme0n1
MNT=/mnt/crashlab
PAGES=@PAGES@
say() { echo "crashlab: $*"; }
mkdir -p $MNT
[ "$FS" = f2fs ] && modprobe f2fs

# The file system's magic on the device: ext4's 53 ef at byte 1080, F2FS's 10 20 f5 f2 at 1024.
has_fs() {
    if [ "$FS" = ext4 ]; then
        [ "$(dd if=$DEV bs=1 skip=1080 count=2 2>/dev/null | od -An -tx1 | tr -d ' ')" = 53ef ]
    else
        [ "$(dd if=$DEV bs=1 skip=1024 count=4 2>/dev/null | od -An -tx1 | tr -d ' ')" = 1020f5f2 ]
    fi
}
mount_fs() {
    if [ "$FS" = ext4 ]; then
        opts=barrier=1; [ "$BARRIERS" = off ] && opts=barrier=0
        mount -t ext4 -o "$opts" $DEV $MNT
    else
        opts=barrier; [ "$BARRIERS" = off ] && opts=nobarrier
        mount -t f2fs -o "$opts" $DEV $MNT
    fi
}
# fsck_check: 0 when the file system checks clean (nothing changed).
fsck_check() {
    if [ "$FS" = ext4 ]; then
        e2fsck -fn $DEV >/tmp/fsck.log 2>&1
    else
        fsck.f2fs -f --dry-run $DEV >/tmp/fsck.log 2>&1 && ! grep -q -i 'fail' /tmp/fsck.log
    fi
}
fsck_repair() {
    if [ "$FS" = ext4 ]; then
        e2fsck -fy $DEV >>/tmp/fsck.log 2>&1; [ $? -le 1 ]
    else
        fsck.f2fs -f -y $DEV >>/tmp/fsck.log 2>&1
    fi
}

check() {
    if ! has_fs; then
        say "check fs=none"
        return
    fi
    # The mount replays the journal (ext4) or rolls forward (F2FS), as after any crash;
    # fsck then checks the recovered file system.
    m=ok
    if mount_fs 2>/tmp/mount.log; then umount $MNT; else m=failed; fi
    if fsck_check; then f=clean; elif fsck_repair; then f=repaired; else f=failed; fi
    if [ "$m" = failed ] || [ "$f" != clean ]; then sed 's/^/crashlab-fsck: /' /tmp/fsck.log | tail -20; fi
    if ! mount_fs 2>>/tmp/mount.log; then
        say "check fs=present mount=failed fsck=$f"
        return
    fi
    say "check fs=present mount=$m fsck=$f"
    # intact log lines: "L <n> <n as 12 digits> end"
    awk '$1 == "L" && NF == 4 && $4 == "end" && $3 == sprintf("%012d", $2) { print $2 }' \
        $MNT/log 2>/dev/null | sort -n | awk '
        NR == 1 { lo = hi = $1; next }
        $1 == hi + 1 { hi = $1; next }
        { out = out sep (lo == hi ? lo : lo "-" hi); sep = ","; lo = hi = $1 }
        END { if (NR) out = out sep (lo == hi ? lo : lo "-" hi); print "crashlab: log-present " out }'
    # each page: its version when all 256 tokens agree, else T
    awk -v pages=$PAGES '
        {
            p = int((NR - 1) / 256)
            if (!(p in tok)) tok[p] = $0
            else if (tok[p] != $0) tok[p] = "T"
        }
        END {
            line = "crashlab: db"
            for (p = 0; p < pages; p++) {
                v = "T"
                if ((p in tok) && tok[p] != "T" && substr(tok[p], 1, 1) == "P" &&
                    substr(tok[p], 2, 4) + 0 == p) v = substr(tok[p], 7) + 0
                line = line " " v
            }
            print line
        }' $MNT/db 2>/dev/null || say "db none"
    umount $MNT
}

check
if [ "$FS" = ext4 ]; then mkfs.ext4 -q -F $DEV >/dev/null; else mkfs.f2fs -q -f $DEV >/dev/null; fi
mount_fs || { say "mkfs-mount-failed"; exit 1; }
# the database file: every page at version 0, made durable before the run
p=0
while [ $p -lt $PAGES ]; do
    yes "$(printf 'P%04dV%09d' $p 0)" | head -n 256
    p=$((p + 1))
done > $MNT/db
sync $MNT/db
: > $MNT/log
sync $MNT/log
sync
say workload-start
(
    n=0
    while :; do
        n=$((n + 1))
        echo "L $n $(printf '%012d' $n) end" >> $MNT/log && sync $MNT/log && say "D log $n"
    done
) &
(
    v=0
    while :; do
        v=$((v + 1))
        p=$((RANDOM % PAGES))
        yes "$(printf 'P%04dV%09d' $p $v)" | head -n 256 > /tmp/page
        dd if=/tmp/page of=$MNT/db bs=4096 seek=$p count=1 conv=notrunc,fsync 2>/dev/null \
            && say "D db $p $v"
    done
) &
wait
"""


def job(fs: str, barriers: bool, pages: int = DB_PAGES) -> str:
    """The job script for one configuration (the same for every boot of it)."""
    if fs not in ("ext4", "f2fs"):
        raise ValueError(f"file system {fs!r}: want ext4 or f2fs")
    return ("#!/bin/sh\n" + _JOB.replace("@FS@", fs)
            .replace("@BARRIERS@", "on" if barriers else "off")
            .replace("@PAGES@", str(pages)))
