"""Write the kept device state file of one layout version: run this against the QEMU built
from the commit that writes that version (see README.md here), never against today's.

The scenario is fixed so every kept file holds the same device: FDP on with 4 RUHs, two
attached namespaces (NSID 1 lists RUHs 1 and 3; NSID 2 the controller's RUH 0), event
enables on NSID 2's handle (saved where the version can save them), 8 LBAs of a pattern on each and one Invalid Placement
Identifier event (a write to NSID 2 with PID 7). test_nvme_state_kept.py checks it."""
import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE.parent.parent / "support")]

from nvme_qtest import Machine, pattern, ready  # noqa: E402
from test_nvme_fdp import (EVT_INVALID_PID, FDP, attach, create_ns, delete_all,  # noqa: E402
                           set_events, write)

LBAS = 8            # written on each namespace
NS_BLOCKS = 2048    # each namespace's size in 512-byte LBAs
FEATURE_NOT_SAVEABLE = 0x10D    # feature 1Eh before d609bb0: then enabled, not saved


def make(qemu: Path, out: Path) -> None:
    machine = Machine(qemu, out.parent, f"{FDP},state_out={out}")
    try:
        nvme = machine.nvme
        sq = ready(nvme)[0]
        delete_all(nvme)
        first = create_ns(nvme, NS_BLOCKS, handles_list=[1, 3])
        second = create_ns(nvme, NS_BLOCKS)
        assert first.ok and second.ok and (first.dw0, second.dw0) == (1, 2)
        assert attach(nvme, 1).ok and attach(nvme, 2).ok
        cqe = set_events(nvme, [EVT_INVALID_PID], True, phndl=0, nsid=2, save=True)
        if cqe.code == FEATURE_NOT_SAVEABLE:
            cqe = set_events(nvme, [EVT_INVALID_PID], True, phndl=0, nsid=2)
        assert cqe.ok, str(cqe)
        assert write(nvme, sq, 0, pattern(LBAS * 512, 1), pid=1, nsid=1).ok
        assert write(nvme, sq, 0, pattern(LBAS * 512, 2), pid=7, nsid=2).ok
        assert machine.qt.terminate() is not None and machine.qt.returncode == 0
    finally:
        machine.qt.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--qemu", type=Path, required=True, help="the QEMU binary to run")
    parser.add_argument("--out", type=Path, required=True, help="the state file to write")
    args = parser.parse_args()
    make(args.qemu, args.out.resolve())
    return 0


if __name__ == "__main__":
    sys.exit(main())
