"""The reset and shutdown soak (femu_lab.soak), one boot per pattern: the guest writes and
verifies data with fio around each event (power-off, reboot, controller resets, PCI
remove + rescan, QMP device_del + device_add) and nothing may crash, hang or come back
different. One more boot damages a block on purpose: the checks must see it.

Every bound here is a deadline that only catches hangs (the guest job has 900 s, the host
180 s more; a boot takes well under a minute under TCG).

One retry, for one thing only: a guest kernel that stalls for good after a reboot (RCU stall
reports, both vCPUs halted, femu's threads idle). That happens on a heavily loaded host with
QEMU's own nvme device in place of femu as well (a TCG issue), so it says nothing about femu;
the soak counts it, this test boots once more."""
import pytest

from femu_fixtures import femu_qemu  # noqa: F401
from femu_lab.soak import guest as soak_guest
from femu_lab.soak.boot import BootPlan, run_boot


def _only_a_guest_kernel_stall(outcome) -> bool:
    return (not outcome.crashes and not outcome.facts.mismatches and len(outcome.hangs) == 1
            and "guest kernel stalled" in outcome.hangs[0])


@pytest.fixture
def soak_boot(image, femu_qemu, tmp_path):  # noqa: F811
    def boot(pattern: str, corrupt: bool = False):
        plan = BootPlan(pattern, femu_qemu, soak_guest.DEFAULT_EVENTS[pattern],
                        kernel=image.kernel, initramfs=image.initramfs, corrupt=corrupt)
        outcome = run_boot(plan, tmp_path / pattern, say=print)
        if _only_a_guest_kernel_stall(outcome):
            print(f"{pattern}: the guest kernel stalled (see {outcome.folder}/console.log); "
                  "booting once more")
            outcome = run_boot(plan, tmp_path / f"{pattern}-again", say=print)
        print(f"{pattern}: {outcome.wall_seconds:.0f} s, events {outcome.facts.events}, "
              f"reasons {outcome.reasons()}")
        return outcome
    return boot


@pytest.mark.parametrize("pattern", soak_guest.PATTERNS)
def test_one_boot_per_pattern_survives(soak_boot, pattern):
    outcome = soak_boot(pattern)
    console = outcome.folder / "console.log"
    assert outcome.crashes == [], f"{outcome.crashes}; see {console}"
    assert outcome.hangs == [], f"{outcome.hangs}; see {console}"
    assert outcome.facts.mismatches == 0, f"{outcome.reasons()}; see {console}"
    # ... and the boot really did its work: every step ran, every event happened.
    assert outcome.failures == [], f"{outcome.failures}; see {console}"
    assert outcome.facts.done and outcome.facts.fio_runs >= 2
    expected_events = {"poweroff": 0, "reboot": 1, "reset-controller": 1,
                       "pci-remove-rescan": 2, "device-del-add": 2}[pattern]
    assert len(outcome.facts.events) >= expected_events
    if pattern == "reboot":
        assert outcome.facts.guest_boots == 2


def test_a_damaged_block_is_a_mismatch(soak_boot):
    outcome = soak_boot("poweroff", corrupt=True)
    assert outcome.facts.differing_chunks == 1      # the one MiB holding block 5
    assert outcome.facts.verify_errors >= 1         # fio's read-back sees it too
    assert not outcome.ok and not outcome.crashes and not outcome.hangs
