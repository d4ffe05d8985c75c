"""The zns-zrwa-journal workload without a guest: its headers (the zoned lab
configuration, one ZRWA as a device property), and its body under the host's sh with a
stand-in nvme that logs every command and answers with a fixed latency: the LBAs each
mode writes, the flush's LBA and zrwa-journal.csv, all hand-computed; and the one line a
device without a ZRWA, a bad ARG or an nvme write without a latency gets."""
import os
import subprocess

import pytest

from femu_lab import workloads

# The stand-in nvme: `zns id-ns` prints the ZRWA fields of $ID_NS_FG / $ID_NS_WINDOW;
# `write` prints a latency line (the LBA's last digit + 10 us) unless $NO_LATENCY is
# set; every call is appended to $NVME_LOG.
FAKE_NVME = r"""#!/bin/sh
echo "$*" >>"$NVME_LOG"
case "$1 $2" in
    "zns id-ns") printf 'zoc     : 0\nozcs    : 3\nnumzrwa : 0\nzrwafg  : %s\nzrwasz  : %s\n' \
                        "$ID_NS_FG" "$ID_NS_WINDOW" ;;
esac
if [ "$1" = write ]; then
    [ -n "${NO_LATENCY:-}" ] && { echo "write: Success"; exit 0; }
    lba=${3#--start-block=}
    echo "write: Success"
    echo " latency: write: $(( ${lba##*[!0-9]} % 10 + 10 )) us"
fi
exit 0
"""

# What lib/prelude.sh and lib/zns.sh give the body in the guest, for the lab's zoned
# namespace: 512-byte LBAs, zones of 8192 LBAs, 128 of them.
STUBS = r"""
set -eu
say() { echo "femu-workload: $*"; }
phase() { echo "phase $1" >>"$NVME_LOG"; }
zone_reports() { :; }
blkzone() { echo "blkzone $*" >>"$NVME_LOG"; }
head() { command head -c 4096 /dev/zero; }
zns_setup() {
    ZDEV=/dev/nvme0n2; ZONE_SECTORS=8192; ZONE_CAP=8192; NR_ZONES=128; MAX_OPEN=14
    LBA_BYTES=512
}
"""


def run_body(tmp_path, arg="256", fg="8", window="128", **env):
    workload = workloads.resolve(f"zns-zrwa-journal:{arg}")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    nvme = bin_dir / "nvme"
    nvme.write_text(FAKE_NVME)
    nvme.chmod(0o755)
    out = tmp_path / "out"
    out.mkdir(exist_ok=True)
    log = tmp_path / "nvme.log"
    log.write_text("")
    script = STUBS + f"ARG={arg}\n" + workload.body
    environment = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}",
                   "FEMU_OUT": str(out), "NVME_LOG": str(log), "ID_NS_FG": fg,
                   "ID_NS_WINDOW": window, **env}
    proc = subprocess.run(["sh", "-c", script], capture_output=True, text=True,
                          env=environment, timeout=120, cwd=tmp_path)
    return proc, log.read_text().splitlines(), out


def test_headers_name_the_zoned_configuration_and_one_zrwa():
    workload = workloads.resolve("zns-zrwa-journal")
    assert workload.config == workloads.CONFIGS / "zns-lab.conf"
    assert workload.device == {"zrwa_zones": "1"}
    assert workload.arg == "256" and workload.description
    script = workload.guest_script(60, precondition=False)
    assert script.index("phase workload") < script.index("phase zrwa-flush") \
        < script.index("phase plain")


def test_body_writes_in_place_then_at_the_write_pointer(tmp_path):
    proc, log, out = run_body(tmp_path, arg="20")
    assert proc.returncode == 0, proc.stderr
    writes = [line for line in log if line.startswith("write ")]
    assert len(writes) == 2 * 20 * 8
    lbas = [int(line.split("--start-block=")[1].split()[0]) for line in writes]
    # ZRWA: block b's 8 versions at LBA 8 b of zone 0
    assert lbas[:160] == [8 * b for b in range(20) for _ in range(8)]
    # without: every version at the write pointer, from zone 2 (LBA 16384) on
    assert lbas[160:] == [16384 + 8 * k for k in range(160)]
    assert all("--block-count=7 --data-size=4096" in line for line in writes)
    # order: open with the ZRWA, the journal, the flush up to LBA 159, the plain writes
    opened = log.index("zns open-zone /dev/nvme0n2 --start-lba=0 --zrwaa")
    flush = log.index("zns zrwa-flush-zone /dev/nvme0n2 --lba=159")
    assert log.index("phase workload") < opened < log.index(writes[0]) < \
        log.index("phase zrwa-flush") < flush < log.index("phase plain") < \
        log.index(writes[160])
    # latencies 10 + LBA % 10: ZRWA LBAs 0, 8, .., 152 end in 0,8,6,4,2 (x 4 each): mean
    # 14.0, max 18; plain LBAs 16384 + 8 k end in 4,2,0,8,6 in turn: the same
    assert (out / "zrwa-journal.csv").read_text().splitlines() == [
        "mode,writes,mean_latency_us,max_latency_us", "zrwa,160,14.0,18", "plain,160,14.0,18"]


def test_flush_rounds_up_to_a_whole_unit(tmp_path):
    # ZRWAFG of 16 LBAs, 21 blocks = 168 LBAs: the flush ends at 175
    proc, log, _ = run_body(tmp_path, arg="21", fg="16", window="64")
    assert proc.returncode == 0, proc.stderr
    assert "zns zrwa-flush-zone /dev/nvme0n2 --lba=175" in log


@pytest.mark.parametrize("arg, fg, window, env, message", [
    ("20", "0", "0", {}, "offers no Zone Random Write Area"),
    ("20", "", "", {}, "offers no Zone Random Write Area"),
    ("0", "8", "128", {}, "ARG must be 1..1024 blocks"),
    ("1025", "8", "128", {}, "ARG must be 1..1024 blocks"),
    ("x9", "8", "128", {}, "ARG must be a whole number of blocks, not 'x9'"),
    ("2", "8", "128", {"NO_LATENCY": "1"}, "error: no latency in nvme write's output"),
])
def test_bad_setups_stop_with_one_line(tmp_path, arg, fg, window, env, message):
    proc, log, out = run_body(tmp_path, arg=arg, fg=fg, window=window, **env)
    assert proc.returncode == 1
    errors = [line for line in proc.stdout.splitlines() if "error:" in line]
    assert len(errors) == 1 and message in errors[0], proc.stdout
    assert not (out / "zrwa-journal.csv").exists()
