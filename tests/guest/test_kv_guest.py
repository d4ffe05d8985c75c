"""The Key Value namespace from an unmodified Linux guest (trixie, Linux 6.12): with
kv_ns_mb the driver attaches the KV namespace as a generic character device /dev/ng0nX
only, beside the NVM namespace's block device (it reads the namespace's CSI from the
descriptor list and its data from Identify CNS 08h); `nvme list -v` and
`nvme cmdset-ind-id-ns` (nvme-cli's CNS 08h; trixie's nvme-cli has no
`id-ns --cs-indep`) show it; nvme-cli's io-passthru stores, lists, retrieves and deletes
a key with the statuses and bytes the KV command set gives. One boot; the job
(jobs/kv_guest.sh) leaves one `STEP name rc=N` line per step plus each step's stdout /
stderr."""
import re
import struct
from pathlib import Path

import pytest

from femu_fixtures import (boot_femu, driver_trouble, femu_qemu,  # noqa: F401
                           job_with_steps)

pytestmark = pytest.mark.vm

JOB = Path(__file__).resolve().parent / "jobs" / "kv_guest.sh"
KV_NSID = 2
KEY = b"femukey1"                      # 8 bytes: CDW2 = "femu", CDW3 = "key1"
VALUE = "hello from the guest, stored by key in a femu KV namespace"
SMALL = 16                             # a Retrieve buffer smaller than the value
SC_KEY_NOT_EXIST = 0x087
VARIABLES = dict(KV_NSID=KV_NSID, KEY_LEN=len(KEY),
                 KEY_CDW2=struct.unpack_from("<I", KEY, 0)[0],
                 KEY_CDW3=struct.unpack_from("<I", KEY, 4)[0],
                 VALUE=f"'{VALUE}'", VALUE_LEN=len(VALUE), SMALL=SMALL)
STEP_LINE = re.compile(r"^STEP (?P<name>\S+) rc=(?P<rc>-?\d+)")
STATUS_LINE = re.compile(r"NVMe status: [^\n]*\((?P<code>0x[0-9a-fA-F]+)\)")


class KvRun:
    def __init__(self, result):
        self.result = result
        self.steps = {}
        text = result.text("steps.txt") if "steps.txt" in result.files else ""
        for line in text.splitlines():
            match = STEP_LINE.match(line)
            if match:
                self.steps[match["name"]] = int(match["rc"])

    def raw(self, name: str) -> bytes:
        return self.result.files.get(name, b"")

    def detail(self, name: str) -> str:
        return (f"[{name}] rc={self.steps.get(name)} out: "
                f"{self.raw(name + '.out')[-800:]!r} err: {self.raw(name + '.err')[-800:]!r}")

    def out(self, name: str) -> bytes:
        assert self.steps.get(name) == 0, self.detail(name)
        return self.raw(f"{name}.out")

    def status(self, name: str) -> int:
        assert self.steps.get(name, 0) != 0, f"{name} succeeded: {self.detail(name)}"
        text = (self.raw(f"{name}.err") + self.raw(f"{name}.out")).decode(errors="replace")
        match = STATUS_LINE.search(text)
        assert match, f"no 'NVMe status:' line: {self.detail(name)}"
        return int(match["code"], 16) & 0x7FF


@pytest.fixture(scope="module")
def kv(boot_femu, image):
    if image.manifest["release"] != "trixie":
        pytest.skip(f"the {image.manifest['release']} guest: written for trixie's Linux 6.12")
    result, _ = boot_femu(job_with_steps(JOB, VARIABLES), "kv", stats=False, job_timeout=240,
                          kv_ns_mb=8)
    assert result.complete, result.summary()
    run = KvRun(result)
    assert "end" in run.steps, f"the job stopped early: {sorted(run.steps)}"
    return run


def test_linux_attaches_the_kv_namespace_as_a_generic_device(kv):
    lines = kv.out("ls").decode().splitlines()
    kinds = sorted(line[0] + re.sub(r"\d+$", "", line.split()[-1]) for line in lines)
    # the NVM namespace a block device, the KV one only a character device
    assert kinds == ["b/dev/nvme0n", "c/dev/ng0n"], lines


def test_nvme_list_and_id_ns_show_it(kv):
    listing = kv.out("list-v").decode()
    rows = [line.split() for line in listing.splitlines() if "/dev/ng0n" in line]
    nsids = sorted(int(row[2], 0) for row in rows)
    assert nsids == [1, KV_NSID], listing          # both namespaces, each with its ng
    text = kv.out("cs-indep").decode()
    nstat = re.search(r"^nstat\s*:\s*(0x[0-9a-fA-F]+|\d+)", text, re.M)
    assert nstat and int(nstat[1], 0) & 1 == 1, text


def test_store_list_retrieve_delete_through_passthru(kv):
    value = VALUE.encode()
    kv.out("store")
    kv.out("exist")
    listed = kv.out("list")
    count, kl = struct.unpack_from("<IH", listed, 0)
    assert (count, kl, listed[6:6 + kl]) == (1, len(KEY), KEY), listed[:32]
    assert kv.out("retrieve")[:len(value)] == value
    assert kv.out("retrieve-small")[:SMALL] == value[:SMALL]
    text = (kv.raw("retrieve-result.err") + kv.raw("retrieve-result.out")).decode()
    assert re.search(rf"result:\s*0x0*{len(value):x}\b", text), text[:400]
    kv.out("delete")
    assert kv.status("exist-after") == SC_KEY_NOT_EXIST
    assert kv.status("retrieve-after") == SC_KEY_NOT_EXIST


def test_nvme_driver_does_not_complain(kv):
    dmesg = kv.raw("dmesg.txt").decode(errors="replace")
    assert "nvme nvme0" in dmesg, "no kernel log came home"
    assert driver_trouble(dmesg) == [], dmesg[-2000:]
