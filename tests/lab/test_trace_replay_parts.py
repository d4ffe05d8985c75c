"""`femu-lab run --trace`'s parts that need no guest: the fio job it runs, the fw_cfg item
that carries the iolog, the options it refuses, and femu-trace missing."""
import os
import shlex
import subprocess

import pytest

from femu_lab import devconfig, workloads
from femu_lab.run import trace_replay
from femu_lab.traces import generate
from femu_lab.vm import launch as vm
from lab_calls import LAB_1G, lab


def test_a_fast_replay_does_not_stall_and_a_timed_one_does():
    fast, timed = trace_replay.guest_body("fast"), trace_replay.guest_body("timed")
    for body in (fast, timed):
        assert "--read_iolog=/tmp/replay.iolog" in body
        assert '--replay_redirect="$DEV"' in body                 # whatever node nsid 1 is
        assert "--direct=1" in body and "--ioengine=libaio" in body
        assert body.index("phase workload") < body.index("fio_json")
        assert vm.guest_file_path(trace_replay.GUEST_IOLOG) in body
        assert "--runtime" not in body
    assert "--replay_no_stall=1" in fast and "replay_no_stall" not in timed
    assert "--runtime=30" in trace_replay.guest_body("timed", 30)


def test_the_runtime_is_the_span_or_an_allowance_for_a_fast_replay():
    summary = {"span_ns": 2_500_000_000, "records": 400, "bytes_read": 0,
               "bytes_written": 8 << 20}
    assert trace_replay._runtime(summary, "timed") == 3
    assert trace_replay._runtime(summary, "fast") == 2 + 2


def test_guest_files_travel_as_fw_cfg_items(tmp_path):
    iolog = tmp_path / "replay.iolog.gz"
    iolog.write_bytes(b"")
    spec = vm.VmSpec(job="true", guest_files={"replay.iolog.gz": iolog})
    cmd = vm.build_command(spec, tmp_path / "k", tmp_path / "i", "tcg", tmp_path / "r",
                           tmp_path / "job.sh")
    item = f"name=opt/femu/file/replay.iolog.gz,file={iolog}"
    assert cmd[cmd.index(item) - 1] == "-fw_cfg"
    assert vm.guest_file_path("replay.iolog.gz") == \
        "/sys/firmware/qemu_fw_cfg/by_name/opt/femu/file/replay.iolog.gz/raw"
    assert len(f"{vm.GUEST_FILES_FW_CFG}/{trace_replay.GUEST_IOLOG}") <= 55


@pytest.mark.parametrize("args, message", [
    (["--trace", "t.msr", "--workload", "gc-randwrite"], "exclude each other"),
    (["--trace-timing", "fast"], "need --trace"),
    (["--trace-format", "msr"], "need --trace"),
    (["--trace-host", "hm"], "need --trace"),
    (["--trace", "no-such.msr"], "does not exist"),
    (["--trace", "no\nsuch.msr"], "--trace no\\nsuch.msr does not exist"),   # one line
    (["--trace", "."], "--trace . is not a file"),
    (["--trace", "t.msr", "--trace-timing", "slow"], "invalid choice"),
])
def test_bad_trace_options_are_one_line_and_exit_2(capsys, tmp_path, monkeypatch, args,
                                                   message):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "t.msr").write_text("")
    status, _, stderr = lab(capsys, "run", *args)
    assert status == 2 and len(stderr) == 1 and message in stderr[0], stderr


def test_without_femu_trace_info_says_how_to_build_it(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("FEMU_BUILD_DIR", str(tmp_path / "no-build"))
    (tmp_path / "t.msr").write_text("")
    for args in (["info", tmp_path / "t.msr"],
                 ["convert", tmp_path / "t.msr", tmp_path / "out", "--to", "femu"]):
        status, stdout, stderr = lab(capsys, "trace", *args)
        assert status == 1 and stdout == [] and len(stderr) == 1
        assert "femu-trace is not built: build it with 'meson setup build/release" in stderr[0]
    assert not (tmp_path / "out").exists()


def test_a_run_without_femu_trace_fails_as_a_setup_problem(capsys, tmp_path, monkeypatch,
                                                            repo_root):
    """Exit 1 like a missing QEMU; ftl-sim (for the configuration) is still found."""
    build = repo_root / "build" / "release"
    monkeypatch.setattr("femu_lab.traces.femu_trace.tool_path",
                        lambda: tmp_path / "femu-trace")
    monkeypatch.setenv("FEMU_BUILD_DIR", str(build))
    (tmp_path / "t.msr").write_text("")
    status, _, stderr = lab(capsys, "run", "--trace", tmp_path / "t.msr", "--accel", "tcg")
    assert status == 1 and len(stderr) == 1 and "femu-trace is not built" in stderr[0]


# A trace's file name went into a comment of the guest job: a newline ended the comment
# and the rest ran as root in the guest.
HOSTILE_NAMES = ["x\n touch \"$MARKER\" #", "x$(touch \"$MARKER\")", "x`touch \"$MARKER\"`",
                 "x'; touch \"$MARKER\"; '", 'x"; touch "$MARKER"; "', "x\\\n;touch $MARKER"]


@pytest.mark.parametrize("name", HOSTILE_NAMES)
def test_a_trace_name_is_one_quoted_word_of_the_guest_job(tmp_path, repo_root, femu_trace,
                                                          ftl_sim, name):
    trace = tmp_path / f"{name}.msr"
    generate.generate(trace, "msr", 20, 1, progress=False)
    config = devconfig.load(repo_root / LAB_1G, {})
    replay = trace_replay.prepare(trace, config, tmp_path)
    job = replay.workload.guest_script(60, False)
    assert subprocess.run(["bash", "-n"], input=job, text=True).returncode == 0
    # The host's part of the job (above the prelude) run for real: the name must come out
    # as WORKLOAD's value, and nothing in it may run.
    header = job.split(workloads.PRELUDE.read_text())[0]
    marker = tmp_path / "pwned"
    show = header + '\nprintf "%s" "$WORKLOAD"'
    proc = subprocess.run(["bash", "-c", show], capture_output=True, text=True,
                          env={**os.environ, "MARKER": str(marker)})
    assert proc.returncode == 0 and proc.stdout == f"trace-{name.split('.')[0]}", proc
    assert not marker.exists()
    # and it is there only inside the two quoted words that name the workload and its file
    for word in (f"trace-{name}", trace.name):
        header = header.replace(shlex.quote(word), "")
    assert name not in header


def test_an_existing_out_is_refused_before_the_trace_is_read(capsys, tmp_path, femu_trace,
                                                               ftl_sim):
    """The trace was converted and described first: two lines for one bad argument."""
    trace = tmp_path / "t.msr"
    generate.generate(trace, "msr", 20, 1, progress=False)
    status, _, stderr = lab(capsys, "run", "--trace", trace, "--out", tmp_path,
                            "--accel", "tcg")
    assert status == 2 and len(stderr) == 1 and "already exists" in stderr[0], stderr
