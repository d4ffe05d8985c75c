"""Outputs written beside their target and renamed over it (femu-trace convert OUT,
ftl-sim --state-out) replace only a regular file: a symlink, a FIFO, a device or a folder
is refused in one line, exit 2, and left as it was (issue 39, fault 6: OUT a FIFO or a
symlink became a regular file; as root /dev/null was replaced)."""
import os
import subprocess

import pytest

TRACE = "V 2\nW 0 0 8 1 0\nR 1000 0 8 1\n"
SMALL = ["--config", "conf/lab-1g.conf", "--set", "luns_per_ch=2", "--set", "pgs_per_blk=64",
         "--set", "ssd_size=48"]


@pytest.fixture(autouse=True)
def _in_repo(monkeypatch, repo_root):
    monkeypatch.chdir(repo_root)


def targets(tmp_path):
    """Each kind of non-regular target, with a way to tell it is unchanged."""
    real = tmp_path / "real.txt"
    real.write_text("keep me\n")
    link = tmp_path / "link"
    link.symlink_to(real)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    folder = tmp_path / "folder"
    folder.mkdir()
    return {"symbolic link": link, "FIFO": fifo, "folder": folder, "device": "/dev/null"}


def unchanged(kind, path, tmp_path):
    if kind == "symbolic link":
        return os.path.islink(path) and (tmp_path / "real.txt").read_text() == "keep me\n"
    if kind == "FIFO":
        return os.path.exists(path) and not os.path.isfile(path) and \
            os.stat(path).st_mode & 0o170000 == 0o010000
    if kind == "folder":
        return os.path.isdir(path)
    return os.path.exists(path) and not os.path.isfile(path)


@pytest.mark.parametrize("kind", ["symbolic link", "FIFO", "folder", "device"])
def test_convert_refuses_a_target_that_is_not_a_regular_file(femu_trace, tmp_path, kind):
    trace = tmp_path / "in.trace"
    trace.write_text(TRACE)
    out = targets(tmp_path)[kind]
    proc = subprocess.run([femu_trace, "convert", trace, out, "--to", "femu"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and f"{out}: is a" in lines[0] and "only a regular file" in lines[0]
    assert unchanged(kind, out, tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir() if "tmp" in p.name) == []


@pytest.mark.parametrize("kind", ["symbolic link", "FIFO", "device"])
def test_state_out_refuses_a_target_that_is_not_a_regular_file(run_ftl_sim, tmp_path, kind):
    out = targets(tmp_path)[kind]
    proc = run_ftl_sim(*SMALL, "--rw", "write", "--bs", "64k", "--io-size", "1m",
                       "--state-out", out, check=False)
    assert proc.returncode == 2 and "only a regular file" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    assert unchanged(kind, out, tmp_path)


def test_a_regular_target_is_still_replaced(femu_trace, run_ftl_sim, tmp_path):
    trace, out, state = tmp_path / "in.trace", tmp_path / "out.trace", tmp_path / "s.state"
    trace.write_text(TRACE)
    out.write_text("old\n")
    state.write_text("old\n")
    subprocess.run([femu_trace, "convert", trace, out, "--to", "femu"], check=True,
                   capture_output=True, timeout=60)
    assert out.read_text().startswith("V 2\n")
    run_ftl_sim(*SMALL, "--rw", "write", "--bs", "64k", "--io-size", "1m", "--state-out", state)
    assert state.read_bytes()[:4] != b"old\n"


def test_a_newline_in_the_input_name_stays_inside_the_comment(femu_trace, tmp_path):
    """convert --to femu names its input in a comment: a newline in the name must not
    add records (issue 39, fault 18)."""
    trace = tmp_path / "in\nW 0 999 8 1 0\n.trace"
    trace.write_text(TRACE)
    out = tmp_path / "out.trace"
    subprocess.run([femu_trace, "convert", trace, out, "--to", "femu"], check=True,
                   capture_output=True, timeout=60)
    lines = out.read_text().splitlines()
    assert lines[0] == "V 2" and lines[1].startswith("# converted by femu-trace from ")
    assert "?W 0 999 8 1 0?" in lines[1]
    assert [line.split()[0] for line in lines[2:]] == ["W", "R"]
