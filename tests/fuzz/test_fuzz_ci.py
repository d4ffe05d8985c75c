"""The fuzzer's CI pass: a fixed set of seeds, over 2*10^4 commands in all, against the
QEMU the device tests use (build-femu/qemu-system-x86_64 unless FEMU_QEMU says). Every
check is the fuzzer's oracle (README.md): liveness within deadlines, statuses, CSTS,
sanitizer output; nothing is timed."""
from nvmefuzz import campaign, replay

SEEDS = range(1, 9)
COMMANDS_PER_SEED = 2600         # 8 x 2600 > 2*10^4, not counting pool floods
DEADLINE = 10.0


def run_seeds(nvme_qemu, tmp_path, seeds, commands, props_of=None, skip=()):
    """Run each seed (props_of(seed) the device properties, None the defaults) and fail
    naming every failing seed with the command that replays it; return the results."""
    results, failed = [], []
    for seed in seeds:
        props = props_of(seed) if props_of else None
        extra = {"props": props} if props else {}
        result = campaign.run_seed(nvme_qemu, seed, commands, DEADLINE, skip, **extra)
        results.append(result)
        f = result.failure
        if f is not None:
            path = tmp_path / f"seed{seed}-{f.kind}.jsonl"
            replay.save(path, {"seed": seed, "kind": f.kind, "message": f.message,
                               "deadline": DEADLINE, **extra}, result.records[:f.index + 1])
            fuzz = f"PYTHONPATH=tests/support .venv/bin/python -m nvmefuzz --qemu {nvme_qemu}"
            failed.append(f"seed {seed}: {f.kind} at record {f.index}: {f.message}\n"
                          f"  replay: {fuzz} --replay {path}" +
                          ("" if props else f"\n  minimise: {fuzz} --first-seed {seed} "
                           f"--seeds 1 --commands {commands} --minimize"))
    assert not failed, "\n".join(failed)
    return results


def test_fixed_seeds_pass_the_oracle(nvme_qemu, tmp_path):
    results = run_seeds(nvme_qemu, tmp_path, SEEDS, COMMANDS_PER_SEED)
    total = sum(result.sent - result.flood for result in results)
    assert total >= 20000, f"only {total} commands sent"


# The same oracle with the FTL's issue-15 paths under hostile input: DFTL with the smallest
# CMT (one translation page), a small write buffer flushed at half full, block GC units
# (campaign.ftl_props). With the write buffer come power cuts mid-flight (pcut: QMP
# power-cut with a burst of I/O in flight, the FTL checked after each cut, the controller
# as at power-on); seed 104 programs pages in 500 us, so its cuts tear pages.
VARIANT_SEEDS = (101, 102, 104)


def test_dftl_buffer_block_seeds_pass_the_oracle(nvme_qemu, tmp_path):
    results = run_seeds(nvme_qemu, tmp_path, VARIANT_SEEDS, COMMANDS_PER_SEED,
                        campaign.ftl_props)
    cuts = sum(result.power_cuts for result in results)
    print(f"power cuts {cuts} ({sum(r.cut_lost for r in results)} buffered sectors lost, "
          f"{sum(r.cut_torn for r in results)} pages torn) in "
          f"{len(results)} seeds")
    assert cuts > 0, "no power cut was made: pcut did not run"


# The issue-29 surface: the zoned namespace under a zone limit setting the seed picks
# (campaign.ZONE_LIMITS), zone commands, Copy into zones and across namespaces, C2h and
# QMP saves (held, with registers, QMP and resets served meanwhile), CC.SHN with the
# request pool exhausted. Register writes and QMP commands are timed; a CI machine's load
# makes those times no pass/fail figure here, the campaign reports them.
ZNS_SEEDS = range(201, 205)
ZNS_COMMANDS = 1500


def test_zoned_copy_save_seeds_pass_the_oracle(nvme_qemu, tmp_path):
    results = run_seeds(nvme_qemu, tmp_path, ZNS_SEEDS, ZNS_COMMANDS, campaign.zns_props)
    assert sum(result.stalls.qmps for result in results), \
        "no QMP command was sent: the save variant did not run"


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
    checks = {}
    for result in run_seeds(nvme_qemu, tmp_path, FDP_SEEDS, FDP_COMMANDS, campaign.fdp_props):
        for key, value in (result.fdp or {}).items():
            checks[key] = checks.get(key, 0) + value
    assert checks.get("checks") and checks.get("changes"), \
        f"the FDP check or a configuration change never ran: {checks}"


# The Key Value namespace (the kv variant, campaign.kv_props: kv_ns_mb 4, 2 or 8 MiB by
# seed, NSID 3): Store, Retrieve, List, Delete and Exist with random keys, key lengths,
# options and sizes in the random stream, beside everything else; the namespace itself is
# kept out of what creates share. Each KV command reaches the FTL's stores.
KV_SEEDS = (401, 402)
KV_COMMANDS = 1500


def test_kv_seeds_pass_the_oracle(nvme_qemu, tmp_path):
    ops = {}
    for result in run_seeds(nvme_qemu, tmp_path, KV_SEEDS, KV_COMMANDS, campaign.kv_props):
        for key, value in (result.kv_ops or {}).items():
            ops[key] = ops.get(key, 0) + value
    assert all(ops.get(c) for c in campaign.KV_COUNTERS), \
        f"a KV command never reached the FTL: {ops}"
