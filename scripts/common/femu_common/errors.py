"""The one exception base of femu's tools: a command line catches FemuError, prints its
message as one line and exits with its exit_status.

    exit_status 2   bad input: an argument, a configuration, a workload, a folder that
                    is not the tool's (nothing ran, or nothing worth keeping)
    exit_status 1   a failure while it ran: a build, a VM, ftl-sim, Slurm

InputError and RunFailure keep the built-in bases the tools catch them by (ValueError,
RuntimeError); a class with another status says so with its own exit_status.
"""


class FemuError(Exception):
    """An error whose message is one line the user can act on."""
    exit_status = 1


class InputError(FemuError, ValueError):
    """Bad input: exit status 2."""
    exit_status = 2


class RunFailure(FemuError, RuntimeError):
    """A failure of something that ran: exit status 1."""
    exit_status = 1
