"""Aged states in the lab tools: femu-lab age (ftl-sim passes chained through state files),
the checks before a run starts from a state (missing, not a state, truncated, another
configuration: one line, exit 2, nothing booted), ftl-sim sweeps from a state, and one
short VM run from an aged state in which GC runs from the first writes."""
import json
import os
import subprocess
import sys

import pytest

from femu_lab import devconfig, workloads
from femu_lab.run import aged
from femu_lab.paths import QEMU
from lab_calls import LAB_1G, SMALL_SIM, SMALL_VM, lab


@pytest.fixture(autouse=True)
def _in_repo(monkeypatch, repo_root):
    monkeypatch.chdir(repo_root)   # config paths are relative to the repository


def small_config(*extra):
    sets = SMALL_SIM + list(extra)
    return devconfig.load(LAB_1G, devconfig.parse_overrides(sets[1::2]))


@pytest.fixture(scope="module")
def aged_small(tmp_path_factory, ftl_sim, repo_root):
    """The small device aged by femu-lab age: (state path, stderr lines)."""
    folder = tmp_path_factory.mktemp("aged")
    state = folder / "small.state"
    proc = subprocess.run([sys.executable, "-m", "femu_lab", "age", "--config",
                           LAB_1G, *SMALL_SIM, "--passes", "3", "-o", str(state)],
                          capture_output=True, text=True, cwd=repo_root,
                          stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stderr
    return state, proc.stdout.splitlines(), proc.stderr.splitlines()


def test_age_writes_a_state_made_by_ftl_sim_without_data(aged_small):
    state, stdout, stderr = aged_small
    assert stdout[-1] == str(state.resolve())
    meta = aged.read_meta(state)
    assert meta["producer"] == "ftl-sim" and meta["data"] == "absent"
    assert not [p for p in state.parent.iterdir() if p != state]   # no temporary left
    line = [l for l in stderr if "aged lab-1g" in l]
    assert line and "3 x the capacity of gc-randwrite" in line[0], stderr


def test_each_pass_continues_the_last_one(ftl_sim, tmp_path):
    """Pass 1 starts at the fill (GC has all of OP), later passes continue from the saved
    state: their WAF is that of a device in steady state, above pass 1's."""
    config = small_config()
    request = aged.AgeRequest(config=config, workload=workloads.resolve("gc-randwrite"),
                              out=tmp_path / "a.state", passes=3)
    result = aged.age(request)
    assert len(result.pass_waf) == 3 and all(w is not None for w in result.pass_waf)
    assert result.pass_waf[0] < result.pass_waf[1]
    assert result.host_write_pages == 3 * config.logical_bytes // 4096
    assert result.state_bytes == (tmp_path / "a.state").stat().st_size > 0


def test_rest_ages_the_data_after_the_last_pass(ftl_sim, tmp_path):
    """--rest: the last pass pauses that long before the save, so under a read-retry model
    of one step a day the data reads 10 days old: age class 10, capped at read_retry_max
    (8); the simulated time includes the rest."""
    config = small_config()
    request = aged.AgeRequest(config=config, workload=workloads.resolve("gc-randwrite"),
                              out=tmp_path / "rested.state", passes=1, rest_s=10 * 86400)
    result = aged.age(request)
    assert result.sim_seconds > 10 * 86400
    conf = config.write(tmp_path / "c.conf")
    subprocess.run([str(ftl_sim), "--config", conf, "--state-in", request.out,
                    "--set", "read_retry_lat=1000", "--set", "read_retry_age_s=86400",
                    "--rw", "randread", "--io-size", "4m", "--stats-dir", tmp_path / "st"],
                   check=True, capture_output=True)
    rows = (tmp_path / "st" / "read_retries.csv").read_text().splitlines()[1:]
    classes = {int(row.split(",")[0]) for row in rows}
    assert classes == {8}, rows      # read_retry_max (8) caps the class of 10 days


@pytest.mark.parametrize("value, message", [("0", "must be 1 s to 100 days"),
                                            ("101d", "must be 1 s to 100 days"),
                                            ("soon", "is not a duration"),
                                            # isdigit() takes them; int() raised
                                            ("²", "is not a duration"),
                                            ("3²d", "is not a duration"),
                                            ("9" * 5000 + "s", "is not a duration")])
def test_age_refuses_a_bad_rest(capsys, tmp_path, value, message):
    status, _, err = lab(capsys, "age", "--config", LAB_1G, *SMALL_SIM, "--rest", value,
                         "-o", tmp_path / "x.state")
    assert status == 2 and len(err) == 1 and message in err[0], err


def test_a_state_is_checked_against_the_run_configuration(aged_small):
    state, _, _ = aged_small
    assert aged.check_state(state, small_config())["producer"] == "ftl-sim"
    # a timing may differ (no state depends on it), placement may not
    aged.check_state(state, small_config("--set", "pg_wr_lat=123000"))
    with pytest.raises(aged.AgedError, match="placement"):
        aged.check_state(state, small_config("--set", "placement=hotcold"))


@pytest.mark.parametrize("damage, message", [
    ("missing", "no such file"),
    ("garbage", "not a femu state file"),
    ("truncated", "truncated"),
])
def test_unusable_state_files_are_one_line(aged_small, tmp_path, damage, message):
    state, _, _ = aged_small
    bad = tmp_path / "bad.state"
    if damage == "garbage":
        bad.write_bytes(b"not a state file at all, just text\n" * 4)
    elif damage == "truncated":
        bad.write_bytes(state.read_bytes()[: state.stat().st_size // 2])
    with pytest.raises(aged.AgedError, match=message) as caught:
        aged.check_state(bad, small_config())
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize("damage, message", [
    # issue 29, fault 7: META claiming 8 GiB was read whole (MemoryError, a traceback)
    ("meta-8g", "corrupt (section META: 8589934592 bytes, at most 1048576)"),
    # a header, then zeroes: every 16 zero bytes were an empty section, for ever
    ("zeroes", "corrupt (no META section first)"),
    ("version", "state format version 9, this femu reads version 1"),
])
def test_hostile_state_headers_cost_two_reads(aged_small, tmp_path, damage, message):
    state, _, _ = aged_small
    head = bytearray(state.read_bytes()[:40])
    bad = tmp_path / "bad.state"
    if damage == "meta-8g":
        head[32:40] = (8 << 30).to_bytes(8, "little")
        bad.write_bytes(bytes(head))
        os.truncate(bad, 16 << 30)                      # a hole: nothing on disk
    elif damage == "zeroes":
        bad.write_bytes(bytes(head[:24]))
        os.truncate(bad, 64 << 30)
    else:
        head[8:12] = (9).to_bytes(4, "little")
        bad.write_bytes(bytes(head))
    with pytest.raises(aged.AgedError) as caught:
        aged.read_meta(bad)
    assert str(caught.value) == f"{bad}: {message}"


def test_run_blackbox_refuses_a_bad_aged_state_before_booting(capsys, aged_small, tmp_path):
    state, _, _ = aged_small
    missing = QEMU.parent / "no-such-qemu"    # reached only if the checks let it through
    cases = [
        (["--aged", tmp_path / "none.state"], "none.state: no such file"),
        (["--aged", state, "--precondition"], "exclude each other"),
        (["--aged", state, "--set", "placement=hotcold"], "placement"),
    ]
    for args, message in cases:
        status, _, err = lab(capsys, "run", "--config", LAB_1G, *SMALL_SIM, *args,
                             "--qemu", missing, "--out", tmp_path / "run")
        assert status == 2, err
        assert len(err) == 1 and message in err[0], err
        assert not (tmp_path / "run").exists()


def test_age_refuses_bad_requests(capsys, tmp_path):
    status, _, err = lab(capsys, "age", "--config", LAB_1G, *SMALL_SIM,
                         "-o", tmp_path / "no" / "such" / "dir" / "x.state")
    assert status == 2 and len(err) == 1 and "does not exist" in err[0], err
    status, _, err = lab(capsys, "age", "--config", LAB_1G, "--set", "nosuchkey=1",
                         "-o", tmp_path / "x.state")
    assert status == 2 and len(err) == 1 and "nosuchkey" in err[0], err
    assert not (tmp_path / "x.state").exists()


@pytest.mark.parametrize("kind", ["fifo", "symlink"])
def test_age_never_renames_over_what_is_not_a_regular_file(capsys, tmp_path, kind):
    """-o was resolved (a symlink's target replaced) and renamed over (a FIFO made a file)."""
    out = tmp_path / "out.state"
    if kind == "fifo":
        os.mkfifo(out)
    else:
        (tmp_path / "target").write_text("kept")
        out.symlink_to(tmp_path / "target")
    mode = os.lstat(out).st_mode
    status, _, err = lab(capsys, "age", "--config", LAB_1G, *SMALL_SIM, "--passes", "1",
                         "-o", out)
    assert status == 2 and len(err) == 1 and "only a regular file" in err[0], err
    assert os.lstat(out).st_mode == mode
    assert kind == "fifo" or (tmp_path / "target").read_text() == "kept"


def test_sim_sweep_from_an_aged_state_starts_in_steady_state(capsys, aged_small, tmp_path):
    """The same sweep from the aged state and from a fresh device: with the state, GC
    moves pages in the measured part; without it, the same writes fit the free space."""
    state, _, _ = aged_small
    base = ["sweep", "--workload", "gc-randwrite", "--config", LAB_1G, *SMALL_SIM,
            "--set", "gc_policy=greedy,fifo", "--engine", "sim", "--runtime", "1"]
    status, _, err = lab(capsys, *base, "--aged", state, "--out", tmp_path / "aged")
    assert status == 0, err
    status, _, err = lab(capsys, *base, "--out", tmp_path / "fresh")
    assert status == 0, err
    for point in ("p01-gc_policy-greedy", "p02-gc_policy-fifo"):
        aged_summary = json.loads((tmp_path / "aged" / point / "summary.json").read_text())
        fresh_summary = json.loads((tmp_path / "fresh" / point / "summary.json").read_text())
        assert aged_summary["gc_write_pages"] > 0
        assert aged_summary["waf"] > fresh_summary["waf"]
        assert json.loads((tmp_path / "aged" / point / "params.json").read_text())["aged"] \
            == str(state.resolve())


def test_sweep_refuses_a_state_of_another_configuration(capsys, aged_small, tmp_path):
    state, _, _ = aged_small
    status, _, err = lab(capsys, "sweep", "--workload", "gc-randwrite", "--config", LAB_1G,
                         *SMALL_SIM, "--set", "placement=single,hotcold", "--engine", "sim",
                         "--aged", state, "--out", tmp_path / "s")
    assert status == 2 and len(err) == 1 and "placement" in err[0], err
    assert not (tmp_path / "s").exists()


GC_BY_SIZE = """# description: 48 MiB of 4 KiB random writes, the amount bounded (not the time)
# runtime: 60
phase workload
fio_json fio-gc-by-size --name=gc-by-size --filename="$DEV" --rw=randwrite --bs=4k \\
    --ioengine=libaio --iodepth=16 --direct=1 --norandommap --io_size=48m
"""


@pytest.mark.vm
def test_a_vm_run_from_an_aged_state_collects_garbage_from_the_start(capsys, repo_root,
                                                                      tmp_path):
    """On a fresh 96 MiB device, 48 MiB of writes fit the free flash and GC erases nothing;
    from the aged state the same writes need GC at once. Counts, not rates: the amount
    written is fixed, whatever the host's speed."""
    if not QEMU.exists():
        pytest.fail(f"{QEMU} is missing: build it with build-femu/femu-compile.sh")
    state = tmp_path / "vm.state"
    status, _, err = lab(capsys, "age", "--config", LAB_1G, *SMALL_VM, "-o", state)
    assert status == 0, err
    workload = tmp_path / "gc-by-size.sh"
    workload.write_text(GC_BY_SIZE)
    out = tmp_path / "run"
    status, stdout, err = lab(capsys, "run", "--config", LAB_1G, *SMALL_VM, "--workload",
                              workload, "--aged", state, "--out", out,
                              "--qemu", QEMU.relative_to(repo_root))
    print("\n".join(err), file=sys.stderr)
    assert status == 0
    assert any("holds no data" in line for line in err)
    result = json.loads((out / "result.json").read_text())
    assert result["gc_erased_blocks"] > 0
    assert result["device_write_commands"] == result["fio_write_ios"] == 48 * 256
    assert json.loads((out / "params.json").read_text())["aged"] == str(state.resolve())
    assert "state_in=" in (out / "qemu-cmdline.txt").read_text()
