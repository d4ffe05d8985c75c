"""Slurm's Debian packages for the Slurm tests: scripts/install-deps.sh leaves the list
scripts/deps/slurm.apt out of its default install (only these tests need a cluster), so the
cluster fixture installs it when one of the programs is missing."""
import shutil
import subprocess
from pathlib import Path
from typing import Callable, List, Optional, Sequence

INSTALLER = Path(__file__).resolve().parents[2] / "scripts" / "install-deps.sh"
PROGRAMS = ("munged", "slurmctld", "slurmd", "sbatch", "squeue", "sinfo", "scancel",
            "scontrol")
INSTALL_TIMEOUT_S = 1800


def missing(programs: Sequence[str] = PROGRAMS,
            which: Callable[[str], Optional[str]] = shutil.which) -> List[str]:
    return [name for name in programs if which(name) is None]


def ensure_slurm(installer: Path = INSTALLER, programs: Sequence[str] = PROGRAMS,
                 which: Callable[[str], Optional[str]] = shutil.which) -> Optional[str]:
    """None once every program is there (installing scripts/deps/slurm.apt first if one is
    missing); else the one-line reason, with the installer's last lines below it."""
    if not missing(programs, which):
        return None
    proc = subprocess.run([str(installer), "--apt-only", "slurm"], capture_output=True,
                          text=True, stdin=subprocess.DEVNULL, timeout=INSTALL_TIMEOUT_S)
    still = missing(programs, which)
    if proc.returncode == 0 and not still:
        return None
    why = (f"{installer.name} --apt-only slurm failed (exit status {proc.returncode})"
           if proc.returncode else f"{', '.join(still)} still missing after "
           f"{installer.name} --apt-only slurm")
    return f"{why}: Slurm's packages are in scripts/deps/slurm.apt\n{proc.stderr.rstrip()}"
