"""The analysis package installs alone, as a student plotting copied CSVs on a laptop does:
`pip install ./analysis` into a fresh venv that holds no femu package, then femu-plot.

No download: the fresh venv sees this venv's third-party packages (pandas, matplotlib,
setuptools, wheel) through a folder of links that leaves out every femu package and the
.pth files that would import them, and pip runs with --no-index and
--no-build-isolation. What analysis/ needs of femu_common must come with it."""
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from femu_analysis import cli

pytestmark = pytest.mark.integration
FIXTURE_RUN = Path(__file__).parent / "fixtures" / "dftl" / "run"
COPIED = ("analysis", "scripts/common")   # what pip may read: analysis/ and what it names
SKIPPED = shutil.ignore_patterns("*.egg-info", "build", "__pycache__", "notebooks")


def _third_party(folder: Path) -> Path:
    """Links to this venv's site-packages entries, without the project's own."""
    folder.mkdir()
    for entry in Path(sysconfig.get_paths()["purelib"]).iterdir():
        if entry.name.startswith(("femu", "__editable__")) or entry.suffix == ".pth":
            continue
        (folder / entry.name).symlink_to(entry)
    return folder


def _fresh_venv(tmp_path: Path) -> Path:
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    site = Path(subprocess.run(
        [str(venv / "bin" / "python"), "-c", "import sysconfig; "
         "print(sysconfig.get_paths()['purelib'])"],
        check=True, capture_output=True, text=True).stdout.strip())
    (site / "third-party.pth").write_text(f"{_third_party(tmp_path / 'third-party')}\n")
    return venv


def _run(args, cwd: Path) -> subprocess.CompletedProcess:
    env = {key: value for key, value in os.environ.items()
           if key not in ("PYTHONPATH", "VIRTUAL_ENV", "FEMU_BUILD_DIR")}
    return subprocess.run([str(arg) for arg in args], cwd=cwd, env={**env,
                          "PYTHONNOUSERSITE": "1"}, capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=300)


def test_analysis_installs_in_a_fresh_venv_and_plots(repo_root, tmp_path, capsys):
    source = tmp_path / "repo"
    for part in COPIED:
        shutil.copytree(repo_root / part, source / part, ignore=SKIPPED)
    venv = _fresh_venv(tmp_path)
    python, plot = venv / "bin" / "python", venv / "bin" / "femu-plot"
    assert _run([python, "-c", "import femu_common"], tmp_path).returncode != 0, \
        "femu_common must not be reachable before the install"

    install = _run([sys.executable, "-m", "pip", "--python", python, "install", "--no-index",
                    "--no-build-isolation", "--disable-pip-version-check", "--quiet",
                    source / "analysis"], tmp_path)
    assert install.returncode == 0, install.stderr.strip().splitlines()[-3:]
    shutil.rmtree(source)   # the install stands on its own, not on the copied folders

    where = _run([python, "-c", "import femu_common, femu_analysis; "
                  "print(femu_common.__file__); print(femu_analysis.__file__)"], tmp_path)
    assert where.returncode == 0, where.stderr
    assert all(Path(line).is_relative_to(venv) for line in where.stdout.splitlines())

    helped = _run([plot, "--help"], tmp_path)
    assert helped.returncode == 0 and helped.stdout.startswith("usage: femu-plot")

    run = tmp_path / "run"
    shutil.copytree(FIXTURE_RUN, run)
    summary = _run([plot, "summary", run], tmp_path)
    assert summary.returncode == 0, summary.stderr
    capsys.readouterr()
    assert cli.main(["summary", str(run)]) == 0
    assert summary.stdout == capsys.readouterr().out, "the same table as this venv's"
