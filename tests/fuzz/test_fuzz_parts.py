"""The fuzzer's pure parts, without QEMU: ddmin, how QEMU cuts a register access, what
an entry does to the host's trust, replay files, the same seed giving the same entries,
the namespace model and rules, and the rule that nothing generated touches namespace 1."""
import random
import struct

from nvmefuzz import ddmin, judge, replay
from nvmefuzz.commands import GUARDED_ADMIN, GUARDED_IO, Commands, to_record
from nvmefuzz.controller import _pieces
from nvmefuzz.generator import Generator
from nvmefuzz.layout import Picker
from nvmefuzz.model import Model, Namespaces
from nvmefuzz.ns_rules import NsRules


def test_ddmin_finds_the_two_records_that_matter():
    records = [{"a": "sub", "n": i} for i in range(200)]
    records[120] = {"a": "sync"}
    fails = lambda rs: {30, 170} <= {r.get("n") for r in rs}   # noqa: E731
    assert [r["n"] for r in ddmin.minimize(records, fails, budget=60)] == [30, 170]


def test_ddmin_stops_when_the_budget_is_spent():
    records = [{"a": "sub", "n": i} for i in range(50)]
    assert ddmin.minimize(records, lambda rs: True, budget=0) == records


def test_register_access_cut_like_qemu():
    assert list(_pieces(0x14, 8)) == [(0x14, 4), (0x18, 4)]     # CC, then 0x18
    assert list(_pieces(0x10, 8)) == [(0x10, 8)]
    assert list(_pieces(0x1001, 4)) == [(0x1001, 1), (0x1002, 2), (0x1004, 1)]


def test_judge_holds_mmio_transfers_to_failure_and_queue_writes_to_chaos():
    hazard, exp, why = judge.judge({"p1cls": "mmio", "cls": ["mmio"]}, False, 0x02, 0, 0)
    assert hazard is None and exp == "fail" and why.startswith("mmio-dma")
    into_queue = {"p1cls": "queue", "cls": ["queue"], "exp": "ok", "why": "w"}
    assert judge.judge(into_queue, False, 0x02, 0, 0)[0] == "chaos"
    assert judge.judge(into_queue, False, 0x01, 0, 0)[0] is None   # a Write only reads
    assert judge.judge({"exp": "ok"}, True, 0x06, 0x40, 0)[1] == "fail"   # PSDT set


def test_replay_file_round_trip(tmp_path):
    records = [{"a": "enable", "asqs": 2, "acqs": 2}, {"a": "sync"}]
    path = tmp_path / "r.jsonl"
    replay.save(path, {"seed": 3, "kind": "deadline"}, records)
    header, loaded = replay.load(path)
    assert header["seed"] == 3 and loaded == records


def _entries(seed):
    model = Model(16, 131072, 1 << 20)
    cmds = Commands(Picker(random.Random(seed), [(0xE0000000, 0x4000)]), model)
    makers = [cmds.rw, cmds.dsm, cmds.identify, cmds.get_log_any, cmds.dbbuf_any]
    return [to_record(1, cmds.mutate(m()) if i % 3 == 0 else m())
            for i in range(40) for m in makers]


def test_a_seed_names_its_entries():
    assert _entries(7) == _entries(7) != _entries(8)


# -- namespaces

CAPACITY = (64 << 20) // 512


def test_namespaces_first_fit_like_the_device():
    table = Namespaces(CAPACITY, (40, 8))
    assert (table.ns[1].base, table.ns[1].sectors, table.ns[1].nsze) == (0, 81920, 81920)
    assert (table.ns[2].base, table.ns[2].nsze) == (81920, 16384)
    assert table.free_nsid() == 3 and table.extent(32768) == 98304
    assert table.extent(32776) is None                      # 16 MiB + a page: no room
    table.apply(("create", 3, 98304, 8, 4096, 4096))        # one 4 KiB LBA
    table.apply(("delete", 2))
    assert table.free_nsid() == 2
    assert table.extent(8) == 81920                         # the hole 2 left, first
    assert table.extent(16392) == 98312                     # larger than the hole
    table.apply(("format", 1, 4096))
    assert table.ns[1].nsze == 10240


def _generator(seed):
    model = Model(16, 81920, 1 << 20, Namespaces(CAPACITY, (40, 8)))
    return Generator(random.Random(seed), model, [(0xE0000000, 0x4000)])


def test_generated_entries_never_aim_namespace_changes_at_namespace_1():
    """Templates, mutations and noise alike: Namespace Management, Attachment, Format
    NVM and Write Uncorrectable never name NSID 1 or FFFFFFFFh."""
    gen = _generator(11)
    seen = set()
    for _ in range(6000):
        for admin, sqe in ((True, gen.admin_command()), (False, gen.io_command())):
            guarded = GUARDED_ADMIN if admin else GUARDED_IO
            if sqe.cmd.opcode in guarded:
                seen.add(sqe.cmd.opcode)
                assert sqe.cmd.nsid & 0xFFFF_FFFF not in (1, 0xFFFF_FFFF), sqe.tag
    assert seen == {*GUARDED_ADMIN, *GUARDED_IO}


class _Rules(NsRules):
    def __init__(self):
        self.m = Model(16, 81920, 1 << 20, Namespaces(CAPACITY, (40, 8)))
        self.m.enabled = True


def _sub(rules, sqe):
    rec = to_record(0, sqe)
    raw = bytearray(bytes.fromhex(rec["sqe"]))
    cdw10, cdw11 = struct.unpack_from("<II", raw, 40)
    return rules._ns_sub(rec, True, raw[0], 0, raw, cdw10, cdw11, None, "")


def test_namespace_commands_are_judged_in_admin_queue_order():
    rules, cmds = _Rules(), _generator(3).cmds
    detach = cmds.ns_attach()
    detach.cmd.nsid, detach.cmd.cdw10 = 2, 1
    assert _sub(rules, detach)[0] == "ok"
    assert _sub(rules, detach)[0] == "fail"        # detached by the one before
    fmt = cmds.format_nvm()
    fmt.cmd.nsid, fmt.cmd.cdw10 = 2, 1
    assert _sub(rules, fmt)[0] == "fail"           # inactive now
    create = cmds.ns_create()
    ident = bytearray(4096)
    struct.pack_into("<QQ", ident, 0, 2048, 2048)
    create.mem = [(create.cmd.prp1, bytes(ident))]
    create.cmd.cdw11 = 0
    exp, why, params, _ = _sub(rules, create)
    assert exp == "ok" and params["effect"][:3] == ("create", 3, 98304), why
    delete = cmds.ns_delete()
    delete.cmd.nsid, delete.cmd.cdw10 = 3, 1
    assert _sub(rules, delete)[0] == "ok"
    assert rules.m.aer_events == {0x040002} and 3 not in rules.m.ns_pred.ns
    assert list(rules.m.ns_log) == [1, 2, 3, 4, 5]


def test_judge_holds_new_transfers_to_memory():
    mmio = {"p1cls": "mmio", "cls": ["mmio"]}
    assert judge.judge(mmio, False, 0x05, 0, 0)[1] == "fail"          # Compare
    assert judge.judge(mmio, True, 0x15, 0, 0, 1)[1] == "fail"        # detach's list
    assert judge.judge(mmio, True, 0x0D, 0, 0, 0)[1] == "fail"        # create's structure
    assert judge.judge(mmio, True, 0x0D, 0, 0, 1)[1] is None          # delete reads nothing
    assert judge.judge({"p1cls": "queue", "cls": ["queue"]}, True, 0x86, 0, 0)[0] == "chaos"


# -- the zoned namespace, Copy, saves

def test_variant_from_device_properties():
    from nvmefuzz import campaign, variant
    plain = variant.parse(campaign.DEVICE_PROPS)
    assert plain.zoned is None and not plain.save and plain.css == 0
    zns = variant.parse(campaign.zns_props(1))          # ZONE_LIMITS[1]: (2, 3)
    assert zns.save and zns.css == 6
    assert (zns.zoned.nsid, zns.zoned.zones, zns.zoned.zone_lbas) == (3, 8, 4096)
    assert (zns.zoned.max_open, zns.zoned.max_active) == (2, 3)
    assert variant.parse(campaign.zns_props(0)).zoned.max_open == 0


def _zoned_rules():
    from nvmefuzz import campaign, variant
    zoned = variant.parse(campaign.zns_props(0)).zoned
    rules = _Rules()
    rules.m = Model(16, 81920, 1 << 20,
                    Namespaces(CAPACITY, (40, 8), (zoned.nsid, zoned.nsze)))
    rules.m.enabled = True
    return rules, zoned


def test_zoned_namespace_is_neither_deleted_nor_detached_nor_formatted():
    rules, zoned = _zoned_rules()
    cmds = _generator(3).cmds
    for make, cdw10 in ((cmds.ns_delete, 1), (cmds.ns_attach, 1), (cmds.format_nvm, 0)):
        sqe = make()
        sqe.cmd.nsid, sqe.cmd.cdw10 = zoned.nsid, cdw10
        assert _sub(rules, sqe)[0] == "fail", make.__name__
    table = rules.m.ns_pred
    assert table.free_nsid() == 4 and table.extent(32768) == 98304   # not in its way


def test_copy_templates_are_judged_and_zone_receive_is_a_host_write():
    gen = _generator(5)
    seen = {"ok": 0, "fail": 0}
    for _ in range(400):
        sqe = gen.cmds.copy()
        assert sqe.cmd.opcode == 0x19 and sqe.cmd.nsid == 1
        seen[sqe.exp or "none"] = seen.get(sqe.exp or "none", 0) + 1
        if sqe.exp == "ok":
            table = sqe.mem[0][1]
            ranges = [struct.unpack_from("<QH", table, 32 * i + 8)
                      for i in range((sqe.cmd.cdw12 & 0xFF) + 1)]
            assert len(ranges) <= 128 and sum(n + 1 for _, n in ranges) <= 4096
            assert all(s + n + 1 <= 81920 for s, n in ranges)
    assert seen["ok"] > 200 and seen["fail"] > 40
    into_queue = {"p1cls": "queue", "cls": ["queue"], "exp": "ok", "why": "w"}
    assert judge.judge(into_queue, False, 0x7A, 0, 0)[0] == "chaos"
    assert judge.judge({"p1cls": "mmio", "cls": ["mmio"]}, False, 0x19, 0, 0)[1] == "fail"


def test_format_to_an_lba_larger_than_the_namespace_fails():
    """femu keeps at least one LBA in the new format: a 512-byte namespace cannot become
    one of 4 KiB LBAs (Invalid Format; campaign seed 58)."""
    rules, cmds = _Rules(), _generator(3).cmds
    create = cmds.ns_create()
    ident = bytearray(4096)
    struct.pack_into("<QQ", ident, 0, 1, 1)          # one LBA of 512 bytes
    create.mem = [(create.cmd.prp1, bytes(ident))]
    create.cmd.cdw11 = 0
    assert _sub(rules, create)[0] == "ok"
    attach = cmds.ns_attach()
    attach.cmd.nsid, attach.cmd.cdw10 = 3, 0
    attach.mem = [(attach.cmd.prp1, struct.pack("<HH", 1, 0).ljust(4096, b"\0"))]
    assert _sub(rules, attach)[0] == "ok"
    fmt = cmds.format_nvm()
    fmt.cmd.nsid, fmt.cmd.cdw10 = 3, 1                # LBA format 1: 4 KiB
    assert _sub(rules, fmt)[0] == "fail"
    fmt.cmd.cdw10 = 0
    assert _sub(rules, fmt)[0] == "ok"
    assert judge.writes_host(True, 0x06) and not judge.writes_host(True, 0x05)
