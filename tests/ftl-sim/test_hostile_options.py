"""Hostile values for ftl-sim's time and output options (issue 39's table in
docs/reliability.md counts these): each is one line on stderr and exit 2, never a crash, a
hang, a wrapped clock or a file written."""
import pytest

SMALL = ["--config", "conf/lab-1g.conf", "--set", "luns_per_ch=2", "--set", "pgs_per_blk=64",
         "--set", "ssd_size=48", "--rw", "randwrite", "--bs", "4k"]

BAD_TIMES = ["", "-1", "+1", " 5", "5 ", "nan", "inf", "1e3", "0x10", "5xs", "5s5",
             "9007200", "104.3d", "2502h", "150120m", "9007199255ms", "1" * 5000,
             "\u0663", "\u00b2", "5\n", ".", "..5", "1..5", "5s\x1b[2J"]


@pytest.fixture(autouse=True)
def _in_repo(monkeypatch, repo_root):
    monkeypatch.chdir(repo_root)


def one_line_exit_2(proc):
    lines = proc.stderr.strip().splitlines()
    return proc.returncode == 2 and len(lines) == 1 and lines[0].startswith("ftl-sim: ")


@pytest.mark.parametrize("value", BAD_TIMES)
@pytest.mark.parametrize("option", ["--runtime", "--power-cut-at", "--idle"])
def test_bad_times_are_one_line(run_ftl_sim, tmp_path, option, value):
    arg = f"4k:{value}" if option == "--idle" else value
    if option == "--runtime":
        extra = []
    else:
        extra = ["--io-size", "1m"]
    stats = tmp_path / "st"
    proc = run_ftl_sim(*SMALL, *extra, option, arg, "--stats-dir", stats, check=False)
    assert one_line_exit_2(proc), proc.stderr
    assert not stats.exists()


@pytest.mark.parametrize("path", ["", "/", "/dev/null", "/proc/self/status",
                                  "/nonexistent/folder/x"])
@pytest.mark.parametrize("option", ["--state-out", "--lost-out"])
def test_bad_output_paths_are_one_line(run_ftl_sim, option, path):
    cut = ["--set", "write_buffer_sectors=64", "--power-cut-at", "1ms"] \
        if option == "--lost-out" else []
    proc = run_ftl_sim(*SMALL, "--io-size", "1m", *cut, option, path, check=False)
    if option == "--lost-out" and path == "/dev/null":
        assert proc.returncode == 0     # written through, as a shell redirection would
        return
    assert one_line_exit_2(proc) or proc.returncode == 1 and \
        len(proc.stderr.strip().splitlines()) == 1, proc.stderr


def test_a_newline_in_a_trace_name_keeps_the_error_on_one_line(run_ftl_sim, femu_trace,
                                                                tmp_path):
    import subprocess
    trace = tmp_path / "a\nb.trace"
    trace.write_text("V 2\nQ 1\n")
    for proc in (run_ftl_sim("--trace", trace, check=False),
                 subprocess.run([femu_trace, "info", trace], capture_output=True, text=True,
                                timeout=60)):
        lines = proc.stderr.strip().splitlines()
        assert proc.returncode == 2 and len(lines) == 1 and "a?b.trace:2: unknown op" in lines[0]
