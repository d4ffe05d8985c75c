"""The fuzzer's pure parts, without QEMU: ddmin, how QEMU cuts a register access, what
an entry does to the host's trust, replay files, the same seed giving the same entries."""
import random

from nvmefuzz import ddmin, judge, replay
from nvmefuzz.commands import Commands, to_record
from nvmefuzz.controller import _pieces
from nvmefuzz.layout import Picker
from nvmefuzz.model import Model


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
