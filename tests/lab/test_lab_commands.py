"""femu-lab's command registry and its one exception base: every registered command
answers --help, `femu-lab --help` imports no command, every femu_lab error class derives
from FemuError, and main exits with the error's exit status after one line."""
import importlib
import inspect
import pkgutil
import subprocess
import sys

import pytest

import femu_lab
from femu_common.cli_args import UsageError
from femu_common.errors import FemuError, InputError, RunFailure
from femu_lab import cli as lab_cli, commands
from femu_lab.commands import workloads as workloads_command

# The exit statuses femu-lab's main gave these classes before the base carried them (its
# two tuples); they must not change.
EXIT_STATUS_BEFORE = {
    2: ("UsageError", "PlanError", "ConfigError", "WorkloadError", "CheckError",
        "FolderError", "AgedError", "AccelError"),
    1: ("SetupError", "LabRunError", "SimError", "AgeFailed", "SubmitError", "QueueError",
        "TraceToolError", "TraceWriteError"),
}


def _error_classes():
    """Every public exception class defined in a femu_lab module (its __main__ aside,
    which would run the command line)."""
    found = {}
    for info in pkgutil.walk_packages(femu_lab.__path__, "femu_lab."):
        if info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            if (inspect.isclass(value) and issubclass(value, BaseException)
                    and value.__module__ == module.__name__ and not name.startswith("_")):
                found[f"{module.__name__}.{name}"] = value
    return found


@pytest.mark.parametrize("name", [command.name for command in commands.COMMANDS])
def test_every_registered_command_answers_help(name, capsys):
    with pytest.raises(SystemExit) as stopped:
        lab_cli.main([name, "--help"])
    assert stopped.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: femu-lab {name} ")
    module = commands.BY_NAME[name].load()
    assert callable(module.add_arguments) and callable(module.run)


def test_the_top_help_lists_every_command_and_imports_none():
    probe = ("import sys\nfrom femu_lab import cli, commands\n"
             "try:\n    cli.main(['--help'])\nexcept SystemExit:\n    pass\n"
             "print([c.module for c in commands.COMMANDS if c.module in sys.modules])\n")
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          check=True)
    *help_lines, imported = proc.stdout.splitlines()
    assert imported == "[]"
    listed = {line.split()[0] for line in help_lines if line.startswith("    ")}
    assert {command.name for command in commands.COMMANDS} <= listed


def test_every_femu_lab_error_derives_from_the_base():
    classes = _error_classes()
    assert len(classes) > 30
    outside = sorted(name for name, cls in classes.items() if not issubclass(cls, FemuError))
    assert outside == []
    for name, cls in classes.items():
        assert cls.exit_status in (1, 2), name
        # the built-in bases the tools catch them by stay
        if issubclass(cls, InputError):
            assert issubclass(cls, ValueError) and cls.exit_status == 2, name
        if issubclass(cls, RunFailure):
            assert issubclass(cls, RuntimeError), name


def test_exit_statuses_are_those_main_gave_before():
    by_name = {name.rsplit(".", 1)[1]: cls for name, cls in _error_classes().items()}
    by_name["UsageError"] = UsageError
    for status, names in EXIT_STATUS_BEFORE.items():
        for name in names:
            assert by_name[name].exit_status == status, name


@pytest.mark.parametrize("status, names", sorted(EXIT_STATUS_BEFORE.items()))
def test_main_prints_one_line_and_exits_with_the_errors_status(status, names, monkeypatch,
                                                              capsys):
    by_name = {name.rsplit(".", 1)[1]: cls for name, cls in _error_classes().items()}
    by_name["UsageError"] = UsageError
    for name in names:
        def fail(args, error=by_name[name]):
            raise error(f"a {name}")
        monkeypatch.setattr(workloads_command, "run", fail)
        assert lab_cli.main(["workloads"]) == status
        assert capsys.readouterr().err == f"femu-lab: error: a {name}\n"
