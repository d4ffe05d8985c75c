"""One ftl-sim run into a run folder, as the labs that run ftl-sim many times make it
(the mapping lab, the DFTL study, the energy labs): the folder made anew, then what
femu-plot and a reader need beside ftl-sim's own output (its --stats-dir and --summary
point into the folder): config.conf (the effective configuration), params.json (what the
lab set), sim-cmdline.txt (the exact command line) and ftl-sim.log (its output)."""
import json
import shlex
import shutil
import time
from pathlib import Path
from typing import List, Mapping

from .devconfig import DeviceConfig
from .ftl_sim import CommandError, SimError, run_ftl_sim


def run_into(args: List[str], folder: Path, config: DeviceConfig,
             params: Mapping[str, object], failed: str) -> float:
    """ftl-sim with args into folder (replaced if there); its wall seconds. SimError, one
    line: why it did not start, or 'ftl-sim <failed> (...); see <folder>/ftl-sim.log'."""
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    config.write(folder / "config.conf")
    (folder / "params.json").write_text(json.dumps(dict(params), indent=2) + "\n")
    (folder / "sim-cmdline.txt").write_text(shlex.join(str(word) for word in args) + "\n")
    log = folder / "ftl-sim.log"
    began = time.monotonic()
    try:
        run_ftl_sim(args, log=log)
    except CommandError as error:
        if error.returncode is None:
            raise SimError(str(error)) from None
        raise SimError(f"{error.saying('ftl-sim', failed=failed)}; see {log}") from None
    return time.monotonic() - began
