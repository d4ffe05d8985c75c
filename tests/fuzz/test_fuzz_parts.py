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
from nvmefuzz.model import Cq, Model, Namespaces, Sq
from nvmefuzz.ns_rules import NsRules
from nvme_qtest import Command


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


# -- Flexible Data Placement (the fdp variant)

def _fdp_rules(seed=0):
    from nvmefuzz import campaign, variant
    from nvmefuzz.fdp_rules import FdpRules

    class Rules(NsRules, FdpRules):
        pass

    rules = Rules()
    rules.variant = variant.parse(campaign.fdp_props(seed))
    fdp = rules.variant.fdp
    rules.m = Model(16, 81920, 1 << 20, Namespaces(CAPACITY, (40, 8), None, fdp.ruhs))
    rules.m.enabled = True
    return rules, fdp


def _judge(rules, cmd, mem=(), admin=True, tag="", own=False):
    """What the executor expects of an entry: (expectation, why, create, nsdep, DW0)."""
    rec = {"a": "sub", "q": 0 if admin else 1, "sqe": cmd.pack(0).hex(), "tag": tag,
           "mem": [[a, bytes(d).hex()] for a, d in mem]}
    if own:
        rec["own"] = 1
    raw = bytearray(cmd.pack(0))
    cdw10, cdw11 = struct.unpack_from("<II", raw, 40)
    exp, why, create, nsdep = rules._ns_sub(rec, admin, raw[0], 0, raw, cdw10, cdw11, None, "")
    exp, why, fdpdep, dw0 = rules._fdp_sub(rec, admin, raw[0], raw, cdw10, cdw11, exp, why)
    if create is not None and "ns_seq" in create:      # completed as judged, in order
        effect = create["effect"] or ("", 0)
        rules._ns_done(type("P", (), {"create": create})(),
                       type("C", (), {"code": 0 if exp == "ok" else 2, "dw0": effect[1]})())
    return exp, why, create, nsdep or fdpdep, dw0


def _create(rules, nsze, lbaf=0, handles=None, count=None, endgid=0):
    ident = bytearray(4096)
    struct.pack_into("<QQ", ident, 0, nsze, nsze)
    ident[26] = lbaf
    struct.pack_into("<H", ident, 102, endgid)
    handles = handles or []
    struct.pack_into("<H", ident, 392, len(handles) if count is None else count)
    for i, h in enumerate(handles):
        struct.pack_into("<H", ident, 512 + 2 * i, h)
    addr = 0x0A00_0000
    return _judge(rules, Command(0x0D, prp1=addr, cdw10=0), [(addr, bytes(ident))])


def _set_fdp(rules, cdw12, nsid=0, endgid=1, sv=0):
    return _judge(rules, Command(0x09, nsid=nsid, cdw10=0x1D | sv << 31, cdw11=endgid,
                                 cdw12=cdw12))[0]


def test_fdp_variant_from_device_properties():
    from nvmefuzz import campaign, variant
    assert variant.parse(campaign.DEVICE_PROPS).fdp is None
    seen = set()
    for seed in range(42):
        fdp = variant.parse(campaign.fdp_props(seed)).fdp
        seen.add((fdp.ruhs, fdp.persistent, fdp.time_limit_s > 0, fdp.ru_pages))
        assert fdp.ruhs <= (16 if fdp.persistent else 15) and not fdp.write_buffer
        assert fdp.ru_pages == (128 if seed % 3 == 1 else 512)    # a block, or a line
        assert fdp.gc_counted == (seed % 3 != 0)                  # line GC, or paced
    assert len({s[:2] for s in seen}) >= 12 and {s[2] for s in seen} == {True, False}
    fdp = variant.parse(campaign.fdp_props(0)).fdp                 # 4 handles
    assert (fdp.ruhs, fdp.persistent, fdp.time_limit_s, fdp.ru_bytes) == (4, True, 0, 2 << 20)
    assert [fdp.log_bytes(lid) for lid in (0x20, 0x21, 0x22, 0x23)] == [96, 40, 64, 4096]


def test_fdp_handles_attributes_and_the_controllers_choice():
    table = Namespaces(CAPACITY, (40, 8), None, 4)
    assert table.ns[1].handles == table.ns[2].handles == (0, 1, 2, 3)
    assert [table.ruha(h) for h in range(4)] == [1, 1, 1, 1] and table.choose() is None
    table.apply(("delete", 1))
    table.apply(("delete", 2))
    assert table.choose() == 0 and not table.conventional()
    table.apply(("create", 1, 0, 8, 4096, 512, (2,), True))      # the controller's choice
    table.apply(("create", 2, 8, 8, 4096, 4096, (0, 3), False))
    assert [table.ruha(h) for h in range(4)] == [1, 0, 2, 1] and table.choose() == 2
    assert table.format_shared(2, 512) and not table.format_shared(3, 512)
    table.fdp_stats = (1, 2, 3)
    table.apply(("fdp", 0))
    assert not table.fdp_on and table.fdp_stats is None


def test_fdp_create_lists_are_judged_like_the_device():
    rules, fdp = _fdp_rules(0)                  # 4 handles, every one listed by 1 and 2
    assert _create(rules, 8)[0] == 0x02A                     # no handle left to choose
    assert _create(rules, 8, handles=[1, 1])[0] == 0x02A     # twice
    assert _create(rules, 8, handles=[4])[0] == 0x02A        # past NRUH
    assert _create(rules, 8, handles=[0], count=5)[0] == 0x02A
    assert _create(rules, 8, handles=[1], endgid=2)[0] == 0x002
    assert _create(rules, 8, lbaf=1, handles=[1])[0] == 0x10A    # shared in 512 B LBAs
    exp, why, create, _, _ = _create(rules, 8, handles=[3, 1])
    assert exp == "ok" and create["effect"][6:] == ((3, 1), False), why
    assert rules.m.ns.ns[3].handles == (3, 1)


def test_fdp_configuration_changes_only_without_namespaces():
    rules, fdp = _fdp_rules(0)
    assert _set_fdp(rules, 0) == 0x00C              # namespaces present: no change
    assert _set_fdp(rules, 1) == "ok"               # the value FDP has
    assert _set_fdp(rules, 0, sv=1) == 0x00C        # saveable, but still no change
    assert _set_fdp(rules, 0, nsid=5) == 0x10F and _set_fdp(rules, 0, nsid=33) == 0x00B
    assert _set_fdp(rules, 0, endgid=2) == 0x002 and _set_fdp(rules, 1 | 1 << 8) == 0x002
    assert rules.m.ns_pred.fdp_on
    for nsid in (1, 2):
        assert _judge(rules, Command(0x0D, nsid=nsid, cdw10=1), own=True)[0] == "ok"
    assert _set_fdp(rules, 0) == "ok" and not rules.m.ns.fdp_on
    exp, _, create, _, _ = _create(rules, 8, handles=[9, 9])       # fields unused now
    assert exp == "ok" and create["effect"][6:] == ((), False)
    assert _create(rules, 8, endgid=3)[0] == 0x002                 # but ENDGID is read


def test_fdp_saved_value_follows_sv_and_resets():
    """1Dh is saveable: SV saves the value (also an unchanged one), a refused change saves
    nothing, SEL 2 is judged against the saved value; a controller reset makes it current
    only while no namespace of the group pins the current one."""
    rules, fdp = _fdp_rules(0)
    get = lambda sel: _judge(rules, Command(0x0A, cdw10=0x1D | sel << 8, cdw11=1),  # noqa
                             tag="fdp-getfeat")
    assert get(3)[::4] == ("ok", 0b101) and get(2)[::4] == ("ok", 1)
    assert _judge(rules, Command(0x0A, nsid=1, cdw10=0x31E), tag="fdp-getfeat")[4] == 0b111
    assert _set_fdp(rules, 0, sv=1) == 0x00C and rules.m.ns.fdp_saved
    for nsid in (1, 2):
        assert _judge(rules, Command(0x0D, nsid=nsid, cdw10=1), own=True)[0] == "ok"
    assert _set_fdp(rules, 0, sv=1) == "ok"
    assert (rules.m.ns.fdp_on, rules.m.ns.fdp_saved) == (False, False)
    assert get(2)[::4] == ("ok", 0) and get(1)[::4] == ("ok", 1)
    assert _set_fdp(rules, 1) == "ok"                # current only
    assert (rules.m.ns.fdp_on, rules.m.ns.fdp_saved) == (True, False)
    rules.m.ns.fdp_stats = (1, 2, 3)
    rules.m.forget_queues()                          # a reset, the group empty: saved
    assert not rules.m.ns.fdp_on and not rules.m.ns_pred.fdp_on
    assert rules.m.ns.fdp_stats is None
    assert _set_fdp(rules, 1) == "ok"
    assert _create(rules, 8, handles=[1])[0] == "ok"
    rules.m.forget_queues()                          # a namespace pins FDP on
    assert rules.m.ns.fdp_on and not rules.m.ns.fdp_saved
    assert _set_fdp(rules, 1, sv=1) == "ok" and rules.m.ns.fdp_saved      # unchanged, saved


def test_fdp_commands_are_judged_against_the_model():
    rules, fdp = _fdp_rules(0)
    log = lambda lid, lsi=1, off=0: _judge(rules, Command(   # noqa: E731
        0x02, cdw10=lid | 15 << 16, cdw11=lsi << 16, cdw12=off), tag="fdp-log")[0]
    assert log(0x20) == log(0x23) == "ok" and log(0x21, lsi=0) == 0x002
    assert log(0x22, lsi=0, off=64) == 0x002 and log(0x20, off=96) == 0x002
    get = lambda cdw10, cdw11=1, nsid=0: _judge(rules, Command(    # noqa: E731
        0x0A, nsid=nsid, cdw10=cdw10, cdw11=cdw11), tag="fdp-getfeat")
    assert get(0x1D)[::4] == ("ok", 1) and get(0x31D)[::4] == ("ok", 5)     # saveable
    assert get(0x1E, 255 << 16, nsid=1)[::4] == ("ok", 4)
    assert get(0x1E, 4 | 2 << 16, nsid=1)[0] == 0x002          # a handle 1 lacks
    assert get(0x31E, nsid=0)[0] == 0x00B and get(0x41D)[0] == 0x002
    io = lambda opcode, cdw10, cdw11=0, nsid=1, mem=(): _judge(    # noqa: E731
        rules, Command(opcode, nsid=nsid, prp1=0x0A00_0000, cdw10=cdw10, cdw11=cdw11),
        mem, admin=False, tag={0x12: "iomr", 0x1D: "ioms"}.get(opcode, "pwrite"))[:4:3]
    assert io(0x12, 1, 3) == ("ok", True) and io(0x12, 1, 1 << 18) == (0x002, True)
    assert io(0x12, 7) == (0x002, True) and io(0x12, 1, nsid=9) == (0x002, True)
    pids = [(0x0A00_0000, struct.pack("<2H", 3, 4).ljust(4096, b"\0"))]
    assert io(0x1D, 1 | 1 << 16, mem=pids)[0] == 0x002         # PID 4: not of namespace 1
    assert io(0x1D, 1 | 4 << 16, mem=pids)[0] == 0x002         # NPID past MAXPIDS
    assert io(0x1D, 1, mem=pids)[0] == "ok"
    write = lambda dtype: _judge(rules, Command(                 # noqa: E731
        0x01, nsid=1, cdw12=dtype << 20, cdw13=9 << 16), admin=False, tag="pwrite")[0]
    assert write(2) == write(0) == "ok" and write(1) == write(3) == 0x002
    rules.m.ns.fdp_on = False
    assert write(2) == 0x002 and write(1) == "ok" and io(0x12, 1, 3)[0] == 0x029


def test_fdp_entries_are_seeded_and_spare_namespace_1():
    from nvmefuzz import campaign, variant

    def entries(seed):
        v = variant.parse(campaign.fdp_props(seed))
        model = Model(16, 81920, 1 << 20, Namespaces(CAPACITY, (40, 8), None, v.fdp.ruhs))
        gen = Generator(random.Random(seed), model, [(0xE0000000, 0x4000)], variant=v)
        out, tags = [], set()
        for _ in range(3000):
            for admin, sqe in ((True, gen.admin_command()), (False, gen.io_command())):
                if sqe.cmd.opcode in (GUARDED_ADMIN if admin else GUARDED_IO):
                    assert sqe.cmd.nsid & 0xFFFF_FFFF not in (1, 0xFFFF_FFFF), sqe.tag
                tags.add(sqe.tag.split(":")[0].split("/")[0])
                out.append(to_record(0, sqe))
        return out, tags

    first, tags = entries(7)
    assert first == entries(7)[0] != entries(8)[0]
    assert {"fdp-log", "fdp-getfeat", "fdp-setfeat", "fdp-cfg", "iomr", "ioms", "pwrite",
            "pwz"} <= tags


# -- power cuts (the ftl variant's write buffer)

def test_a_write_buffer_brings_power_cuts_and_a_qmp_monitor():
    from nvmefuzz import campaign, variant
    ftl = variant.parse(campaign.ftl_props(1))
    assert ftl.power_cut and ftl.qmp and not ftl.save and ftl.write_cache
    assert not variant.parse(campaign.ftl_props(1) + ",plp=on").power_cut
    for props in (campaign.DEVICE_PROPS, campaign.fdp_props(1)):
        assert not variant.parse(props).power_cut and not variant.parse(props).qmp
    assert variant.parse(campaign.zns_props(1)).qmp          # its save's monitor
    assert "pg_wr_lat=500000" in campaign.ftl_props(4) and \
        "pg_wr_lat=500000" not in campaign.ftl_props(5)


def test_pcut_is_generated_with_a_burst_and_only_with_a_write_buffer():
    from nvmefuzz import campaign, variant

    def records(props, seed=5, batches=200):
        model = Model(16, 81920, 1 << 20, Namespaces(CAPACITY, (40, 8)))
        model.enabled = True
        model.cqs = {0: Cq(0, 64, 0x100000), 1: Cq(1, 256, 0x200000)}
        model.sqs = {0: Sq(0, 64, 0x300000, 0), 1: Sq(1, 256, 0x400000, 1)}
        gen = Generator(random.Random(seed), model, [(0xE0000000, 0x4000)],
                        variant=variant.parse(props))
        out = []
        for _ in range(batches):
            out += list(gen.batch())
            model.pending.clear()
            model.per_sq.clear()
            model.admin.clear()
        return out

    ftl = records(campaign.ftl_props(1))
    cuts = [i for i, rec in enumerate(ftl) if rec["a"] == "pcut"]
    assert len(cuts) >= 3 and ftl == records(campaign.ftl_props(1))
    assert {rec["how"].split("=")[0] for rec in ftl if rec["a"] == "pcut"} >= \
        {"now", "after-writes"}
    burst = ftl[cuts[0] - 1]
    assert burst["a"] == "sub" and burst["tag"] in ("write", "read", "flush", "wz")
    assert not any(rec["a"] == "pcut" for rec in records(campaign.DEVICE_PROPS))


def test_reads_of_torn_lbas_may_fail_with_unrecovered_read_error():
    from nvmefuzz.power import SC_UNRECOVERED_READ, PowerCut

    class Cut(PowerCut):
        m = Model(16, 81920, 1 << 20, Namespaces(CAPACITY, (40, 8)))

    cut = Cut()
    cut.m.torn = [(800, 808)]
    raw = lambda op, slba, nlb: bytearray(Command(       # noqa: E731
        op, nsid=1, cdw10=slba, cdw12=nlb - 1).pack(0))
    assert cut._torn_read(0x02, raw(0x02, 804, 1), "ok", "r")[0] == (0, SC_UNRECOVERED_READ)
    assert cut._torn_read(0x0C, raw(0x0C, 790, 11), "ok", "v")[0] == (0, SC_UNRECOVERED_READ)
    assert cut._torn_read(0x02, raw(0x02, 790, 10), "ok", "r")[0] == "ok"
    assert cut._torn_read(0x01, raw(0x01, 804, 1), "ok", "w")[0] == "ok"    # a write
    # Get LBA Status of namespace 1: marks inside the torn pages only
    page = lambda *runs: struct.pack("<I4x", len(runs)) + b"".join(     # noqa: E731
        struct.pack("<QI4x", s, n - 1) for s, n in runs)
    assert cut._torn_marks_ok(page((800, 8)))
    assert cut._torn_marks_ok(page((801, 2), (806, 1)))
    assert not cut._torn_marks_ok(page((800, 9)))
    assert not cut._torn_marks_ok(page((800, 8), (0, 1)))


def test_kv_variant_from_device_properties():
    from nvmefuzz import campaign, variant
    kv = variant.parse(campaign.kv_props(0))
    assert kv.kv is not None and kv.zoned is None and kv.css == 6
    assert (kv.kv.nsid, kv.kv.mib) == (3, campaign.KV_MIB[0])
    both = variant.parse(campaign.zns_props(0) + ",kv_ns_mb=2")
    assert (both.kv.nsid, both.zoned.nsid) == (3, 4)     # KV after the NVM ones, zoned last
    assert variant.parse(campaign.DEVICE_PROPS).kv is None


def test_kv_entries_place_the_key_and_spare_the_kv_namespace():
    """KV templates put key byte i at SQE byte 8 + i (i < 8) or 56 + i - 8, KL in CDW11
    bits 7:0; a key length outside 1-16 is expected to fail; no namespace change names
    the KV namespace."""
    from nvmefuzz import campaign, variant
    from nvmefuzz.kv_commands import KEY_MAX
    kv = variant.parse(campaign.kv_props(0))
    model = Model(16, 81920, 1 << 20, Namespaces(CAPACITY, (40, 8)))
    gen = Generator(random.Random(5), model, [(0xE0000000, 0x4000)], (), kv)
    c = gen.cmds
    opcodes, bad_kl = set(), 0
    for _ in range(400):
        sqe = c.rng.choice([c.kv_store, c.kv_retrieve, c.kv_list, c.kv_delete, c.kv_exist])()
        raw = sqe.cmd.pack(7)
        kl = raw[44]
        assert struct.unpack_from("<I", raw, 4)[0] == kv.kv.nsid
        opcodes.add(raw[0])
        if not 1 <= kl <= KEY_MAX:
            bad_kl += 1
            assert sqe.exp == "fail"
            continue
        key = raw[8:16] + raw[56:64]
        assert key[kl:] == bytes(KEY_MAX - kl)      # the key's unused bytes stay zero
    assert opcodes == {0x01, 0x02, 0x06, 0x10, 0x14} and bad_kl > 0
    for _ in range(3000):
        rec = gen.admin_command()
        if rec.cmd.opcode in GUARDED_ADMIN:
            assert rec.cmd.nsid & 0xFFFF_FFFF not in (1, kv.kv.nsid, 0xFFFF_FFFF)
    assert judge.writes_host(False, 0x06, kv=True) and not judge.writes_host(False, 0x06)
