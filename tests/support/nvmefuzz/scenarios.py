"""Scenarios the random stream would almost never line up, run as one record. A mixin of
Executor (executor.py).

pam_cfs: a CQ in low RAM that stops being RAM. The q35 PAM registers (MCH config 0x90..)
decide whether 0xC0000..0xFFFFF is RAM or goes to the PCI bus. With PAM6 at read/write
the CQ at 0xE8000 is guest RAM and may be created; then PAM6 is cleared and a command is
run: its completion cannot be written, and CONTROLLER.md says that sets CSTS.CFS."""
import struct

import nvme_qtest
from nvme_qtest import CSTS, Command

from .failure import Failure
from .layout import sq_slot

PAM6 = 0x96                 # MCH config: PAM for 0xE8000-0xEFFFF
PAM_RW, PAM_PCI = 0x33, 0x00
LOW_CQ = 0xE8000


class Scenarios:
    def do_pam_cfs(self, rec: dict) -> None:
        m, qt = self.m, self.qt
        self.do_sync({})
        qid = rec["qid"]
        cqs, sqs = m.future_queues()
        if not m.enabled or not m.trusted or qid in cqs or qid in sqs or m.room(m.sqs[0]) < 2:
            return
        saved = qt.pci_config_readb(0, PAM6)
        qt.pci_config_writeb(0, PAM6, PAM_RW)
        qt.memset(LOW_CQ, 0x4000, 0)
        for cmd in (Command(0x05, prp1=LOW_CQ, cdw10=qid | 15 << 16, cdw11=1),
                    Command(0x01, prp1=sq_slot(qid), cdw10=qid | 15 << 16, cdw11=1 | qid << 16)):
            self.do_sub({"a": "sub", "q": 0, "sqe": cmd.pack(0).hex(), "tag": "pam"})
        self.do_sync({})
        if qid not in m.cqs or qid not in m.sqs:
            qt.pci_config_writeb(0, PAM6, saved)
            return          # not created (the device may refuse low RAM): nothing to see
        qt.pci_config_writeb(0, PAM6, PAM_PCI)
        flush = bytearray(Command(0x00, nsid=1).pack(0))
        struct.pack_into("<H", flush, 2, 0xFFFF)
        qt.memwrite(sq_slot(qid), bytes(flush))
        m.sqs[qid].tail = m.sqs[qid].rung_tail = 1
        self._publish(qid, False, 1, 0, always=True)
        m.tainted = True            # the memory map changed under the host: reset after
        self._scramble("CQ memory made non-RAM")
        csts = self._wait_csts("a CQE that cannot be written",
                               lambda c: c & nvme_qtest.CSTS_CFS)
        qt.pci_config_writeb(0, PAM6, saved)
        if not csts & nvme_qtest.CSTS_CFS:   # pragma: no cover - _wait_csts raised already
            raise Failure("csts", f"CSTS {csts:#x}")
        m.fatal = True
