"""What `femu-lab sweep --executor slurm` checks before it submits anything: the Slurm
commands are on PATH, the partition exists, the resource flags are in Slurm's spelling,
and the results folder is where the nodes can see it (a cluster file system, or a
partition whose every node is this host). Each failure is a CheckError: one line, exit 2.
"""
import argparse
import re
import shutil
import socket
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, List, Optional, Sequence

from femu_common import command

from .. import paths
from ..sweep.checks import CheckError

COMMANDS = ("sbatch", "squeue", "sinfo", "scancel")
# File systems every node of a cluster mounts alike (stat -f -c %T spells them so).
SHARED_FILE_SYSTEMS = frozenset((
    "nfs", "nfs4", "lustre", "gpfs", "beegfs", "cephfs", "ceph", "glusterfs", "fuse.glusterfs",
    "fuse.beegfs", "fuse.cephfs", "panfs", "smb2", "cifs", "afs", "ocfs2", "gfs2", "wekafs",
    "fuse.sshfs", "9p"))
LOCAL_ADDRESSES = frozenset(("localhost", "127.0.0.1", "::1"))
SLURM_QUERY_TIMEOUT_S = 30

# sbatch --time: M, M:S, H:M:S, D-H, D-H:M, D-H:M:S, or no limit.
_TIME = re.compile(r"^(\d+|\d+:\d+|\d+:\d+:\d+|\d+-\d+|\d+-\d+:\d+|\d+-\d+:\d+:\d+)$")
_MEM = re.compile(r"^[1-9]\d*[KMGT]?$", re.IGNORECASE)


@dataclass
class SlurmOptions:
    partition: Optional[str] = None
    time: Optional[str] = None
    cpus_per_task: Optional[int] = None
    mem: Optional[str] = None
    assume_shared: bool = False
    wait: bool = True

    def sbatch_flags(self) -> List[str]:
        flags = []
        for flag, value in (("--partition", self.partition), ("--time", self.time),
                            ("--cpus-per-task", self.cpus_per_task), ("--mem", self.mem)):
            if value is not None:
                flags.append(f"{flag}={value}")
        return flags


def time_limit(text: str) -> str:
    """An argparse type for --time, in sbatch's formats."""
    if text.upper() in ("INFINITE", "UNLIMITED") or _TIME.match(text):
        return text
    raise argparse.ArgumentTypeError(
        f"'{text}' is not a Slurm time (MINUTES, HH:MM:SS, D-HH:MM:SS, ...)")


def memory(text: str) -> str:
    """An argparse type for --mem, in sbatch's spelling: a whole number, K/M/G/T."""
    if _MEM.match(text):
        return text
    raise argparse.ArgumentTypeError(f"'{text}' is not a Slurm memory size (e.g. 4G, 2048M)")


def check_commands() -> None:
    missing = [name for name in COMMANDS if shutil.which(name) is None]
    if missing:
        raise CheckError(f"--executor slurm: {', '.join(missing)} not on PATH: run the "
                         "sweep on the cluster's submit host, where Slurm's commands are "
                         "(Debian package slurm-client), or use --executor local")


def query(args: Sequence[str]) -> str:
    """A Slurm command's output; its failure as one CheckError line."""
    try:
        return command.run(args, " ".join(args), timeout=SLURM_QUERY_TIMEOUT_S).stdout
    except command.CommandError as error:
        raise CheckError(str(error)) from None


def partition_nodes(partition: Optional[str]) -> tuple:
    """(the partition's name, its nodes as [(name, hostname, address)]): the named one,
    or the cluster's default when none is named."""
    listed = [line.strip() for line in query(["sinfo", "-h", "-o", "%P"]).splitlines()
              if line.strip()]
    names = [name.rstrip("*") for name in listed]
    if partition is None:
        defaults = [name.rstrip("*") for name in listed if name.endswith("*")]
        if not defaults:
            raise CheckError("--executor slurm: the cluster has no default partition; name one "
                             f"with --partition ({_known(names)})")
        partition = defaults[0]
    elif partition not in names:
        raise CheckError(f"--partition {partition}: no such partition ({_known(names)})")
    rows = query(["sinfo", "-h", "-N", "-p", partition, "-o", "%N|%n|%o"]).splitlines()
    nodes = sorted({tuple(row.strip().split("|")) for row in rows if row.strip()})
    return partition, nodes


def this_host_names() -> set:
    names = set(LOCAL_ADDRESSES)
    for name in (socket.gethostname(), socket.getfqdn()):
        names.add(name)
        names.add(name.split(".")[0])
    return names


def file_system_type(folder: Path) -> str:
    """stat -f's name of the file system holding folder (or its nearest existing parent)."""
    existing = folder
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    proc = subprocess.run(["stat", "-f", "-c", "%T", str(existing)], capture_output=True,
                          text=True)
    return proc.stdout.strip() if proc.returncode == 0 else "unknown"


def check_shared(folder: Path, fs_type: str, partition: str, nodes: Iterable[tuple],
                 host_names: set, assume_shared: bool,
                 fix: str = "put --out on shared storage (nfs, lustre, ...)") -> None:
    """The nodes must see folder: it is on a cluster file system, or every node of the
    partition is this host. fix: what the user should do instead."""
    if assume_shared or fs_type.lower() in SHARED_FILE_SYSTEMS:
        return
    nodes = list(nodes)
    elsewhere = [node[0] for node in nodes if not host_names & set(node)]
    if nodes and not elsewhere:
        return
    shown = ", ".join(elsewhere[:3]) + (", ..." if len(elsewhere) > 3 else "")
    raise CheckError(f"{folder} is on {fs_type}, which the nodes of partition {partition} "
                     f"({shown or 'none'}) do not see: {fix} or pass --assume-shared")


def check(folder: Path, options: SlurmOptions, aged: Optional[Path] = None) -> str:
    """Every check in order; the partition the job goes to. Besides the results folder,
    the nodes must see the checkout (its venv, ftl-sim, QEMU and guest image run there)
    and the aged state file, if any."""
    check_commands()
    partition, nodes = partition_nodes(options.partition)
    shared = [(folder, "put --out on shared storage (nfs, lustre, ...)"),
              (paths.REPO_ROOT, "clone femu on shared storage and run it from there")]
    if aged is not None:
        shared.append((aged, "put the --aged state file on shared storage"))
    hosts = this_host_names()
    for path, fix in shared:
        check_shared(path, file_system_type(path), partition, nodes, hosts,
                     options.assume_shared, fix)
    return partition


def _known(names: List[str]) -> str:
    return "partitions: " + ", ".join(names) if names else "the cluster has no partitions"
