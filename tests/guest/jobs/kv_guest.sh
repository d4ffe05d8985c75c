# Guest job of tests/guest/test_kv_guest.py: Linux attaches the Key Value namespace
# (kv_ns_mb) as /dev/ng0nX beside /dev/nvme0n1, and nvme-cli's io-passthru stores, lists,
# retrieves and deletes a key on it. The test prepends the variables (the key's dwords, the
# value, the NSID), so every number lives in one place: the test. The steps' preamble (say,
# run, ns_disk) is jobs/steps.sh.

# The NVM namespace's block device, and the KV namespace's generic character device: the
# one ng0nX without a block device nvme0nX (the instance numbers follow the scan, not the
# NSID).
blk=/dev/$(ns_disk 1)
for g in /dev/ng0n*; do
    [ -e "/dev/nvme0n${g##*/ng0n}" ] || ng=$g
done
printf '%s' "$VALUE" >/tmp/value

run ls ls -l "$blk" "$ng"
run list-v nvme list -v
run cs-indep nvme cmdset-ind-id-ns "$ng" --namespace-id="$KV_NSID"
# passthru KV commands: the key's 8 bytes in CDW2-3, its length in CDW11[7:0]
kv() {
    name=$1 opcode=$2
    shift 2
    run "$name" nvme io-passthru "$ng" --namespace-id="$KV_NSID" --opcode="$opcode" \
        --cdw2="$KEY_CDW2" --cdw3="$KEY_CDW3" --cdw11="$KEY_LEN" "$@"
}
kv store 0x01 --cdw10="$VALUE_LEN" --data-len="$VALUE_LEN" --input-file=/tmp/value --write
kv exist 0x14
kv list 0x06 --cdw10=4096 --data-len=4096 --read --raw-binary
kv retrieve 0x02 --cdw10=4096 --data-len=4096 --read --raw-binary
kv retrieve-small 0x02 --cdw10="$SMALL" --data-len="$SMALL" --read --raw-binary
kv retrieve-result 0x02 --cdw10=4096 --data-len=4096 --read
kv delete 0x10
kv exist-after 0x14
kv retrieve-after 0x02 --cdw10=4096 --data-len=4096 --read --raw-binary
say "end rc=0"
