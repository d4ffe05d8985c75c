"""The workload library: name resolution, headers, the guest job it produces, and the
prelude's phase-marker encoding (run on the host with a stand-in nvme command)."""
import os
import subprocess

import pytest

from femu_lab import cli as lab_cli, workloads
from femu_lab.workloads import WorkloadError

from femu_fixtures import phase_cdws  # the device tests' reference encoding (tests/support)


def test_every_library_workload_parses_and_describes_itself():
    names = workloads.library_names()
    for expected in ("gc-randwrite", "fio-randread", "fio-randrw", "fio-randwrite",
                     "sysbench-4", "sysbench-32", "uniform", "normal", "pareto", "zipf",
                     "study-numjobs", "study-iodepth", "study-filesize", "study-thinktime"):
        assert expected in names
    for name in names:
        workload = workloads.resolve(name)
        assert workload.description, name
        assert workload.runtime >= 1
        script = workload.guest_script(workload.runtime, precondition=False)
        assert "phase workload" in script or "lab_" in script or "hotcold_" in script, name


def test_name_with_argument_selects_file_and_sets_arg():
    zipf = workloads.resolve("zipf:0.8")
    assert zipf.path.name == "zipf.sh" and zipf.arg == "0.8" and zipf.slug == "zipf-0.8"
    assert "--dist zipf:0.8 --precondition region" in " ".join(zipf.simulator_args())
    script = zipf.guest_script(300, precondition=False)
    assert "ARG=0.8" in script and "RUNTIME=300" in script
    assert 'hotcold_randwrite "zipf:$ARG"' in script
    default = workloads.resolve("zipf")
    assert default.name == "zipf:1.2" and default.arg == "1.2"


def test_lab_jobs_use_the_labs_fio_options():
    script = workloads.resolve("fio-randwrite").guest_script(300, precondition=False)
    for option in ("--directory=\"$MNT\"", "--bs=16k", "--size=576M", "--numjobs=4",
                   "--time_based", "--group_reporting", "--norandommap", "--direct=1"):
        assert option in script
    assert workloads.resolve("fio-randwrite").needs_mib >= 4 * 576
    sysbench = workloads.resolve("sysbench-32").guest_script(300, precondition=False)
    assert "lab_sysbench 32" in sysbench and "--file-fsync-all=on" in sysbench


def test_precondition_fills_the_device_before_the_body():
    script = workloads.resolve("gc-randwrite").guest_script(30, precondition=True)
    assert script.index("\nprecondition_device\n") < script.index("phase workload\nfio_json")
    assert "PRECONDITION=1" in script
    assert "\nprecondition_device\n" not in workloads.resolve("gc-randwrite").guest_script(
        30, precondition=False)


def test_workload_file_by_path_and_its_headers(tmp_path):
    path = tmp_path / "mine.sh"
    path.write_text("# description: my own\n# runtime: 7\n# runs: 3\n# needs-mib: 10\n"
                    "# a prose comment: not a header\nphase workload\necho hi\n")
    workload = workloads.resolve(str(path))
    assert (workload.name, workload.runtime, workload.runs, workload.needs_mib) == \
        ("mine", 7, 3, 10)
    assert workload.length(5).seconds == 15 and workload.length(5).timed
    assert workload.body.strip() == "phase workload\necho hi"
    with pytest.raises(WorkloadError, match="no '# sim:' line"):
        workload.simulator_args()


@pytest.mark.parametrize("spec, message", [
    ("nope", "unknown workload 'nope'"),
    ("zipf:1;reboot", "may only hold"),
    ("/no/such/file.sh", "does not exist"),
])
def test_bad_names_are_one_line_errors(spec, message):
    with pytest.raises(WorkloadError, match=message):
        workloads.resolve(spec)


@pytest.mark.parametrize("header, message", [
    ("# runtime: soon", "'soon' is not a whole number"),
    ("# runs: 0", "must be at least 1"),
    ("# include: lib/missing.sh", "include 'lib/missing.sh' does not exist"),
    # issue 29, fault 8: includes and '# sim:' options could reach any host file
    ("# include: /etc/passwd", "include '/etc/passwd' is outside the workload library"),
    ("# include: ../../../../../etc/passwd", "is outside the workload library"),
    ("# sim: --rw write --trace-out /tmp/anything", "option --trace-out is not allowed"),
    ("# sim: --rw=write --state-out=/tmp/x", "option --state-out is not allowed"),
    ("# sim: --rw write --config /etc/passwd", "option --config is not allowed"),
    ("# sim: --rw write stray", "'stray' is not an option's value"),
    ("# sim: --rw 'write", "'# sim:' line: No closing quotation"),
])
def test_bad_headers(tmp_path, header, message):
    path = tmp_path / "bad.sh"
    path.write_text(header + "\nphase workload\n")
    with pytest.raises(WorkloadError, match=message):
        workloads.resolve(str(path))


@pytest.mark.parametrize("name", ["workload", "end", "precondition", "a", "sixteen-chars.ok"])
def test_prelude_phase_sends_the_marker_dwords(tmp_path, name):
    """phase NAME runs `nvme admin-passthru` with CDW12-15 = the name's bytes."""
    fake = tmp_path / "bin"
    fake.mkdir()
    log = tmp_path / "nvme-args"
    (fake / "nvme").write_text(f'#!/bin/sh\necho "$@" > {log}\n')
    (fake / "nvme").chmod(0o755)
    script = workloads.PRELUDE.read_text() + f"\nphase {name}\n"
    env = {**os.environ, "PATH": f"{fake}:{os.environ['PATH']}", "FEMU_OUT": str(tmp_path)}
    proc = subprocess.run(["sh", "-c", script], capture_output=True, text=True, env=env)
    assert proc.returncode == 0, proc.stderr
    args = log.read_text().split()
    assert args[:3] == ["admin-passthru", "/dev/nvme0", "--opcode=0xc1"]
    assert args[3:] == [f"--cdw{12 + i}={value}" for i, value in enumerate(phase_cdws(name))]
    assert f"phase {name}" in proc.stdout


def test_prelude_phase_failure_stops_the_job(tmp_path):
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "nvme").write_text("#!/bin/sh\necho 'NVMe status: INVALID_FIELD' >&2\nexit 2\n")
    (fake / "nvme").chmod(0o755)
    script = workloads.PRELUDE.read_text() + "\nphase workload\necho not-reached\n"
    env = {**os.environ, "PATH": f"{fake}:{os.environ['PATH']}"}
    proc = subprocess.run(["sh", "-c", script], capture_output=True, text=True, env=env)
    assert proc.returncode != 0
    assert "phase marker 'workload' failed: NVMe status: INVALID_FIELD" in proc.stdout
    assert "not-reached" not in proc.stdout


def test_a_binary_workload_file_is_one_line(capsys, tmp_path):
    """read_text() raised UnicodeDecodeError: a traceback from femu-lab run and age."""
    path = tmp_path / "blob.sh"
    path.write_bytes(b"\x00\x01\xff\xfe# runtime: 5\n")
    with pytest.raises(WorkloadError, match="is not a text file"):
        workloads.resolve(str(path))
    status = lab_cli.main(["age", "--workload", str(path), "-o", str(tmp_path / "x.state")])
    err = capsys.readouterr().err.splitlines()
    assert status == 2 and len(err) == 1 and "is not a text file" in err[0], err
