"""run-blackbox's setup steps: a step whose output goes to a log shows the terminal two
lines (the step and its time), and a failed one the end of its output and one line naming
the log."""
import sys

import pytest

from femu_lab import setup_steps

pytestmark = pytest.mark.unit
NOISY = [sys.executable, "-c", "for i in range(100): print('compiling', i)"]
FAILING = [sys.executable, "-c",
           "import sys\nfor i in range(100): print('line', i)\nsys.exit(3)"]


@pytest.fixture(autouse=True)
def as_run_blackbox(monkeypatch):
    """These lines carry the running command's name; here run-blackbox's."""
    monkeypatch.setattr(setup_steps, "_program", "run-blackbox")


def test_a_logged_step_shows_its_line_and_its_time(tmp_path, capsys):
    log = tmp_path / "logs" / "step.log"
    setup_steps._run_step("building the thing", "seconds", NOISY, log=log)
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 2
    assert err[0] == "run-blackbox: building the thing (seconds)"
    assert err[1].startswith("run-blackbox: building the thing: done in ")
    assert log.read_text().splitlines() == [f"compiling {i}" for i in range(100)]


def test_a_failed_logged_step_shows_the_end_and_names_the_log(tmp_path, capsys):
    log = tmp_path / "step.log"
    with pytest.raises(setup_steps.SetupError) as error:
        setup_steps._run_step("building the thing", "seconds", FAILING, log=log)
    err = capsys.readouterr().err.splitlines()
    assert err[0] == "run-blackbox: building the thing (seconds)"
    assert err[1:] == [f"  | line {i}" for i in range(100 - setup_steps.FAILED_TAIL_LINES, 100)]
    assert str(error.value) == (f"building the thing failed (exit status 3); its whole "
                                f"output is in {log}")
    assert len(log.read_text().splitlines()) == 100


def test_a_quiet_logged_step_that_is_up_to_date_says_nothing(tmp_path, capsys):
    setup_steps._run_step("checking", "seconds", NOISY, quiet=True, log=tmp_path / "q.log")
    assert capsys.readouterr().err == ""
