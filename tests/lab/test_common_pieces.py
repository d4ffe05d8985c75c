"""femu_common (scripts/common), what every Python package of the project shares: the
command runner's one-line errors, as_root, the argument parsers, the progress lines."""
import argparse
import io
import os
import shutil

import pytest

from femu_common import progress
from femu_common.cli_args import key_value, shown, size_bytes, whole, whole_number
from femu_common.command import CommandError, as_root, last_line, run


def test_a_failed_command_is_one_line_with_its_last_stderr_line():
    with pytest.raises(CommandError) as caught:
        run(["sh", "-c", "echo first >&2; echo last >&2; echo >&2; exit 3"], "the step")
    error = caught.value
    assert str(error) == "the step failed (exit status 3): last"
    assert (error.returncode, error.reason) == (3, "last")
    assert error.saying("the step", failed="failed in pass 2") == \
        "the step failed in pass 2 (exit status 3): last"


def test_silent_missing_and_slow_commands_are_one_line_too(tmp_path):
    with pytest.raises(CommandError, match=r"^quiet failed \(exit status 4\): no message$"):
        run(["sh", "-c", "exit 4"], "quiet")
    with pytest.raises(CommandError) as caught:
        run([tmp_path / "absent"])
    assert str(caught.value) == f"absent: cannot run {tmp_path / 'absent'}: " \
                                "No such file or directory"
    assert caught.value.returncode is None
    with pytest.raises(CommandError, match="still running after 0.2 s"):
        run(["sleep", "5"], "sleeper", timeout=0.2)
    assert run(["sh", "-c", "cat; exit 1"], input="back\n", check=False).stdout == "back\n"


def test_last_line_falls_back_to_the_next_text():
    assert last_line("", None, "out 1\nout 2\n\n") == "out 2"
    assert last_line("  err  \n\n", "out") == "err"
    assert last_line("", "") == ""


@pytest.mark.parametrize("root, sudo, expected", [(True, True, ["true"]),
                                                  (False, True, ["sudo", "true"])])
def test_as_root(monkeypatch, root, sudo, expected):
    monkeypatch.setattr(os, "geteuid", lambda: 0 if root else 1000)
    monkeypatch.setattr(shutil, "which", lambda name, *a, **kw: "/usr/bin/sudo" if sudo else None)
    assert as_root(["true"], "x") == expected


def test_as_root_without_sudo_says_what_to_do(monkeypatch):
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    monkeypatch.setattr(shutil, "which", lambda name, *a, **kw: None)
    with pytest.raises(CommandError) as caught:
        as_root(["apt-get", "update"], "apt-get update", hint=": run it as root")
    assert str(caught.value) == "apt-get update needs root, and sudo is not installed: " \
                                "run it as root"


def test_sizes():
    assert size_bytes("64M") == 64 << 20 and size_bytes("4KiB") == 4096
    assert size_bytes(" 16 kb ") == 16384 and size_bytes("512") == 512
    assert size_bytes("1.5k") == 1536.0
    assert size_bytes("1.5k", fractions=False) is None
    assert size_bytes("1.2.3") is None and size_bytes("lots") is None
    # ASCII digits only, and not so many that int() refuses them (a traceback before)
    assert size_bytes("\u0663M") is None and size_bytes("9" * 5000) is None


def test_whole_numbers_are_ascii_digits():
    assert whole("0042") == 42 and whole("9" * 30) == int("9" * 30)
    for bad in ("", "²", "\u0663", "-1", "+1", " 1", "1_0", "1.0", "9" * 31):
        assert whole(bad) is None, bad
    convert = whole_number(1, 10)
    assert convert("7") == 7 and convert(" 10") == 10
    for bad in ("\u0663", "1_0", "9" * 5000):
        with pytest.raises(argparse.ArgumentTypeError) as error:
            convert(bad)
        assert len(str(error.value)) < 100


def test_shown_is_one_short_line():
    assert shown("a\nb") == "a\\nb"
    assert shown("x" * 100) == "x" * 40 + "..."


def test_key_value():
    assert key_value(" hot_threshold = 6 ") == ("hot_threshold", "6")
    assert key_value("placement=") == ("placement", "")
    assert key_value("=6") is None and key_value("placement") is None


def test_progress_lines(capsys):
    assert [progress.duration(s) for s in (8.24, 42.4, 192)] == ["8.2 s", "42 s", "3 min 12 s"]
    progress.Progress("tag", clock=False)("hello")
    progress.Progress("tag")("timed")
    progress.Progress("tag", enabled=False)("never")
    lines = capsys.readouterr().err.splitlines()
    assert lines[0] == "[tag] hello"
    assert lines[1].startswith("[tag ") and lines[1].endswith("s] timed")
    assert len(lines) == 2


def test_counted_is_silent_off_a_terminal():
    stream = io.StringIO()
    items = progress.counted(range(3), "study", "run", stream)
    for item in items:
        items.note(f"item {item}")
    assert stream.getvalue() == ""


def test_live_line_prints_lines_off_a_terminal():
    stream = io.StringIO()
    line = progress.LiveLine(lambda elapsed: "alive", stream, interval=0.01, every=0)
    line.start()
    for _ in range(6000):   # bounded: only catches a thread that never prints
        if stream.getvalue():
            break
        line.join(0.01)
    line.stop()
    assert stream.getvalue().splitlines()[0] == "alive"
