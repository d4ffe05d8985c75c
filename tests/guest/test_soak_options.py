"""The soak's --device and --unplugs-per-boot (femu_lab.soak), without a guest: what the
command line parses into, the QEMU arguments and QMP commands built for femu and for QEMU's
stock nvme, and how a boot of each is judged."""
from pathlib import Path
from types import SimpleNamespace
from typing import Dict, List, Tuple

import pytest

from femu_lab import cli as lab_cli
from femu_lab.soak import boot as soak_boot, runner as soak
from femu_lab.soak.boot import BootOutcome, BootPlan, _HostSide, _judge
from femu_lab.soak.console import ConsoleFacts, parse
from femu_lab.vm.qmp import NoReply, QmpError
from femu_lab.soak.table import PatternTotals, table
from femu_lab.vm import launch as vm

IMAGE = SimpleNamespace(kernel=Path("/images/vmlinux"), initramfs=Path("/images/initramfs"))
ASSERTION = ("qemu-system-x86_64: ../system/physmem.c:2671: iotlb_to_section: Assertion "
             "`section_index < d->map.sections_nb' failed.")


def _parsed(argv: List[str]):
    """`femu-lab soak ARGV`'s options as the soak runs with them."""
    return soak.settle(lab_cli.parse(["soak", *argv]))


def _args(*extra: str):
    return _parsed(["--pattern", "device-del-add", "--boots", "3", *extra])


def test_device_is_femu_unless_told_and_nvme_on_request():
    assert _args().device == "femu"
    assert _args("--device", "nvme").device == "nvme"
    plan = soak.boot_plan(_args("--device", "nvme"), "device-del-add", IMAGE)
    assert plan.device == "nvme" and plan.kernel == IMAGE.kernel


def test_unplugs_per_boot_sets_device_del_adds_events_only():
    args = _parsed(["--pattern", "device-del-add", "--pattern", "reboot",
                   "--boots", "1", "--unplugs-per-boot", "25", "--events", "3"])
    assert soak.events_per_boot(args, "device-del-add") == 25
    assert soak.events_per_boot(args, "reboot") == 3
    plain = _args()
    assert soak.events_per_boot(plain, "device-del-add") == 2      # the pattern's default
    assert soak.boot_plan(args, "device-del-add", IMAGE).events == 25


def test_the_job_limit_grows_with_the_unplugs_unless_given():
    many = _args("--unplugs-per-boot", "20")
    assert soak.job_timeout(many, "device-del-add", 20) == 20 * soak.JOB_SECONDS_PER_UNPLUG
    assert soak.job_timeout(_args(), "device-del-add", 2) == soak.DEFAULT_JOB_TIMEOUT
    assert soak.job_timeout(many, "reboot", 1) == soak.DEFAULT_JOB_TIMEOUT
    given = _args("--unplugs-per-boot", "20", "--job-timeout", "600")
    assert soak.boot_plan(given, "device-del-add", IMAGE).job_timeout == 600


@pytest.mark.parametrize("args, message", [
    (["--pattern", "device-del-add", "--boots", "1", "--device", "sata"], "invalid choice"),
    (["--pattern", "device-del-add", "--boots", "1", "--unplugs-per-boot", "0"],
     "--unplugs-per-boot must be at least 1"),
    (["--pattern", "reboot", "--boots", "1", "--unplugs-per-boot", "5"],
     "--unplugs-per-boot is for the device-del-add pattern"),
])
def test_usage_errors_of_the_new_options_exit_2(capsys, args, message):
    assert lab_cli.main(["soak", *args]) == 2
    assert message in capsys.readouterr().err


def _option(args: List[str], flag: str) -> str:
    """The value after flag; flag must be there exactly once."""
    assert args.count(flag) == 1, args
    return args[args.index(flag) + 1]


def test_femu_on_the_root_port_with_its_statistics(tmp_path):
    plan = BootPlan("device-del-add", Path("qemu"), 2)
    args = soak_boot.device_args(plan, tmp_path)
    assert args[:2] == soak_boot.ROOT_PORT
    device = _option(args[2:], "-device")
    assert device.startswith(f"femu,stats_dir={tmp_path / 'stats'},bus=rp0,id=femu0,")
    assert "devsz_mb=96" in device and "-blockdev" not in args
    # Without hot-plug: the device on the machine's own bus.
    other = soak_boot.device_args(BootPlan("reboot", Path("qemu"), 1), tmp_path)
    assert other == vm.femu_args(stats_dir=tmp_path / "stats", **soak_boot.SOAK_SSD)


def test_stock_nvme_on_the_same_port_on_a_raw_file_of_femus_size(tmp_path):
    plan = BootPlan("device-del-add", Path("qemu"), 2, device="nvme")
    args = soak_boot.device_args(plan, tmp_path)
    assert args[:2] == soak_boot.ROOT_PORT
    rest = args[2:]
    disk = tmp_path / "nvme-0.img"
    assert _option(rest, "-blockdev") == (f"driver=raw,node-name=nvm0,file.driver=file,"
                                          f"file.filename={disk}")
    assert _option(rest, "-device") == "nvme,serial=soak-nvme,drive=nvm0,bus=rp0,id=nvme0"
    assert disk.stat().st_size == 96 << 20 == soak_boot.NVME_BYTES
    assert "femu" not in " ".join(args) and "stats" not in " ".join(args)
    assert len(rest) == 4
    plain = soak_boot.device_args(BootPlan("reset-controller", Path("q"), 4, device="nvme"),
                                  tmp_path)
    assert _option(plain, "-device") == "nvme,serial=soak-nvme,drive=nvm0"
    assert "pcie-root-port" not in " ".join(plain)


def test_a_comma_in_the_folder_is_doubled_for_qemu(tmp_path):
    folder = tmp_path / "a,b"
    args = soak_boot.device_args(BootPlan("device-del-add", Path("q"), 2, device="nvme"),
                                 folder)
    assert _option(args, "-blockdev").endswith(f"file.filename={tmp_path}/a,,b/nvme-0.img")


def test_an_unknown_device_is_refused(tmp_path):
    with pytest.raises(ValueError):
        soak_boot.device_args(BootPlan("device-del-add", Path("q"), 2, device="sata"),
                              tmp_path)
    with pytest.raises(ValueError):
        soak_boot.device_add_arguments("sata", tmp_path, 1)


def test_replug_arguments_per_device(tmp_path):
    femu = soak_boot.device_add_arguments("femu", tmp_path, 3)
    assert femu == dict(driver="femu", bus="rp0", id="femu0",
                        stats_dir=str(tmp_path / "stats-3"), **soak_boot.SOAK_SSD)
    nvme = soak_boot.device_add_arguments("nvme", tmp_path, 3)
    assert nvme == dict(driver="nvme", bus="rp0", id="nvme0", drive="nvm3",
                        serial="soak-nvme")
    assert soak_boot.blockdev_add_arguments(tmp_path, 3) == {
        "driver": "raw", "node-name": "nvm3",
        "file": {"driver": "file", "filename": str(tmp_path / "nvme-3.img")}}


class FakeQmp:
    """Records commands; DEVICE_DELETED comes at once."""

    def __init__(self, fail_on: str = "", no_event: Exception = None):
        self.commands: List[Tuple[str, Dict]] = []
        self.fail_on = fail_on
        self.no_event = no_event

    def execute(self, command: str, **arguments):
        self.commands.append((command, arguments))
        if command == self.fail_on:
            raise QmpError(f"{command}: refused")

    def wait_event(self, name, timeout, match=None):
        if self.no_event is not None:
            raise self.no_event
        assert match({"device": self.commands[-1][1]["id"]})
        return {"event": name}

    def close(self):
        pass


def _host(tmp_path: Path, device: str, qmp: FakeQmp) -> _HostSide:
    side = _HostSide(tmp_path / "qmp.sock", tmp_path, lambda: True, 1, device)
    side.qmp = qmp
    return side


def test_host_unplugs_and_replugs_femu(tmp_path):
    qmp = FakeQmp()
    host = _host(tmp_path, "femu", qmp)
    host.see("soak: ready-for-unplug n=1")
    host.see("soak: ready-for-unplug n=1")         # said twice: done once
    assert [c for c, _ in qmp.commands] == ["device_del", "device_add"]
    assert qmp.commands[0][1] == {"id": "femu0"}
    assert qmp.commands[1][1]["stats_dir"] == str(tmp_path / "stats-1")
    assert host.unplugs == 1 and host.done == [1] and host.error is None


def test_host_gives_each_replugged_nvme_a_fresh_file_and_drops_the_old(tmp_path):
    qmp = FakeQmp()
    host = _host(tmp_path, "nvme", qmp)
    soak_boot.device_args(BootPlan("device-del-add", Path("q"), 2, device="nvme"), tmp_path)
    (tmp_path / "nvme-0.img").write_bytes(b"old data")
    for n in (1, 2):
        host.see(f"soak: ready-for-unplug n={n}")
    assert qmp.commands == [
        ("device_del", {"id": "nvme0"}),
        ("blockdev-del", {"node-name": "nvm0"}),
        ("blockdev-add", soak_boot.blockdev_add_arguments(tmp_path, 1)),
        ("device_add", soak_boot.device_add_arguments("nvme", tmp_path, 1)),
        ("device_del", {"id": "nvme0"}),
        ("blockdev-del", {"node-name": "nvm1"}),
        ("blockdev-add", soak_boot.blockdev_add_arguments(tmp_path, 2)),
        ("device_add", soak_boot.device_add_arguments("nvme", tmp_path, 2)),
    ]
    assert sorted(p.name for p in tmp_path.glob("nvme-*.img")) == ["nvme-2.img"]
    assert (tmp_path / "nvme-2.img").stat().st_size == soak_boot.NVME_BYTES
    assert host.unplugs == 2 and host.done == [1, 2]


def test_an_unplug_qemu_refuses_is_an_error_and_not_counted(tmp_path):
    qmp = FakeQmp(fail_on="device_del")
    host = _host(tmp_path, "nvme", qmp)
    host.see("soak: ready-for-unplug n=1")
    assert host.unplugs == 0 and host.done == []
    assert host.error == "unplug 1: device_del: refused"
    host.see("soak: ready-for-unplug n=2")          # nothing more after an error
    assert len(qmp.commands) == 1


def test_an_unplug_the_guest_never_finishes_stops_qemu_as_a_hang(tmp_path):
    qmp = FakeQmp(no_event=NoReply("no DEVICE_DELETED event within 120 s"))
    host = _host(tmp_path, "nvme", qmp)
    host.see("soak: ready-for-unplug n=4")
    assert [c for c, _ in qmp.commands] == ["device_del", "quit"]
    assert host.unplugs == 1 and host.done == []
    assert host.error == "unplug 4: no DEVICE_DELETED event within 120 s"
    assert host.hung == "the guest never finished unplug 4: QEMU stopped"
    assert host.stopped is None


def test_qemu_gone_during_an_unplug_is_no_hang_of_the_hosts_making(tmp_path):
    # An abort closes QMP: the crash is QEMU's exit status, judged later, not a hang.
    qmp = FakeQmp(no_event=QmpError("QMP connection closed (QEMU exited?)"))
    host = _host(tmp_path, "femu", qmp)
    host.see("soak: ready-for-unplug n=1")
    assert [c for c, _ in qmp.commands] == ["device_del"]
    assert host.error == "unplug 1: QMP connection closed (QEMU exited?)"
    assert host.hung is None and host.stopped is None


def _result(folder: Path, returncode: int = 0, complete: bool = True) -> vm.RunResult:
    return vm.RunResult(folder, folder / "console.log", folder / "results.raw", {}, {}, 0,
                        False, False, complete, [], returncode, "tcg", 1.0, 1.0, [])


def _judged(tmp_path: Path, device: str, console: str, returncode: int = 0) -> BootOutcome:
    plan = BootPlan("device-del-add", Path("q"), 2, device=device)
    facts = parse(console)
    host = _host(tmp_path, device, FakeQmp())
    host.done, host.unplugs = [1, 2], 2
    outcome = BootOutcome(plan.pattern, tmp_path, 1.0, returncode, facts, unplugs=2,
                          replugs=2)
    _judge(plan, _result(tmp_path, returncode), facts, host, outcome)
    return outcome


GOOD_CONSOLE = """\
femu-guest: job start at 5.1s uptime (timeout 900s)
soak: fio name=w1 rc=0 verify_errors=0
soak: event kind=device-del-add n=1
soak: fio name=w2 rc=0 verify_errors=0
soak: event kind=device-del-add n=2
soak: done
"""


def test_a_stock_nvme_boot_needs_no_femu_statistics(tmp_path):
    assert _judged(tmp_path, "nvme", GOOD_CONSOLE).ok
    femu = _judged(tmp_path, "femu", GOOD_CONSOLE)   # no stats folders here: femu's fault
    assert not femu.ok
    assert "femu wrote no lpn_access_count.csv at unplug 1" in femu.failures
    assert femu.crashes == ["no clean shutdown: femu wrote no lpn_access_count.csv"]


def test_an_abort_names_qemus_assertion(tmp_path):
    console = GOOD_CONSOLE.replace("soak: done\n", ASSERTION + "\n")
    outcome = _judged(tmp_path, "nvme", console, returncode=-6)
    assert outcome.crashes == [f"QEMU killed by signal 6 ({ASSERTION})"]
    assert soak_boot.assertions(outcome.facts) == [ASSERTION]
    # A signal without an assertion says just that.
    killed = _judged(tmp_path, "nvme", GOOD_CONSOLE.replace("soak: done\n", ""), -9)
    assert killed.crashes == ["QEMU killed by signal 9"]


def test_the_table_and_record_count_unplugs(tmp_path):
    totals = PatternTotals("device-del-add")
    for unplugs in (20, 7):
        totals.add(BootOutcome("device-del-add", tmp_path, 3.0, 0, ConsoleFacts(),
                               unplugs=unplugs, replugs=unplugs))
    assert totals.as_dict()["unplugs"] == 27
    header, row = table([totals]).splitlines()[:2]
    assert header.split()[:6] == ["pattern", "boots", "guest_boots", "events", "unplugs",
                                  "crashes"]
    assert row.split()[:5] == ["device-del-add", "2", "0", "0", "27"]
    record = soak._outcome_record(BootOutcome("device-del-add", tmp_path, 3.0, 0,
                                              ConsoleFacts(), unplugs=5, replugs=4), 1, "?")
    assert record["unplugs"] == 5 and record["replugs"] == 4


def test_the_module_documents_the_options(capsys):
    with pytest.raises(SystemExit):
        lab_cli.main(["soak", "--help"])
    usage = capsys.readouterr().out
    assert "--device {femu,nvme}" in usage and "--unplugs-per-boot N" in usage
    assert "--device nvme" in soak.__doc__ and "--unplugs-per-boot N" in soak.__doc__
