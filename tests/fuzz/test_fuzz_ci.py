"""The fuzzer's CI pass: a fixed set of seeds, over 2*10^4 commands in all, against the
QEMU the device tests use (build-femu/qemu-system-x86_64 unless FEMU_QEMU says). Every
check is the fuzzer's oracle (README.md): liveness within deadlines, statuses, CSTS,
sanitizer output; nothing is timed."""
from nvmefuzz import campaign, replay
from nvmefuzz.target import DEVICE_PROPS

SEEDS = range(1, 9)
COMMANDS_PER_SEED = 2600         # 8 x 2600 > 2*10^4, not counting pool floods
DEADLINE = 10.0


def test_fixed_seeds_pass_the_oracle(nvme_qemu, tmp_path):
    failed, total = [], 0
    for seed in SEEDS:
        result = campaign.run_seed(nvme_qemu, seed, COMMANDS_PER_SEED, DEADLINE)
        total += result.sent - result.flood
        f = result.failure
        if f is not None:
            cut = result.records[:f.index + 1]
            path = tmp_path / f"seed{seed}-{f.kind}.jsonl"
            replay.save(path, {"seed": seed, "kind": f.kind, "message": f.message,
                               "deadline": DEADLINE}, cut)
            failed.append(f"seed {seed}: {f.kind} at record {f.index}: {f.message}\n"
                          f"  replay: {path}\n  minimise: PYTHONPATH=tests/support "
                          f".venv/bin/python -m nvmefuzz --qemu "
                          f"{nvme_qemu} --first-seed {seed} --seeds 1 --commands "
                          f"{COMMANDS_PER_SEED} --minimize")
    assert not failed, "\n".join(failed)
    assert total >= 20000, f"only {total} commands sent"


# The same oracle with the FTL's issue-15 paths under hostile input: DFTL with the smallest
# CMT (one translation page), a small write buffer flushed at half full, block GC units.
FTL_VARIANT = (DEVICE_PROPS + ",mapping=dftl,cmt_entries=1024,write_buffer_sectors=64,"
               "buf_flush_pcent=50,gc_unit=block,gc_mode=line")
VARIANT_SEEDS = range(101, 104)


def test_dftl_buffer_block_seeds_pass_the_oracle(nvme_qemu, tmp_path):
    failed = []
    for seed in VARIANT_SEEDS:
        result = campaign.run_seed(nvme_qemu, seed, COMMANDS_PER_SEED, DEADLINE,
                                   props=FTL_VARIANT)
        f = result.failure
        if f is not None:
            path = tmp_path / f"seed{seed}-{f.kind}.jsonl"
            replay.save(path, {"seed": seed, "kind": f.kind, "message": f.message,
                               "deadline": DEADLINE, "props": FTL_VARIANT},
                        result.records[:f.index + 1])
            failed.append(f"seed {seed}: {f.kind} at record {f.index}: {f.message}\n"
                          f"  replay: PYTHONPATH=tests/support .venv/bin/python -m "
                          f"nvmefuzz --qemu {nvme_qemu} "
                          f"--replay {path}")
    assert not failed, "\n".join(failed)


# The issue-29 surface: the zoned namespace under a zone limit setting the seed picks
# (campaign.ZONE_LIMITS), zone commands, Copy into zones and across namespaces, C2h and
# QMP saves (held, with registers, QMP and resets served meanwhile), CC.SHN with the
# request pool exhausted. Register writes and QMP commands are timed; a CI machine's load
# makes those times no pass/fail figure here, the campaign reports them.
ZNS_SEEDS = range(201, 205)
ZNS_COMMANDS = 1500


def test_zoned_copy_save_seeds_pass_the_oracle(nvme_qemu, tmp_path):
    failed, qmp = [], 0
    for seed in ZNS_SEEDS:
        props = campaign.zns_props(seed)
        result = campaign.run_seed(nvme_qemu, seed, ZNS_COMMANDS, DEADLINE, props=props)
        qmp += result.stalls.qmps
        f = result.failure
        if f is not None:
            path = tmp_path / f"seed{seed}-{f.kind}.jsonl"
            replay.save(path, {"seed": seed, "kind": f.kind, "message": f.message,
                               "deadline": DEADLINE, "props": props},
                        result.records[:f.index + 1])
            failed.append(f"seed {seed}: {f.kind} at record {f.index}: {f.message}\n"
                          f"  replay: PYTHONPATH=tests/support .venv/bin/python -m "
                          f"nvmefuzz --qemu {nvme_qemu} --replay {path}")
    assert not failed, "\n".join(failed)
    assert qmp, "no QMP command was sent: the save variant did not run"


# Flexible Data Placement (the fdp variant, campaign.fdp_props): FDP logs, features 1Dh/1Eh,
# I/O Management and writes with DTYPE/DSPEC in the random stream, judged against the host
# model; the FDP check (configuration log, usage, statistics, RUH status, updates and
# placed writes exact to the page, events) and configuration changes with every namespace
# deleted and made again with placement handle lists. The seeds (campaign.fdp_props): one
# persistently isolated handle with a 3 s time limit; 15 initially isolated handles, GC
# from 20% of the flash used; 8 initially isolated with a 1 s limit; 2 persistently
# isolated. GC runs in each; 10-20 s on a release binary.
FDP_SEEDS = (309, 305, 317, 311)
FDP_COMMANDS = 3000


def test_fdp_seeds_pass_the_oracle(nvme_qemu, tmp_path):
    failed, checks = [], {}
    for seed in FDP_SEEDS:
        props = campaign.fdp_props(seed)
        result = campaign.run_seed(nvme_qemu, seed, FDP_COMMANDS, DEADLINE, props=props)
        for key, value in (result.fdp or {}).items():
            checks[key] = checks.get(key, 0) + value
        f = result.failure
        if f is not None:
            path = tmp_path / f"seed{seed}-{f.kind}.jsonl"
            replay.save(path, {"seed": seed, "kind": f.kind, "message": f.message,
                               "deadline": DEADLINE, "props": props},
                        result.records[:f.index + 1])
            failed.append(f"seed {seed}: {f.kind} at record {f.index}: {f.message}\n"
                          f"  replay: PYTHONPATH=tests/support .venv/bin/python -m nvmefuzz "
                          f"--qemu {nvme_qemu} --replay {path}")
    assert not failed, "\n".join(failed)
    assert checks.get("checks") and checks.get("changes"), \
        f"the FDP check or a configuration change never ran: {checks}"
