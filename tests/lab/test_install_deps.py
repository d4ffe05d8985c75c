"""scripts/install-deps.sh and the first-run lines of run-blackbox.sh, in a copy of the
repository's scripts with stand-ins for dpkg-query, apt-get, sudo and python3 on PATH:
which lists the default install takes (not Slurm's), the progress lines, the log, the
silence when nothing is missing and the one line of a failed step."""
import os
import pty
import re
import select
import shutil
import subprocess
from pathlib import Path

import pytest

# Runs the shell entry points (with stand-ins for apt, sudo and pip), so not unit.
pytestmark = pytest.mark.integration

REPO = Path(__file__).resolve().parents[2]
LOG = "build/logs/install-deps.log"
START = re.compile(r"^\[install-deps\] (.+) \.\.\.$")
TIME = r"(\d+\.\d s|\d+ s|\d+ min \d+ s)"
DONE = re.compile(rf"^\[install-deps\] (.+): done in {TIME}$")
HEADER = f"[install-deps] installing what is missing; apt's and pip's output goes to {LOG}"
TOTAL = re.compile(rf"^\[install-deps\] installed in {TIME}$")

# Every stand-in appends its command line to $FAKE_CALLS and writes chatter, as the real
# ones do, which must end up in the log and never on the terminal.
DPKG_QUERY = """#!/usr/bin/env bash
pkg=${@: -1}
grep -qx "$pkg" "$FAKE_INSTALLED" 2>/dev/null || exit 1
printf 'install ok installed'
"""
APT_GET = """#!/usr/bin/env bash
echo "apt-get $*" >> "$FAKE_CALLS"
echo "Reading package lists... Done (apt chatter)"
[[ -z ${FAIL_APT:-} ]] || { echo "E: Unable to locate package $FAIL_APT"; exit 100; }
if [[ " $* " == *" install "* ]]; then
    for arg in "$@"; do
        [[ $arg == -* || $arg == install || $arg == *=* ]] || echo "$arg" >> "$FAKE_INSTALLED"
    done
fi
"""
SUDO = """#!/usr/bin/env bash
[[ $1 == -n || $1 == -v ]] && exit 0
exec "$@"
"""
# python3 -m venv DIR makes DIR/bin/python, this same script; python -m pip logs its call.
PYTHON = """#!/usr/bin/env bash
echo "python $*" >> "$FAKE_CALLS"
if [[ $1 == -m && $2 == venv ]]; then
    mkdir -p "$3/bin" && cp "$0" "$3/bin/python" && exit 0
fi
echo "Collecting something (pip chatter)"
for arg in "$@"; do
    if [[ -n ${FAIL_PIP:-} && $arg == *"$FAIL_PIP"* ]]; then
        echo "ERROR: No matching distribution found for $FAIL_PIP (injected)"
        exit 1
    fi
done
"""


@pytest.fixture
def repo(tmp_path):
    """A copy of the scripts install-deps.sh and run-blackbox.sh need, and the stand-ins."""
    root = tmp_path / "repo"
    for script in ("scripts/install-deps.sh", "build-femu/run-blackbox.sh"):
        (root / script).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / script, root / script)
    shutil.copytree(REPO / "scripts" / "deps", root / "scripts" / "deps")
    for package in ("scripts/common", "analysis", "build-femu", "scripts/guest", "scripts"):
        (root / package).mkdir(parents=True, exist_ok=True)
        (root / package / "pyproject.toml").write_text(f"# {package}\n")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name, text in (("dpkg-query", DPKG_QUERY), ("apt-get", APT_GET), ("sudo", SUDO),
                       ("python3", PYTHON)):
        (bin_dir / name).write_text(text)
        (bin_dir / name).chmod(0o755)
    return root


def env_of(repo, **extra):
    tmp = repo.parent
    return dict(os.environ, PATH=f"{tmp / 'bin'}:{os.environ['PATH']}",
                FAKE_CALLS=str(tmp / "calls"), FAKE_INSTALLED=str(tmp / "installed"), **extra)


def run(repo, *args, script="scripts/install-deps.sh", **extra):
    return subprocess.run([str(repo / script), *args], cwd=repo, env=env_of(repo, **extra),
                          capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=60)


def calls(repo):
    path = repo.parent / "calls"
    return path.read_text().splitlines() if path.exists() else []


def packages_of(*lists):
    names = set()
    for name in lists:
        text = (REPO / "scripts" / "deps" / f"{name}.apt").read_text()
        names |= {word for line in text.splitlines() for word in line.split("#")[0].split()}
    return names


def installed(repo):
    [line] = [call for call in calls(repo) if " install " in call and call.startswith("apt")]
    return set(line.split(" install ", 1)[1].split()) - {"-y", "--no-install-recommends"}


def test_the_default_install_leaves_slurm_out_and_slurm_installs_when_named(repo):
    proc = run(repo, "--apt-only")
    assert proc.returncode == 0, proc.stderr
    everything = {path.stem for path in (REPO / "scripts" / "deps").glob("*.apt")}
    assert "slurm" in everything
    assert installed(repo) == packages_of(*(everything - {"slurm"}))
    assert not installed(repo) & {"slurmctld", "slurmd", "munge"}

    (repo.parent / "calls").unlink()
    proc = run(repo, "--apt-only", "slurm")    # what the Slurm tests' fixture runs
    assert proc.returncode == 0, proc.stderr
    assert installed(repo) == packages_of("slurm")


def test_a_first_run_shows_one_line_per_step_and_logs_the_rest(repo):
    proc = run(repo)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == ""
    lines = proc.stderr.splitlines()
    assert lines[0] == HEADER and TOTAL.match(lines[-1])
    # Not a terminal: each step's line when it starts, then its line with the time.
    starts, ends = lines[1:-1:2], lines[2:-1:2]
    assert len(starts) == len(ends)
    steps = [START.match(line).group(1) for line in starts]
    assert [DONE.match(line).group(1) for line in ends] == steps
    assert steps[0] == "apt-get update"
    missing = len(packages_of(*{path.stem for path in (REPO / "scripts" / "deps").glob("*.apt")}
                              - {"slurm"}))
    assert steps[1] == f"apt-get install {missing} packages (named in the log)"
    assert steps[2:] == ["python venv .venv", "pip: upgrade pip", "pip: scripts/deps/analysis.pip",
                         "pip: scripts/deps/test.pip",
                         "pip: scripts/common analysis build-femu scripts/guest scripts "
                         "(editable)"]
    log = (repo / LOG).read_text()
    assert "apt chatter" in log and "pip chatter" in log
    assert "chatter" not in proc.stderr


def test_nothing_missing_is_silent_and_leaves_the_log_alone(repo):
    assert run(repo).returncode == 0
    log = (repo / LOG).read_text()
    before = len(calls(repo))
    proc = run(repo)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")
    assert len(calls(repo)) == before and (repo / LOG).read_text() == log


def test_a_failed_step_names_itself_and_the_log_and_ends_the_install(repo):
    proc = run(repo, FAIL_PIP="test.pip")
    assert proc.returncode == 1
    lines = proc.stderr.splitlines()
    assert re.fullmatch(r"\[install-deps\] error: pip: scripts/deps/test\.pip failed after "
                        r"\d+\.\d s \(exit status 1\); its whole output is in "
                        + re.escape(LOG), lines[-1]), lines[-1]
    assert lines[-2] == "  | ERROR: No matching distribution found for test.pip (injected)"
    assert lines[-3] == "  | Collecting something (pip chatter)"   # the step's own output
    assert lines[-4] == "[install-deps] pip: scripts/deps/test.pip ..."
    assert not any("editable" in line for line in lines)   # nothing after the failed step
    assert not (repo / ".venv" / ".deps-stamp").exists()   # so the next run tries again
    proc = run(repo)                                       # and then succeeds
    assert proc.returncode == 0 and (repo / ".venv" / ".deps-stamp").exists()


def test_a_failed_apt_step_names_the_log_by_its_path_from_the_callers_folder(repo, tmp_path):
    proc = subprocess.run([str(repo / "scripts" / "install-deps.sh"), "--apt-only"],
                          cwd=tmp_path, env=env_of(repo, FAIL_APT="nope"), capture_output=True,
                          text=True, stdin=subprocess.DEVNULL, timeout=60)
    assert proc.returncode == 1
    last = proc.stderr.splitlines()[-1]
    assert last.startswith("[install-deps] error: apt-get update failed after ")
    assert last.endswith(f"its whole output is in repo/{LOG}")


def test_on_a_terminal_each_step_keeps_one_line(repo):
    """The step's line is replaced in place by the line with its time."""
    main, child = pty.openpty()
    proc = subprocess.Popen([str(repo / "scripts" / "install-deps.sh"), "--apt-only"],
                            cwd=repo, env=env_of(repo), stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=child)
    os.close(child)
    chunks = []
    while True:
        ready, _, _ = select.select([main], [], [], 60)
        assert ready, "no output and no end from install-deps.sh in 60 s"
        try:
            chunk = os.read(main, 4096)
        except OSError:        # the other end closed: the script ended
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(main)
    assert proc.wait(timeout=60) == 0
    text = b"".join(chunks).decode()
    lines = text.replace("\r\n", "\n").split("\n")[:-1]
    assert lines[0] == HEADER and TOTAL.match(lines[-1])
    assert len(lines) == 4     # and apt-get update, apt-get install
    for line in lines[1:-1]:
        shown = line.split("\r\x1b[K")[-1]     # what stays on the terminal
        assert DONE.match(shown), repr(line)
        assert START.match(line.split("\r\x1b[K")[0]), repr(line)


def test_run_blackbox_first_run_lines(repo):
    """run-blackbox.sh's first run: install-deps's lines on stderr, nothing on stdout but
    the lab's (here the stand-in venv's python, which only logs its call)."""
    proc = run(repo, "--list-workloads", script="build-femu/run-blackbox.sh")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stderr.splitlines()
    assert lines[0] == HEADER and TOTAL.match(lines[-1])
    assert all(START.match(line) or DONE.match(line) for line in lines[1:-1])
    assert "install" not in proc.stdout
    assert calls(repo)[-1] == "python -m femu_lab.run.blackbox --list-workloads"

    proc = run(repo, "--list-workloads", script="build-femu/run-blackbox.sh")
    assert (proc.returncode, proc.stderr) == (0, "")       # later runs: not a word


def test_run_blackbox_stops_at_a_failed_install(repo):
    proc = run(repo, script="build-femu/run-blackbox.sh", FAIL_PIP="analysis.pip")
    assert proc.returncode == 1
    assert proc.stderr.splitlines()[-1].startswith(
        "[install-deps] error: pip: scripts/deps/analysis.pip failed after ")
    assert not any("blackbox" in call for call in calls(repo))
