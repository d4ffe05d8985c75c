"""The one way the lab runs ftl-sim (configuration checks, ageing, sweep points, the bench
row, the DFTL study, the FDP bench): the command line to the end with its output
captured, stdin closed, and a failure as femu_common's CommandError, whose one line is

    ftl-sim failed (exit status 2): ftl-sim: --set gc_threshold: ... (see ftl-sim --help)

the last line ftl-sim printed on stderr. Callers word it their own way with
error.saying(...) and take ftl-sim's own message without its decorations from
ftl_sim_reason()."""
import subprocess
from pathlib import Path
from typing import Optional, Sequence, Union

from femu_common.command import CommandError, run as run_command
from femu_common.errors import RunFailure

__all__ = ["CommandError", "SimError", "run_ftl_sim", "ftl_sim_reason"]
NAME = "ftl-sim"


class SimError(RunFailure):
    """ftl-sim failed or left output that cannot be read (the bench row, the DFTL study);
    one line."""


def run_ftl_sim(args: Sequence[Union[str, Path]], log: Optional[Path] = None,
        timeout: Optional[float] = None,
        cwd: Optional[Path] = None) -> subprocess.CompletedProcess:
    """ftl-sim (args[0] is the binary) with args, in cwd when given (its relative paths);
    its stdout and stderr also go to log when given, whether it succeeded or not.
    CommandError when it cannot start, runs past timeout or exits non-zero."""
    try:
        proc = run_command(args, NAME, timeout=timeout, cwd=cwd, stdin=subprocess.DEVNULL)
    except CommandError as error:
        if log is not None and error.proc is not None:
            log.write_text(error.proc.stdout + error.proc.stderr)
        raise
    if log is not None:
        log.write_text(proc.stdout + proc.stderr)
    return proc


def ftl_sim_reason(error: CommandError) -> str:
    """ftl-sim's message alone: without its 'ftl-sim: ' and 'error: ' prefixes and its
    ' (see ftl-sim --help)' pointer (a configuration the lab names in its own words);
    'ftl-sim exit status N' when it said nothing; why it did not run, when it did not."""
    if error.returncode is None:
        return f"{NAME}: {error.reason}"
    if not error.reason:
        return f"{NAME} exit status {error.returncode}"
    return (error.reason.removeprefix(f"{NAME}: ").removeprefix("error: ")
            .replace(f" (see {NAME} --help)", ""))
