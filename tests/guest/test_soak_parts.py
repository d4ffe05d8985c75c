"""The soak's host-side pieces that need no guest: reading a console log into counts,
judging the reboot count, the table, the command line's errors."""
import pytest

from femu_lab import cli as lab_cli
from femu_lab.soak import guest as soak_guest, runner as soak
from femu_lab.soak.console import parse

CONSOLE = """\
femu-guest: job start at 5.1s uptime (timeout 900s)
soak: fio name=w1 rc=0 verify_errors=0
soak: event kind=reset-controller n=1 rc=0 during_io=1
soak: fio name=v1 rc=2 verify_errors=3
soak: check name=reset-idle chunks=32 differ=2
qemu-system-x86_64: warning: something the device said
soak: dmesg-begin
[   12.5] nvme nvme0: I/O 17 QID 1 timeout, aborting
[   12.6] nvme nvme0: I/O 17 QID 1 timeout, reset controller
[   12.7] nvme nvme0: Removing after probe failure status: -19
soak: fio name=not-a-soak-line rc=9 verify_errors=9
soak: dmesg-end
[   12.5] nvme nvme0: I/O 17 QID 1 timeout, aborting
soak: stuck what=disk-back-1
soak: done
"""


def test_console_counts():
    facts = parse(CONSOLE)
    assert facts.guest_boots == 1
    assert facts.fio_runs == 2 and facts.fio_failures == ["v1"]
    assert facts.verify_errors == 3 and facts.differing_chunks == 2 and facts.mismatches == 5
    assert facts.events == ["reset-controller 1"]
    assert facts.stuck == ["disk-back-1"]
    assert len(facts.timeouts) == 2              # the same line twice counts once
    assert facts.nvme_complaints == ["[   12.7] nvme nvme0: Removing after probe failure "
                                     "status: -19"]
    assert facts.qemu_messages == ["qemu-system-x86_64: warning: something the device said"]
    assert facts.done and not facts.panicked


def test_console_with_carriage_returns_and_a_panic():
    text = ("femu-guest: job start\r\nsoak: fio name=w1 rc=0 verify_errors=0\r\n"
            "[    3.1] Kernel panic - not syncing: VFS\r\nfemu-guest: job start\r\n")
    facts = parse(text)
    assert facts.guest_boots == 2 and facts.fio_runs == 1
    assert facts.panicked and not facts.done


def test_sanitizer_reports_are_collected_but_not_from_the_guest_kernel_log():
    text = ("==77==WARNING: ASan doesn't fully support makecontext/swapcontext functions\n"
            "../hw/femu/femu_io.c:120:9: runtime error: shift exponent 64 is too large\n"
            "soak: dmesg-begin\n[ 1.0] UBSAN: runtime error: in the guest kernel\n"
            "soak: dmesg-end\n")
    assert parse(text).sanitizer == [
        "../hw/femu/femu_io.c:120:9: runtime error: shift exponent 64 is too large"]


def test_every_pattern_has_a_job_and_reports_done():
    for pattern in soak_guest.PATTERNS:
        script = soak_guest.job(pattern, soak_guest.DEFAULT_EVENTS[pattern], 32)
        assert script.rstrip().endswith("say done")
        assert f"PATTERN={pattern}\n" in script and "SIZE_MIB=32\n" in script
    assert "corrupted block 5" in soak_guest.job("poweroff", 1, 32, corrupt=True)
    with pytest.raises(ValueError):
        soak_guest.job("reboot", 1, 32, corrupt=True)
    with pytest.raises(ValueError):
        soak_guest.job("sideways", 1, 32)


@pytest.mark.parametrize("args, message", [
    (["--boots", "1"], "--pattern"),
    (["--pattern", "sideways", "--boots", "1"], "invalid choice"),
    (["--pattern", "reboot", "--boots", "0"], "at least 1"),
    (["--pattern", "reboot", "--boots", "1", "--size-mib", "95"], "between 1 and 64"),
])
def test_usage_errors_exit_2(capsys, args, message):
    assert lab_cli.main(["soak", *args]) == 2
    assert message in capsys.readouterr().err


def test_all_means_every_pattern_once():
    args = soak.settle(lab_cli.parse(["soak", "--pattern", "reboot", "--pattern", "all",
                                      "--boots", "2"]))
    assert args.pattern == list(soak_guest.PATTERNS)


def test_only_a_boot_that_never_started_is_blamed_on_a_rebuilt_binary(tmp_path):
    from femu_lab.soak.boot import BootOutcome
    from femu_lab.soak.console import ConsoleFacts

    def outcome(guest_boots, code, failed=True):
        o = BootOutcome("reboot", tmp_path, 1.0, code, ConsoleFacts(guest_boots=guest_boots))
        if failed:
            o.hangs.append("host deadline hit: QEMU killed")
        return o
    assert soak._binary_to_blame(outcome(0, 1), replaced=True)
    assert soak._binary_to_blame(outcome(0, 127), replaced=False)
    assert not soak._binary_to_blame(outcome(0, 1), replaced=False)
    assert not soak._binary_to_blame(outcome(1, -9), replaced=True)   # a hang: counted
    assert not soak._binary_to_blame(outcome(0, 0, failed=False), replaced=True)


def test_host_side_stops_a_stalled_or_rebooting_guest(tmp_path):
    from femu_lab.soak.boot import _HostSide
    stall = "[  45.1] rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:"

    def host(expected_boots=1):
        side = _HostSide(tmp_path / "qmp.sock", tmp_path, lambda: True, expected_boots)
        side.quits = 0

        def quit_now():
            side.quits += 1
        side._quit = quit_now
        return side
    # Stall reports inside a dmesg dump, or with progress between them, are no hang.
    h = host()
    for line in ["soak: dmesg-begin", stall, stall, stall, "soak: dmesg-end", stall, stall,
                 "soak: fio name=w1 rc=0 verify_errors=0", stall, stall]:
        h.see(line)
    assert h.quits == 0 and h.hung is None
    h.see(stall)
    assert h.quits == 1 and "3 RCU stall reports" in h.hung
    # A reboot nobody asked for.
    h = host(expected_boots=2)
    for _ in range(3):
        h.see("femu-guest: job start at 5.0s uptime (timeout 900s)")
    assert h.quits == 1 and "booted 3 times, 2 expected" in h.stopped
