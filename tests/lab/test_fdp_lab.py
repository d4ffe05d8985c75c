"""The FDP lab without a guest: the fdp-separation workload (its header, its '# sim:'
line, and its guest job run by the host's sh with stand-in nvme, blockdev and fio), ageing
both variants in ftl-sim, version-4 recordings as workloads, a run's FDP figures
(femu_lab.run.fdp_report) and femu-lab fdp-lab's checks, folder, replay and table."""
import json
import os
import shutil
import subprocess
from pathlib import Path
from types import SimpleNamespace

import pytest

from femu_common.cli_args import UsageError
from femu_lab import cli, devconfig, workloads
from femu_lab.fdp import lab as fdp_lab
from femu_lab.run import aged, fdp_report

LAB_FDP = "conf/lab-fdp.conf"
MIB = 1 << 20


@pytest.fixture
def in_repo(monkeypatch, repo_root, ftl_sim):
    monkeypatch.chdir(repo_root)
    monkeypatch.setenv("FEMU_BUILD_DIR", str(ftl_sim.parents[2]))
    return repo_root


@pytest.fixture
def fdp_config(in_repo, ftl_sim):
    return devconfig.load(in_repo / LAB_FDP, {}, ftl_sim)


# ---- the workload -------------------------------------------------------------------

def test_fdp_separation_is_in_the_library_with_its_sim_line():
    assert "fdp-separation" in workloads.library_names()
    placed = workloads.resolve("fdp-separation")
    assert placed.name == "fdp-separation:1" and placed.arg == "1"
    assert "conf/lab-fdp.conf" in placed.description
    assert workloads.LIBRARY / "lib" / "fdp.sh" in placed.includes
    assert placed.simulator_args() == ["--rw", "randwrite", "--bs", "4k", "--qd", "16",
                                       "--io-size", "512m", "--dist", "hotcold:10:90",
                                       "--fdp", "0", "--fdp-hot", "1"]
    mixed = workloads.resolve("fdp-separation:0")
    assert mixed.simulator_args()[-2:] == ["--fdp-hot", "0"]
    # it ends with its I/O, not with a clock: RUNTIME changes nothing
    assert placed.length(60) == placed.length(600)
    assert placed.length(60).io_bytes == 512 * MIB and not placed.length(60).timed


def test_sim_lines_may_name_fdp_handles(tmp_path):
    path = tmp_path / "mine.sh"
    path.write_text("# sim: --rw randwrite --fdp 2 --fdp-hot 3 --dist hotcold:20:80\n"
                    "phase workload\n")
    assert workloads.resolve(str(path)).simulator_args()[2:4] == ["--fdp", "2"]


STANDIN_NVME = r"""#!/bin/sh
echo "nvme $*" >>"$LOG"
case "$1 $2" in
"fdp feature") printf 'Endurance Group : 1\nFlexible Direct Placement Enable (FDPE)       : %s\n' "$FDPE" ;;
"fdp configs") printf 'Number of Reclaim Unit Handles: 8\nReclaim Unit Nominal Size: 16777216\n' ;;
"fdp status") echo '{ "nruhsd":8, "ruhss":[] }' ;;
"fdp stats") echo '{ "hbmw":0, "mbmw":0, "mbe":0 }' ;;
"fdp usage") echo '{ "nruh":8, "ruhus":[] }' ;;
"fdp events") echo '{ "n":0, "events":[] }' ;;
esac
"""


def run_guest_job(tmp_path: Path, spec: str, fdpe: str = "Yes", runtime: int = 30):
    """The workload's guest job under the host's sh: (exit status, output, calls made)."""
    fake = tmp_path / "bin"
    fake.mkdir()
    log = tmp_path / "calls"
    tools = {"nvme": STANDIN_NVME,
             "blockdev": f"#!/bin/sh\necho \"blockdev $*\" >>\"$LOG\"\necho {768 * MIB}\n",
             "fio": "#!/bin/sh\necho \"fio $*\" >>\"$LOG\"\n",
             "dmesg": "#!/bin/sh\n"}
    for name, text in tools.items():
        (fake / name).write_text(text)
        (fake / name).chmod(0o755)
    out = tmp_path / "out"
    out.mkdir()
    script = workloads.resolve(spec).guest_script(runtime, precondition=False)
    env = {**os.environ, "PATH": f"{fake}:{os.environ['PATH']}", "FEMU_OUT": str(out),
           "LOG": str(log), "FDPE": fdpe}
    proc = subprocess.run(["sh", "-c", script], capture_output=True, text=True, env=env,
                          timeout=60)
    calls = log.read_text().splitlines() if log.exists() else []
    return proc, calls, out


def fio_options(calls):
    """The fio call's options: {name: value} (a flag without '=' maps to None)."""
    fio, = [call for call in calls if call.startswith("fio ")]
    words = fio.split()[1:]
    options = dict(word[2:].partition("=")[::2] for word in words)
    assert len(options) == len(words), f"an option given twice: {fio}"
    return options


HOT_BYTES = 768 * MIB // 10 // 4096 * 4096


def test_guest_job_places_each_write_by_its_offset(tmp_path):
    proc, calls, out = run_guest_job(tmp_path, "fdp-separation:3")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    options = fio_options(calls)
    assert {"filename": "/dev/ng0n1", "ioengine": "io_uring_cmd", "cmd_type": "nvme",
            "rw": "randwrite", "bs": "4k", "fdp": "1", "fdp_pli_select": "scheme",
            "dp_scheme": str(out / "fdp-scheme.txt")}.items() <= options.items()
    # the hot range [0, 10 %) on handle 3, the rest on 0: the scheme fio places by
    assert (out / "fdp-scheme.txt").read_text() == \
        f"0, {HOT_BYTES}, 3\n{HOT_BYTES}, {768 * MIB}, 0\n"
    assert options["random_distribution"] == \
        f"zoned_abs:90/{HOT_BYTES}:10/{768 * MIB - HOT_BYTES}"
    # The FDP logs bracket the writes; the phase markers bracket the logs.
    order = [call.split()[1:3] for call in calls if call.startswith(("nvme", "fio"))]
    fio_at = next(i for i, call in enumerate(calls) if call.startswith("fio "))
    before = [c for c in calls[:fio_at] if "fdp stats" in c]
    after = [c for c in calls[fio_at:] if "fdp stats" in c]
    assert len(before) == 1 and len(after) == 1, order
    for name in ("start", "end"):
        for kind in ("stats", "status", "usage", "events"):
            assert (out / f"fdp-{name}-{kind}.json").is_file(), (name, kind)
    assert "hot data (76 MiB) on placement handle 3" in proc.stdout


def test_guest_job_is_one_stream_of_fixed_size_whatever_the_runtime(tmp_path):
    """What makes the FTL's request stream the same at any host speed: one job (no
    interleaving of jobs), offsets from a fixed seed, pinned to one vCPU (one submission
    queue), and an end set by bytes, the '# sim:' line's, not by a clock."""
    calls = {}
    for runtime in (30, 300):
        folder = tmp_path / str(runtime)
        folder.mkdir()
        proc, calls[runtime], _ = run_guest_job(folder, "fdp-separation:1", runtime=runtime)
        assert proc.returncode == 0, proc.stdout + proc.stderr
    options = fio_options(calls[30])
    assert {key: value.replace("/300/", "/30/") for key, value in
            fio_options(calls[300]).items()} == options
    assert sum(key == "name" for key in options) == 1 and "flow" not in options
    assert not {"time_based", "runtime"} & options.keys()
    assert (options["randrepeat"], options["randseed"], options["cpus_allowed"]) == \
        ("1", "1", "0")
    sim = workloads.resolve("fdp-separation:1").simulator_args()
    assert options["io_size"] == sim[sim.index("--io-size") + 1]
    assert options["iodepth"] == sim[sim.index("--qd") + 1]
    # hotcold:H:W (H % of the LBAs take W % of the writes) is the zoned_abs split
    hot_share, cold_share = (int(zone.split("/")[0]) for zone in
                             options["random_distribution"].split(":")[1:])
    assert sim[sim.index("--dist") + 1] == f"hotcold:10:{hot_share}" and \
        hot_share + cold_share == 100


@pytest.mark.skipif(shutil.which("fio") is None, reason="no fio on this host")
def test_guest_jobs_offsets_repeat_run_after_run(tmp_path):
    """The job's offset options under the host's fio (null engine, 4 MiB of them): the
    same offsets in the same order twice, about 90 % in the hot range."""
    _, calls, _ = run_guest_job(tmp_path, "fdp-separation:0")
    options = fio_options(calls)
    kept = {key: options[key] for key in ("name", "rw", "bs", "iodepth", "norandommap",
                                          "randrepeat", "randseed", "random_distribution")}
    offsets = []
    for attempt in range(2):
        log = tmp_path / f"iolog{attempt}"
        subprocess.run(["fio", *(f"--{key}" if value == "" else f"--{key}={value}"
                                 for key, value in kept.items()),
                        "--ioengine=null", "--filename=/dev/null", f"--size={768 * MIB}",
                        "--io_size=4m", f"--write_iolog={log}", "--output=/dev/null"],
                       check=True, timeout=60)
        offsets.append([int(line.split()[-2]) for line in log.read_text().splitlines()
                        if " write " in line])
    assert offsets[0] == offsets[1] and len(offsets[0]) >= 1024
    hot = sum(offset < HOT_BYTES for offset in offsets[0]) / len(offsets[0])
    assert 0.85 < hot < 0.95


def test_guest_job_without_placement_names_no_handle(tmp_path):
    proc, calls, _ = run_guest_job(tmp_path, "fdp-separation:0")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    options = fio_options(calls)
    assert not {"fdp", "fdp_pli_select", "dp_scheme", "plids"} & options.keys(), options
    assert not (tmp_path / "out" / "fdp-scheme.txt").exists()
    assert "no placement identifiers" in proc.stdout


@pytest.mark.parametrize("spec, fdpe, message", [
    ("fdp-separation:8", "Yes", "ARG 8: the namespace has placement handles 0-7"),
    ("fdp-separation:x1", "Yes", "ARG must be a placement handle"),
    ("fdp-separation", "No", "run with placement=fdp"),
])
def test_guest_job_refuses_what_cannot_run(tmp_path, spec, fdpe, message):
    proc, calls, _ = run_guest_job(tmp_path, spec, fdpe)
    assert proc.returncode == 1
    assert message in proc.stdout
    assert not any(call.startswith("fio ") for call in calls)


# ---- ageing and recordings in ftl-sim ------------------------------------------------

def test_both_variants_age_in_ftl_sim(tmp_path, fdp_config, ftl_sim, run_ftl_sim):
    """The hot data is on handle 1 after ageing with placement, on 0 without."""
    wafs = {}
    for spec in ("fdp-separation:1", "fdp-separation:0"):
        state = tmp_path / f"{spec[-1]}.state"
        request = aged.AgeRequest(config=fdp_config, workload=workloads.resolve(spec),
                                  out=state, passes=1)
        result = aged.age(request, ftl_sim)
        wafs[spec] = result.pass_waf[-1]
        summary = tmp_path / f"{spec[-1]}.json"
        run_ftl_sim("--config", LAB_FDP, "--state-in", state, "--rw", "randwrite",
                    "--dist", "hotcold:10:90", "--fdp", "0", "--fdp-hot", spec[-1],
                    "--io-size", "64m", "--summary", summary)
        pointers = {p["name"]: p["host_pages"] for p in json.loads(summary.read_text())
                    ["write_pointers"]}
        assert (pointers["handle 1"] > 0) == (spec.endswith(":1")), pointers
    assert wafs["fdp-separation:1"] < wafs["fdp-separation:0"], wafs


def test_a_version_4_recording_is_a_workload(tmp_path, in_repo, run_ftl_sim):
    trace = tmp_path / "fdp.trace"
    run_ftl_sim("--config", LAB_FDP, "--rw", "randwrite", "--dist", "hotcold:10:90",
                "--fdp", "0", "--fdp-hot", "1", "--io-size", "8m", "--trace-out", trace)
    assert trace.read_text().startswith("V 4\n")
    workload = workloads.resolve(str(trace))
    assert workload.trace == trace and workload.runtime >= 1
    assert workload.simulator_args()[0] == "--trace"


# ---- a run's FDP figures ------------------------------------------------------------

def write_logs(folder: Path, start, end):
    for name, (hbmw, mbmw, mbe) in (("start", start), ("end", end)):
        (folder / f"fdp-{name}-stats.json").write_text(
            json.dumps({"hbmw": hbmw, "mbmw": mbmw, "mbe": mbe}))


def test_log_figures_are_the_differences_of_the_two_reads(tmp_path):
    assert fdp_report.log_figures(tmp_path) is None
    write_logs(tmp_path, (1000, 3000, 0), (5096, 11192, 4096))
    assert fdp_report.log_figures(tmp_path) == {
        "hbmw_bytes": 4096, "mbmw_bytes": 8192, "mbe_bytes": 4096, "waf": 2.0}
    write_logs(tmp_path, (1000, 3000, 0), (1000, 3000, 0))
    assert fdp_report.log_figures(tmp_path)["waf"] is None
    write_logs(tmp_path, (1000, 3000, 0), (900, 3000, 0))
    with pytest.raises(fdp_report.FdpReportError, match="went down"):
        fdp_report.log_figures(tmp_path)
    (tmp_path / "fdp-end-stats.json").write_text("not json")
    with pytest.raises(fdp_report.FdpReportError, match="fdp-end-stats.json"):
        fdp_report.log_figures(tmp_path)


def test_page_bytes_come_from_the_run_configuration(tmp_path):
    assert fdp_report.page_bytes(tmp_path) == 4096
    (tmp_path / "config.conf").write_text("# effective\nsecsz=4096  # x\nsecs_per_pg=4\n")
    assert fdp_report.page_bytes(tmp_path) == 16384


def simulated_run(folder: Path, run_ftl_sim, state=None, trace=None, io="32m"):
    """A run folder from ftl-sim: the lab configuration, hot data on handle 1."""
    folder.mkdir(parents=True)
    (folder / "config.conf").write_text(Path(LAB_FDP).read_text())
    (folder / "params.json").write_text(json.dumps({"workload": "fdp-separation:1"}))
    args = ["--config", LAB_FDP, "--rw", "randwrite", "--dist", "hotcold:10:90",
            "--fdp", "0", "--fdp-hot", "1", "--io-size", io, "--stats-dir", folder]
    args += ["--state-in", state] if state else ["--precondition", "seq"]
    if trace:
        args += ["--trace-out", trace]
    run_ftl_sim(*args)
    return folder


def test_record_writes_fdp_json_with_both_wafs(tmp_path, in_repo, run_ftl_sim):
    folder = simulated_run(tmp_path / "run", run_ftl_sim)
    assert fdp_report.record(folder) is None        # no FDP log saved: not an FDP run
    write_logs(folder, (0, 0, 0), (4096 * 100, 4096 * 250, 0))
    result = fdp_report.record(folder)
    assert json.loads((folder / "fdp.json").read_text()) == result
    assert result["log"]["waf"] == 2.5
    handles = {h["handle"]: h for h in result["csv"]["handles"]}
    assert handles[1]["host_pages"] > handles[0]["host_pages"] > 0
    assert all(h["media_bytes"] == h["media_pages"] * 4096 for h in handles.values())
    assert result["csv"]["host_pages"] == sum(h["host_pages"] for h in handles.values())
    text = fdp_report.report_text(folder)
    assert text.startswith("FDP: WAF 2.500 from the FDP statistics log")
    assert "handle 1: media" in text and "handle 2:" not in text


# ---- femu-lab fdp-lab ---------------------------------------------------------------

def test_lab_needs_placement_fdp_and_a_hot_handle_there_is(in_repo, ftl_sim, fdp_config):
    single = devconfig.load(in_repo / "conf" / "lab-1g.conf", {}, ftl_sim)
    with pytest.raises(UsageError, match="needs placement=fdp"):
        fdp_lab.check_config(single, 1)
    with pytest.raises(UsageError, match="fdp_ruhs=8 .placement handles 0-7."):
        fdp_lab.check_config(fdp_config, 8)
    fdp_lab.check_config(fdp_config, 7)


def test_lab_command_line_refuses_a_configuration_without_fdp(in_repo, capsys):
    assert cli.main(["fdp-lab", "--config", "conf/lab-1g.conf"]) == 2
    assert "needs placement=fdp" in capsys.readouterr().err


def test_lab_folder_is_kept_for_the_same_settings_only(tmp_path):
    wanted = {"tool": fdp_lab.PROG, "passes": 3, "seed": 1}
    folder = tmp_path / "lab"
    fdp_lab.claim_folder(folder, wanted)
    (folder / "with-placement").mkdir()
    fdp_lab.claim_folder(folder, wanted)           # again: resumes
    with pytest.raises(UsageError, match=r"other settings \(passes\)"):
        fdp_lab.claim_folder(folder, {**wanted, "passes": 4})
    other = tmp_path / "other"
    other.mkdir()
    (other / "something").write_text("")
    with pytest.raises(UsageError, match="not an fdp-lab folder"):
        fdp_lab.claim_folder(other, wanted)


def test_variants_name_the_workload_arguments():
    placed, mixed = fdp_lab.variants(2)
    assert (placed.name, placed.workload_spec) == ("with-placement", "fdp-separation:2")
    assert (mixed.name, mixed.workload_spec) == ("without-placement", "fdp-separation:0")


def test_replay_of_a_recording_gives_the_runs_figures(tmp_path, in_repo, ftl_sim,
                                                      fdp_config, run_ftl_sim):
    """A recording replayed from the state it started from: the run's statistics again."""
    state = tmp_path / "aged.state"
    aged.age(aged.AgeRequest(config=fdp_config, workload=workloads.resolve("fdp-separation"),
                             out=state, passes=1), ftl_sim)
    run = simulated_run(tmp_path / "run", run_ftl_sim, state=state,
                        trace=tmp_path / "run" / "io.trace")
    command = fdp_lab.replay_command(ftl_sim, run, state, tmp_path / "w")
    assert command[command.index("--state-in") + 1] == str(state)
    assert command[command.index("--trace") + 1] == str(run / "io.trace")
    figures = fdp_lab.replay(ftl_sim, run, state, tmp_path / "replay")
    assert (tmp_path / "replay" / "stats.csv").read_bytes() == (run / "stats.csv").read_bytes()
    csv = fdp_report.handle_figures(run)
    assert figures["waf"] == pytest.approx(csv["waf"])
    assert figures["handles"] == csv["handles"]
    # Again: the finished replay is kept.
    assert fdp_lab.replay(ftl_sim, run, state, tmp_path / "replay") == \
        json.loads((tmp_path / "replay" / "result.json").read_text())


def slower_copy(run: Path, folder: Path, factor: int) -> Path:
    """The run as a host `factor` times slower would have recorded it: the same requests,
    every recorded time times factor."""
    folder.mkdir()
    for name in ("config.conf", "params.json"):
        (folder / name).write_text((run / name).read_text())
    lines = []
    for line in (run / "io.trace").read_text().splitlines():
        words = line.split()
        if words and words[0] in workloads._TIMED_RECORDS:
            words[1] = str(int(words[1]) * factor)
        lines.append(" ".join(words))
    (folder / "io.trace").write_text("\n".join(lines) + "\n")
    return folder


def test_closed_loop_replay_is_the_same_at_any_host_speed(tmp_path, in_repo, ftl_sim,
                                                          fdp_config, run_ftl_sim):
    """The lab's figure: the recording replayed at the workload's QD in simulated time
    gives the same WAF, handle pages and IOPS whatever the recorded times were."""
    workload = workloads.resolve("fdp-separation")
    state = tmp_path / "aged.state"
    aged.age(aged.AgeRequest(config=fdp_config, workload=workload, out=state, passes=1),
             ftl_sim)
    run = simulated_run(tmp_path / "run", run_ftl_sim, state=state,
                        trace=tmp_path / "run" / "io.trace")
    slow = slower_copy(run, tmp_path / "slow", 4)
    qd = fdp_lab.workload_qd(workload)
    assert qd == 16
    command = fdp_lab.replay_command(ftl_sim, run, state, tmp_path / "w", qd)
    assert command[-4:] == ["--replay", "closed", "--qd", "16"]
    fast_figures = fdp_lab.replay(ftl_sim, run, state, tmp_path / "fast-closed", qd)
    slow_figures = fdp_lab.replay(ftl_sim, slow, state, tmp_path / "slow-closed", qd)
    for key in ("waf", "host_pages", "iops", "handles"):
        assert fast_figures[key] == slow_figures[key], key
    assert fast_figures["host_pages"] == 32 * MIB // 4096
    assert fast_figures["iops"] > 0 and fast_figures["waf"] > 1
    params = json.loads((tmp_path / "slow-closed" / "params.json").read_text())
    assert (params["replay"], params["replay_qd"]) == ("closed", 16)


def outcome(variant, waf_csv, waf_log, waf_replay, media, waf_closed=None):
    handles = [{"handle": h, "media_pages": m // 4096, "media_bytes": m}
               for h, m in enumerate(media)]
    return {"variant": variant, "replay": {"waf": waf_replay},
            "closed": {"waf": waf_closed or waf_replay, "iops": 20000.0},
            "run": {"device_iops_mean": 5000.0,
                    "fdp": {"csv": {"waf": waf_csv, "handles": handles},
                            "log": {"waf": waf_log, "hbmw_bytes": 100 * MIB,
                                    "mbmw_bytes": int(100 * MIB * waf_log),
                                    "mbe_bytes": 0}}}}


def test_table_has_a_row_per_variant_and_the_handles_written(tmp_path, fdp_config):
    placed, mixed = fdp_lab.variants(1)
    outcomes = [outcome(placed, 2.5, 2.501, 2.6, [80 * MIB, 170 * MIB, 0], 2.4),
                outcome(mixed, 8.0, 8.002, 8.1, [800 * MIB, 0, 0], 8.4)]
    rows = fdp_lab.table_rows(outcomes)
    assert [row["variant"] for row in rows] == ["with-placement", "without-placement"]
    assert "handle2_media_bytes" not in rows[0]
    assert (rows[0]["handle1_media_bytes"], rows[1]["handle1_media_bytes"]) == (170 * MIB, 0)
    args = SimpleNamespace(passes=3, seed=1)
    text = fdp_lab.markdown(rows, fdp_lab.notes(fdp_config, args, "512 MiB of I/O", 16,
                                                rows))
    assert "| with-placement | 2.400 | 20000 | 2.500 | 2.501 | 2.600 | 100.0 | 250.1 | 80.0 " \
        "| 170.0 | 5000 |" in text
    assert "cut the closed-loop WAF from 8.400 to 2.400 (3.50 x fewer media bytes" in text
    assert "QD 16, in simulated time" in text and "then 512 MiB of I/O" in text
    path = fdp_lab.write_csv(rows, tmp_path / "t.csv")
    assert path.read_text().splitlines()[0] == (
        "variant,workload,waf_closed_loop,closed_loop_iops,waf_stats_csv,waf_fdp_log,"
        "waf_replay,host_bytes,media_bytes,media_erased_bytes,handle0_media_bytes,"
        "handle1_media_bytes,device_iops")
