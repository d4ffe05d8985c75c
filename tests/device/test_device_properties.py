"""The femu device type: it is listed, its properties carry FEMU's names and defaults,
and realize resolves defaults < config=FILE < explicit properties."""
import re
import subprocess

import pytest

from femu_device import LAUNCH_TIMEOUT, MACHINE
from qmp_machine import qmp_machine

# FEMU's names and defaults (SPEC.md), plus the controller properties.
FTL_DEFAULTS = {
    "secsz": "512", "secs_per_pg": "8", "pgs_per_blk": "256", "blks_per_pl": "256",
    "pls_per_lun": "1", "luns_per_ch": "8", "nchs": "8", "devsz_mb": "12288",
    "pg_rd_lat": "40000", "pg_wr_lat": "200000", "blk_er_lat": "2000000", "ch_xfer_lat": "0",
    "gc_thres_pcent": "75", "gc_thres_pcent_high": "95", "gc_mode": "paced",
    "placement": "single",
    "hot_threshold": "0", "nstreams": "2",
}
CONTROLLER_DEFAULTS = {"queues": "8", "mdts": "10"}
STRING_PROPS = ["config", "stats_dir", "serial"]


def _property_help(qemu):
    proc = subprocess.run([str(qemu), "-device", "femu,help"], capture_output=True, text=True,
                          timeout=30)
    assert proc.returncode == 0, proc.stderr
    props = {}
    for line in proc.stdout.splitlines():
        match = re.match(r"\s+([\w-]+)=<(\w+)>(?:\s+-\s+(.*))?", line)
        if match:
            default = re.search(r"\(default: ([^)]*)\)\s*$", match.group(3) or "")
            props[match.group(1)] = (match.group(2), default.group(1) if default else None)
    return props


def test_device_help_lists_femu(qemu):
    proc = subprocess.run([str(qemu), "-device", "help"], capture_output=True, text=True,
                          timeout=30)
    assert re.search(r'^name "femu", bus PCI', proc.stdout, re.M), proc.stdout[-1500:]


def test_ftl_properties_have_femu_names_and_defaults(qemu):
    props = _property_help(qemu)
    for name, default in {**FTL_DEFAULTS, **CONTROLLER_DEFAULTS}.items():
        assert name in props, f"-device femu,help does not list {name}"
        assert props[name][1] == default, f"{name}: default {props[name][1]}, want {default}"
    for name in STRING_PROPS:
        assert props.get(name, (None,))[0] == "str", f"{name} missing or not a string"
    assert props["placement"][0] == "str" and props["nchs"][0] == "uint64"
    assert props["gc_mode"][0] == "str"


def test_a_one_tib_device_starts_small(nvme_qemu):
    """1 TiB logical (FEMU's geometry with 21,846 lines): realize allocates the FTL's maps
    zeroed and touches none of them, so QEMU's resident memory stays far below the maps'
    2.5 GiB (a count of bytes, not a time)."""
    args = [*MACHINE, "-S", "-device", "femu,blks_per_pl=21846,devsz_mb=1048576"]
    with qmp_machine(nvme_qemu, args, LAUNCH_TIMEOUT) as machine:
        # the greeting, then an answer to a command: realize is done
        assert "return" in machine.command({"execute": "query-status"})
        with open(f"/proc/{machine.proc.pid}/status") as status:
            rss_kib = next(int(l.split()[1]) for l in status if l.startswith("VmRSS:"))
        machine.quit()
    assert rss_kib < 256 * 1024, f"QEMU holds {rss_kib} KiB after realizing a 1 TiB femu"


def _qom_get(names):
    return [{"execute": "qom-get", "arguments": {"path": "/machine/peripheral/ssd",
                                                  "property": name}} for name in names]


def test_defaults_realize(qmp):
    replies = qmp("femu,id=ssd", _qom_get(["realized", "nchs", "devsz_mb", "placement"]))
    assert [r.get("return") for r in replies] == [True, 8, 12288, "single"]


def test_config_file_then_explicit_properties(qmp, repo_root):
    # lab-1g.conf: nchs=2 blks_per_pl=64 ssd_size=768. An explicit nchs=8 equals the
    # FTL default and must still beat the file; untouched keys come from the file.
    conf = repo_root / "conf" / "lab-1g.conf"
    replies = qmp(f"femu,id=ssd,config={conf},nchs=8,blks_per_pl=32,placement=hotcold",
                  _qom_get(["nchs", "blks_per_pl", "devsz_mb", "placement", "luns_per_ch"]))
    assert [r.get("return") for r in replies] == [8, 32, 768, "hotcold", 8]


def test_config_file_alone(qmp, repo_root):
    conf = repo_root / "conf" / "lab-1g.conf"
    replies = qmp(f"femu,id=ssd,config={conf}", _qom_get(["nchs", "blks_per_pl", "devsz_mb"]))
    assert [r.get("return") for r in replies] == [2, 64, 768]


def test_global_counts_as_explicit(nvme_qemu, repo_root, tmp_path):
    conf = repo_root / "conf" / "lab-1g.conf"
    args = ["-M", "q35", "-accel", "tcg", "-nodefaults", "-display", "none", "-S",
            "-global", "femu.nchs=4", "-device", f"femu,id=ssd,config={conf}"]
    with qmp_machine(nvme_qemu, args, timeout=60) as machine:
        reply = machine.command({"execute": "qom-get", "arguments": {
            "path": "/machine/peripheral/ssd", "property": "nchs"}})
        returncode = machine.quit()
        stderr = machine.stderr()
    assert returncode == 0, stderr
    assert reply == {"return": 4}


def test_properties_are_fixed_after_realize(qmp):
    replies = qmp("femu,id=ssd", [{"execute": "qom-set", "arguments": {
        "path": "/machine/peripheral/ssd", "property": "nchs", "value": 4}}])
    assert "after it was realized" in replies[0]["error"]["desc"]


def test_stats_dir_is_created(qmp, tmp_path):
    stats = tmp_path / "stats" / "run1"
    replies = qmp(f"femu,id=ssd,stats_dir={stats}", _qom_get(["realized"]))
    assert replies[0]["return"] is True and stats.is_dir()


def test_controller_properties(qmp):
    replies = qmp("femu,id=ssd,queues=4,mdts=0,serial=lab-ssd-01",
                  _qom_get(["queues", "mdts", "serial"]))
    assert [r.get("return") for r in replies] == [4, 0, "lab-ssd-01"]


@pytest.mark.parametrize("machine", ["q35", "pc"])
def test_realizes_on_pcie_and_conventional_buses(qemu, machine):
    cmd = [str(qemu), "-M", machine, "-accel", "tcg", "-nodefaults", "-display", "none", "-S",
           "-monitor", "stdio", "-device", "femu,config=conf/lab-1g.conf"]
    proc = subprocess.run(cmd, input="info pci\nquit\n", capture_output=True, text=True,
                          timeout=60, cwd=qemu.parent.parent)
    assert proc.returncode == 0, proc.stderr
    # `info pci` prints the class in decimal: 264 is 0x0108, NVM Express mass storage.
    assert "Class 0264: PCI device 8086:5845" in proc.stdout, proc.stdout


def test_failed_hotplug_leaves_qemu_running(nvme_qemu, repo_root):
    # A realize error at run time (device_add) must come back as a QMP error, clean up,
    # and leave QEMU able to add a good device afterwards.
    conf = repo_root / "conf" / "lab-1g.conf"
    commands = [
        {"execute": "device_add", "arguments": {"driver": "femu", "id": "bad", "nchs": 0}},
        {"execute": "device_add", "arguments": {"driver": "femu", "id": "good",
                                                 "config": str(conf)}},
        {"execute": "qom-get", "arguments": {"path": "/machine/peripheral/good",
                                              "property": "nchs"}},
    ]
    args = ["-M", "pc", "-accel", "tcg", "-nodefaults", "-display", "none", "-S"]
    with qmp_machine(nvme_qemu, args, timeout=60) as machine:
        answers = machine.commands(commands)
        returncode = machine.quit()           # then `quit`
        stderr = machine.stderr()
    assert returncode == 0, stderr
    assert "nchs: 0 is out of range" in answers[0]["error"]["desc"]
    assert answers[1] == {"return": {}} and answers[2] == {"return": 2}
