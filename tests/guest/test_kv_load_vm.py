"""The guest's KV load generator on the femu device, end to end through the lab run
(femu_lab.run.vm_run, as `femu-lab run --workload kv-ycsb-a` runs it): one short boot on
conf/kv-lab.conf; kv-load finds the KV namespace's /dev/ngXnY by its CSI, stores the keys,
runs YCSB A over io_uring passthrough, and the commands it counted as completed equal
the device's kv_* counters in stats.csv; the run's KV plots are drawn."""
from pathlib import Path

import pytest

from femu_fixtures import femu_qemu  # noqa: F401
from femu_lab import devconfig, workloads
from femu_lab.run import vm_run as lab_run

pytestmark = pytest.mark.vm

KEYS = 200
# The workload of kv-ycsb-a, shorter: fewer keys (ARG is the value size).
WORKLOAD = f"""# description: a short YCSB A for the test
# arg: 1024
# device: kv_ns_mb=64
# include: lib/kv.sh
KV_KEYS={KEYS}
KV_QD=4
kv_ycsb a
"""


def test_ycsb_a_in_the_guest_agrees_with_the_device(image, femu_qemu, tmp_path):  # noqa: F811
    path = tmp_path / "kv-short.sh"
    path.write_text(WORKLOAD)
    workload = workloads.resolve(str(path))
    config = devconfig.load(workloads.CONFIGS / "kv-lab.conf", {})
    request = lab_run.LabRequest(workload, config, tmp_path / "run", Path(femu_qemu),
                                 runtime=2, live=False, kernel=image.kernel,
                                 initramfs=image.initramfs)
    result = lab_run.run(request)
    guest, device = result.figures["kv"]["guest"], result.figures["kv"]["device"]
    commands = guest["commands"]
    assert guest["errors"] == 0, guest["statuses"]
    assert guest["ops"] > 0 and guest["ops"] == sum(k["ops"] for k in guest["kinds"].values())
    assert set(guest["kinds"]) <= {"read", "update"}
    # every command completed: the mix's reads and updates, the load's stores before them
    assert all(c["issued"] == c["ok"] for c in commands.values())
    assert device["kv_stores"] == KEYS + commands["store"]["ok"]
    assert device["kv_retrieves"] == commands["retrieve"]["ok"]
    assert device["kv_lists"] == device["kv_deletes"] == device["kv_exists"] == 0
    assert device["kv_store_bytes"] == device["kv_stores"] * 1024
    plots = result.folder / "plots"
    for name in ("kv_ops_per_s.png", "kv_latency_cdf.png", "kv_index.png"):
        assert (plots / name).is_file(), name
    ops_lines = (result.folder / "kv-ops.csv").read_text().splitlines()
    assert len(ops_lines) == 1 + guest["ops"]
