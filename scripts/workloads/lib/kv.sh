# Key-value workloads: YCSB's core mixes on the device's Key Value namespace with kv-load
# (tools/kv-load, in the guest image), through io_uring passthrough on its /dev/ngXnY.
# ARG is the value size in bytes; KV_KEYS keys are stored first (phase `load`), then the
# mix runs RUNTIME seconds at queue depth KV_QD (phase `workload`, the measured window).
# Results: kv-ops.csv (each operation: end_s,kind,latency_us,status), kv-load.json (the
# summary), kv-load.txt and kv-run.txt (each phase's summary line), kv-ns.txt (how the namespace was found).
# The host sets KV_KEYS and KV_QD in the job (the workload's '# sim:' --kv-keys and --qd,
# or femu-lab run --kv-keys/--kv-qd: femu_lab/run/kv_params.py); these serve a file without.
KV_KEYS=${KV_KEYS:-4000}
KV_QD=${KV_QD:-4}

# kv_csi NG: the Command Set Identifier of /dev/ngXnY's namespace (its hidden disk's sysfs
# csi, else the namespace identification descriptors), or nothing.
kv_csi() {
    name=${1#/dev/ng}
    if [ -r "/sys/block/nvme$name/csi" ]; then
        cat "/sys/block/nvme$name/csi"
        return 0
    fi
    nvme ns-descs "$1" 2>/dev/null | sed -n 's/^csi[[:space:]]*:[[:space:]]*\([0-9x]*\).*/\1/p'
}

# kv_find_dev: KVDEV, the generic device of the controller's KV namespace (CSI 1); waits
# up to 10 s for Linux to add it (it scans namespaces in parallel).
kv_find_dev() {
    waited=0
    KVDEV=
    while [ -z "$KVDEV" ] && [ "$waited" -lt 100 ]; do
        [ "$waited" -gt 0 ] && usleep 100000
        for ng in /dev/ng0n*; do
            [ -c "$ng" ] || continue
            csi=$(kv_csi "$ng")
            if [ "$csi" = 1 ] || [ "$csi" = 0x1 ]; then
                KVDEV=$ng
                break
            fi
        done
        waited=$((waited + 1))
    done
    if [ -z "$KVDEV" ]; then
        say "error: no Key Value namespace (CSI 1) on nvme0: the device needs the property" \
            "kv_ns_mb (a workload's '# device: kv_ns_mb=N' header)"
        ls -l /dev/ng* >"$FEMU_OUT/kv-ns.txt" 2>&1 || true
        exit 1
    fi
    say "Key Value namespace: $KVDEV"
    { echo "device $KVDEV"; nvme list -v 2>&1 || true; } >"$FEMU_OUT/kv-ns.txt"
}

# kv_ycsb MIX: the load phase, then the mix for RUNTIME seconds.
kv_ycsb() {
    if ! command -v kv-load >/dev/null; then
        say "error: the guest image has no kv-load: build it (meson compile -C build/release)" \
            "and rebuild the image (scripts/guest/build-image.sh)"
        exit 1
    fi
    kv_find_dev
    phase load
    kv-load --dev "$KVDEV" --mix "$1" --keys "$KV_KEYS" --value-size "$ARG" --qd "$KV_QD" \
        --ops 0 >"$FEMU_OUT/kv-load.txt"
    cat "$FEMU_OUT/kv-load.txt"
    phase workload
    kv-load --dev "$KVDEV" --mix "$1" --keys "$KV_KEYS" --value-size "$ARG" --qd "$KV_QD" \
        --no-load --runtime "$RUNTIME" --csv "$FEMU_OUT/kv-ops.csv" \
        --json "$FEMU_OUT/kv-load.json" >"$FEMU_OUT/kv-run.txt"
    cat "$FEMU_OUT/kv-run.txt"
}
