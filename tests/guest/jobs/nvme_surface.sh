# Guest job of tests/guest/test_nvme_surface.py: nvme-cli against the femu device's
# namespaces, Format NVM, Compare / Verify / Write Uncorrectable, the media logs, features
# and the OCP SMART log. The test prepends the variables it names below (PART=surface or
# PART=wear, sizes and LBAs), so every number lives in one place: the test.
# The steps' preamble (say, run, ns_disk) is jobs/steps.sh.

disks() {  # every nvme0n* block device as name:nsid, comma separated
    list=
    for d in /sys/block/nvme0n*; do
        [ -e "$d/nsid" ] && list="$list${list:+,}$(basename "$d"):$(cat "$d/nsid")"
    done
    echo "${list:-none}"
}

wait_ns() {  # wait_ns STEP NSID present|absent SECONDS: no rescan asked, only waiting
    tenths=0
    while :; do
        disk=$(ns_disk "$2")
        if [ "$3" = present ] && [ -n "$disk" ] && [ -b "/dev/$disk" ]; then break; fi
        if [ "$3" = absent ] && [ -z "$disk" ] && [ ! -e "/dev/${gone:-none}" ]; then break; fi
        if [ "$tenths" -ge $(($4 * 10)) ]; then
            say "$1 rc=1 nsid=$2 want=$3 waited_ms=$((tenths * 100)) disks=$(disks)"
            return 1
        fi
        usleep 100000
        tenths=$((tenths + 1))
    done
    say "$1 rc=0 nsid=$2 want=$3 waited_ms=$((tenths * 100)) disks=$(disks)"
}

disk_info() {  # disk_info STEP NSID: its block device, bytes, logical block size
    disk=$(ns_disk "$2")
    if [ -z "$disk" ]; then
        say "$1 rc=1 nsid=$2 disk=none disks=$(disks)"
        return 1
    fi
    say "$1 rc=0 nsid=$2 disk=$disk bytes=$(blockdev --getsize64 "/dev/$disk")" \
        "lbs=$(cat "/sys/block/$disk/queue/logical_block_size")"
}

nsids() { grep -o '"nsid"[^0-9]*[0-9]*' "$1" | grep -o '[0-9]*$' | tr '\n' ' '; }

snapshot() {  # snapshot LABEL: id-ctrl, allocated and active NSID lists, each allocated ns
    label=$1
    nvme id-ctrl $ctrl -o json >"$out/$label-id-ctrl.json" 2>"$out/$label-id-ctrl.err"
    r=$?
    nvme list-ns $ctrl --all -o json >"$out/$label-all.json" 2>"$out/$label-all.err"
    r=$((r | $?))
    nvme list-ns $ctrl -o json >"$out/$label-active.json" 2>"$out/$label-active.err"
    r=$((r | $?))
    all=$(nsids "$out/$label-all.json")
    for k in $all; do   # CNS 11h: allocated namespaces, attached or not
        nvme id-ns $ctrl -n "$k" --force -o json >"$out/$label-ns$k.json" \
            2>"$out/$label-ns$k.err"
        r=$((r | $?))
    done
    all=$(echo $all | tr ' ' ,)
    active=$(echo $(nsids "$out/$label-active.json") | tr ' ' ,)
    say "$label rc=$r all=${all:-none} active=${active:-none} disks=$(disks)"
}

sha_of() { sha256sum "$1" | cut -d' ' -f1; }

put() {  # put STEP NSID BYTE_OFFSET FILE: write FILE there (direct, 4 KiB blocks)
    disk=$(ns_disk "$2")
    dd if="$4" of="/dev/${disk:-missing}" bs=4096 seek=$(($3 / 4096)) oflag=direct \
        2>"$out/$1.err"
    say "$1 rc=$? nsid=$2 disk=${disk:-none} offset=$3 sha=$(sha_of "$4")"
}

sum() {  # sum STEP NSID BYTE_OFFSET BYTES: sha256 of that range, read around the cache
    disk=$(ns_disk "$2")
    dd if="/dev/${disk:-missing}" of=/tmp/sum.bin bs=4096 skip=$(($3 / 4096)) \
        count=$(($4 / 4096)) iflag=direct 2>"$out/$1.err"
    say "$1 rc=$? nsid=$2 disk=${disk:-none} offset=$3 bytes=$4 sha=$(sha_of /tmp/sum.bin)"
}

fio_verify() {  # fio_verify STEP NSID BS [SIZE]: random writes, then read back and check
    disk=$(ns_disk "$2")
    fio --name="$1" --filename="/dev/${disk:-missing}" --rw=randwrite --bs="$3" \
        ${4:+--size=$4} --direct=1 --ioengine=libaio --iodepth=16 --verify=crc32c \
        --do_verify=1 --verify_fatal=1 --output-format=json --output="$out/$1.json" \
        >"$out/$1.out" 2>"$out/$1.err"
    say "$1 rc=$? nsid=$2 disk=${disk:-none} bs=$3"
}

wait_lbs() {  # wait_lbs STEP NSID BYTES SECONDS: the kernel's logical block size
    tenths=0
    while :; do
        disk=$(ns_disk "$2")
        lbs=$(cat "/sys/block/${disk:-missing}/queue/logical_block_size" 2>/dev/null)
        [ "$lbs" = "$3" ] && break
        if [ "$tenths" -ge $(($4 * 10)) ]; then
            say "$1 rc=1 nsid=$2 disk=${disk:-none} lbs=${lbs:-none} waited_ms=$((tenths * 100))"
            return 1
        fi
        usleep 100000
        tenths=$((tenths + 1))
    done
    say "$1 rc=0 nsid=$2 disk=$disk lbs=$lbs waited_ms=$((tenths * 100))" \
        "bytes=$(blockdev --getsize64 "/dev/$disk")"
}

# Get LBA Status (86h) over ns1's region, Action Type 10h, 4 KiB back (MNDW 1023), raw,
# sent twice: with admin-passthru (STEP), and as nvme-cli's own get-lba-status (STEP-cli
# raw, STEP-cli-text as it prints it). bookworm's nvme-cli 2.3 goes through libnvme 1.3's
# nvme_get_lba_status(), which leaves the transfer length 0 (fixed in libnvme by a6ac126d,
# "ioctl: set data length when retrieving LBA status"), so the kernel maps no buffer and the
# controller can only refuse the command (PRP1 = 0); trixie's nvme-cli 2.13 sends it whole.
# (nvme-cli 2.13's -o json of it aborts in json-c, so the test reads binary and text.)
lba_status() {  # lba_status STEP
    run "$1" nvme admin-passthru $ctrl --opcode=0x86 --namespace-id=1 \
        --cdw10="$REGION_LBA" --cdw11=0 --cdw12=1023 --cdw13=$(((0x10 << 24) | 256)) \
        --data-len=4096 --read --raw-binary
    run "$1-cli" nvme get-lba-status $ctrl --namespace-id=1 --start-lba="$REGION_LBA" \
        --max-dw=1023 --action=0x10 --range-len=256 --output-format=binary
    run "$1-cli-text" nvme get-lba-status $ctrl --namespace-id=1 --start-lba="$REGION_LBA" \
        --max-dw=1023 --action=0x10 --range-len=256
}

same() {  # same STEP FILE1 FILE2
    cmp "$2" "$3" >"$out/$1.out" 2>"$out/$1.err"
    say "$1 rc=$?"
}

surface() {
    # ---- a) namespaces: what realize made ----------------------------------------
    snapshot snap-boot
    disk_info disk-boot-1 1
    disk_info disk-boot-2 2
    run smart-boot nvme smart-log $ctrl -o json
    run errlog-boot nvme error-log $ctrl -o json
    ns1_bytes=$(blockdev --getsize64 "/dev/$(ns_disk 1)")

    # Known data: ns1's head and tail (its tail borders the namespaces made later), and
    # both ends of the realize-time ns2, whose space the new namespaces reuse.
    dd if=/dev/urandom of=/tmp/ns1-head bs=1M count=4 2>/dev/null
    dd if=/dev/urandom of=/tmp/ns1-tail bs=1M count=1 2>/dev/null
    dd if=/dev/urandom of=/tmp/old2-head bs=1M count=1 2>/dev/null
    dd if=/dev/urandom of=/tmp/old2-tail bs=1M count=1 2>/dev/null
    put put-ns1-head 1 0 /tmp/ns1-head
    put put-ns1-tail 1 $((ns1_bytes - MIB)) /tmp/ns1-tail
    old2_bytes=$(blockdev --getsize64 "/dev/$(ns_disk 2)")
    put put-old2-head 2 0 /tmp/old2-head
    put put-old2-tail 2 $((old2_bytes - MIB)) /tmp/old2-tail

    # Detach ns2: the namespace-changed event alone must take its block device away.
    gone=$(ns_disk 2)
    run detach-2 nvme detach-ns $ctrl --namespace-id=2 --controllers=0
    wait_ns gone-2-aer 2 absent "$AER_WAIT_S"
    run detach-2-again nvme detach-ns $ctrl --namespace-id=2 --controllers=0
    snapshot snap-detached
    run delete-2 nvme delete-ns $ctrl --namespace-id=2
    snapshot snap-deleted
    run attach-deleted nvme attach-ns $ctrl --namespace-id=2 --controllers=0

    # Two namespaces in the freed space: A with 512 B LBAs, B with 4 KiB LBAs.
    run create-a nvme create-ns $ctrl --nsze="$A_LBAS" --ncap="$A_LBAS" --flbas=0
    a=$(grep -o 'created nsid:[0-9]*' "$out/create-a.out" | grep -o '[0-9]*$')
    a=${a:-0}
    say "nsid-a rc=0 nsid=$a"
    snapshot snap-created-a
    run attach-a nvme attach-ns $ctrl --namespace-id="$a" --controllers=0
    wait_ns appear-a-aer "$a" present "$AER_WAIT_S"
    run rescan-a nvme ns-rescan $ctrl
    wait_ns appear-a "$a" present 10
    disk_info disk-a "$a"
    run attach-a-again nvme attach-ns $ctrl --namespace-id="$a" --controllers=0

    run create-b nvme create-ns $ctrl --nsze="$B_LBAS" --ncap="$B_LBAS" --flbas=1
    b=$(grep -o 'created nsid:[0-9]*' "$out/create-b.out" | grep -o '[0-9]*$')
    b=${b:-0}
    say "nsid-b rc=0 nsid=$b"
    run attach-b nvme attach-ns $ctrl --namespace-id="$b" --controllers=0
    wait_ns appear-b-aer "$b" present "$AER_WAIT_S"
    run rescan-b nvme ns-rescan $ctrl
    wait_ns appear-b "$b" present 10
    disk_info disk-b "$b"
    snapshot snap-created-ab
    run create-full nvme create-ns $ctrl --nsze=8 --ncap=8 --flbas=0

    # A fresh namespace reads zeroes, even where the deleted ns2 held data.
    a_bytes=$(blockdev --getsize64 "/dev/$(ns_disk "$a")")
    b_bytes=$(blockdev --getsize64 "/dev/$(ns_disk "$b")")
    sum sum-a-head-new "$a" 0 "$MIB"
    sum sum-a-tail-new "$a" $((a_bytes - MIB)) "$MIB"
    sum sum-b-head-new "$b" 0 "$MIB"
    sum sum-b-tail-new "$b" $((b_bytes - MIB)) "$MIB"

    # ---- b) fio verify, Format NVM to 4 KiB LBAs, fio verify again -----------------
    dd if=/dev/urandom of=/tmp/b-head bs=1M count=1 2>/dev/null
    dd if=/dev/urandom of=/tmp/b-tail bs=1M count=1 2>/dev/null
    put put-b-head "$b" 0 /tmp/b-head
    put put-b-tail "$b" $((b_bytes - MIB)) /tmp/b-tail
    fio_verify fio-a-512 "$a" 512 "$FIO_512_SIZE"
    fio_verify fio-a-4k "$a" 4k
    run format-a nvme format "/dev/$(ns_disk "$a")" --lbaf=1 --ses=1 --force
    wait_lbs lbs-a-formatted "$a" 4096 10
    snapshot snap-formatted
    sum sum-a-head-formatted "$a" 0 "$MIB"
    fio_verify fio-a-4k-after "$a" 4k
    fio_verify fio-a-16k-after "$a" 16k
    # The neighbours of the formatted namespace: ns1 below it, B above it.
    sum sum-ns1-head-after 1 0 $((4 * MIB))
    sum sum-ns1-tail-after 1 $((ns1_bytes - MIB)) "$MIB"
    sum sum-b-head-after "$b" 0 "$MIB"
    sum sum-b-tail-after "$b" $((b_bytes - MIB)) "$MIB"

    gone=$(ns_disk "$a")
    run detach-a nvme detach-ns $ctrl --namespace-id="$a" --controllers=0
    wait_ns gone-a-aer "$a" absent "$AER_WAIT_S"
    run rescan-gone-a nvme ns-rescan $ctrl
    wait_ns gone-a "$a" absent 10
    run delete-a nvme delete-ns $ctrl --namespace-id="$a"
    snapshot snap-end-ns

    # ---- c) Compare, Verify, Write Uncorrectable, the media logs -----------------------
    d1=$(ns_disk 1)
    dd if=/dev/urandom of=/tmp/region bs=4096 count=16 2>/dev/null   # 128 LBAs of 512 B
    head -c 4096 /tmp/region >/tmp/page0
    dd if=/tmp/region of=/tmp/page1 bs=4096 skip=1 count=1 2>/dev/null
    cp /tmp/page0 /tmp/page0-bad
    printf 'miscompare here.' | dd of=/tmp/page0-bad bs=1 seek=100 conv=notrunc 2>/dev/null
    same page0-bad-differs /tmp/page0 /tmp/page0-bad     # rc 1: the files differ
    put put-region 1 $((REGION_LBA * 512)) /tmp/region
    run compare-page nvme compare "/dev/$d1" --start-block="$REGION_LBA" --block-count=7 \
        --data-size=4096 --data=/tmp/page0
    run compare-region nvme compare "/dev/$d1" --start-block="$REGION_LBA" \
        --block-count=127 --data-size=65536 --data=/tmp/region
    run compare-bad nvme compare "/dev/$d1" --start-block="$REGION_LBA" --block-count=7 \
        --data-size=4096 --data=/tmp/page0-bad
    run verify-region nvme verify "/dev/$d1" --start-block="$REGION_LBA" --block-count=127
    run smart-before-uncor nvme smart-log $ctrl -o json

    run uncor-page nvme write-uncor "/dev/$d1" --start-block="$UNCOR_PAGE_LBA" --block-count=7
    run uncor-one nvme write-uncor "/dev/$d1" --start-block="$UNCOR_ONE_LBA" --block-count=0
    run read-uncor-page nvme read "/dev/$d1" --start-block="$UNCOR_PAGE_LBA" --block-count=7 \
        --data-size=4096 --data=/tmp/got-uncor
    run errlog-uncor nvme error-log $ctrl -o json
    run read-uncor-one nvme read "/dev/$d1" --start-block="$UNCOR_ONE_LBA" --block-count=0 \
        --data-size=512 --data=/tmp/got-one
    run read-beside-one nvme read "/dev/$d1" --start-block=$((UNCOR_ONE_LBA - 1)) \
        --block-count=0 --data-size=512 --data=/tmp/got-beside
    dd if=/tmp/region of=/tmp/want-beside bs=512 skip=$((UNCOR_ONE_LBA - 1 - REGION_LBA)) \
        count=1 2>/dev/null
    same read-beside-one-data /tmp/got-beside /tmp/want-beside
    run read-page0 nvme read "/dev/$d1" --start-block="$REGION_LBA" --block-count=7 \
        --data-size=4096 --data=/tmp/got-page0
    same read-page0-data /tmp/got-page0 /tmp/page0
    run dd-uncor dd if="/dev/$d1" of=/dev/null bs=4096 skip=$((UNCOR_PAGE_LBA / 8)) count=1 \
        iflag=direct
    run verify-uncor nvme verify "/dev/$d1" --start-block="$REGION_LBA" --block-count=127
    run compare-uncor nvme compare "/dev/$d1" --start-block="$UNCOR_PAGE_LBA" \
        --block-count=7 --data-size=4096 --data=/tmp/page1
    lba_status lba-status-uncor
    run lba-log-uncor nvme lba-status-log $ctrl -o json
    run smart-after-uncor nvme smart-log $ctrl -o json

    put rewrite 1 $((REGION_LBA * 512)) /tmp/region
    run read-rewritten nvme read "/dev/$d1" --start-block="$REGION_LBA" --block-count=127 \
        --data-size=65536 --data=/tmp/got-region
    same read-rewritten-data /tmp/got-region /tmp/region
    run verify-rewritten nvme verify "/dev/$d1" --start-block="$REGION_LBA" --block-count=127
    lba_status lba-status-clear
    run lba-log-clear nvme lba-status-log $ctrl -o json
    run smart-end nvme smart-log $ctrl -o json

    # ---- e) features -------------------------------------------------------------------
    run feat-queues nvme get-feature $ctrl --feature-id=7
    run set-queues nvme set-feature $ctrl --feature-id=7 --value="$SET_QUEUES_VALUE"
    run feat-queues-after nvme get-feature $ctrl --feature-id=7
    for fid in 4 6 7; do
        run "featcap-$fid" nvme get-feature $ctrl --feature-id=$fid --sel=3
    done
    run featcap-5-ns1 nvme get-feature $ctrl --feature-id=5 --sel=3 --namespace-id=1
    run featcap-5-all nvme get-feature $ctrl --feature-id=5 --sel=3
}

wear() {
    # ---- d) physical media units written against the device's own WAF ----------------
    dev=/dev/nvme0n1
    run wear-smart-0 nvme smart-log $ctrl -o json
    run wear-ocp-0 nvme ocp smart-add-log $ctrl -o json
    bytes=$(blockdev --getsize64 $dev)
    fio --name=fill --filename=$dev --rw=write --bs=128k --direct=1 --ioengine=libaio \
        --iodepth=8 --output-format=json --output="$out/wear-fill.json" \
        >"$out/wear-fill.out" 2>"$out/wear-fill.err"
    say "wear-fill rc=$? bytes=$bytes"
    fio --name=rand --filename=$dev --rw=randwrite --bs=4k --direct=1 --ioengine=libaio \
        --iodepth=16 --io_size=$((WEAR_PASSES * bytes)) --norandommap --randrepeat=0 \
        --output-format=json --output="$out/wear-rand.json" \
        >"$out/wear-rand.out" 2>"$out/wear-rand.err"
    say "wear-rand rc=$? io_size=$((WEAR_PASSES * bytes))"
    sleep 2     # the logs read counters the FTL thread publishes; let them settle
    run wear-smart-1 nvme smart-log $ctrl -o json
    run wear-ocp-1 nvme ocp smart-add-log $ctrl -o json
    run wear-ocp-1-text nvme ocp smart-add-log $ctrl
    sleep 2
    run wear-smart-2 nvme smart-log $ctrl -o json
    run wear-ocp-2 nvme ocp smart-add-log $ctrl -o json
}

case "$PART" in
    surface) surface ;;
    wear) wear ;;
    *) say "part rc=1 part=$PART" ;;
esac
say "end rc=0"
