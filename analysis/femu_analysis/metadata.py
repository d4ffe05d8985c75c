"""What a run folder says about itself: configuration, workload, fio results.

Sources, later ones overriding earlier ones for the same key:
``config.conf`` (or the single other ``*.conf``; ``key=value  # comment`` lines), ftl-sim's
``summary.json`` (its ``config`` object, ``config_file``, ``geometry``, ``workload`` object
and top-level fields), fio JSON job options, and ``params.json`` (written by experiment
runners; the most specific). Only used for titles, labels and sweep parameters, so
everything here is optional.
"""
import dataclasses
import json
import pathlib

from .errors import AnalysisError
from .fio import fio_options, read_fio_json

# Files in a run folder that are JSON but never fio results.
NOT_FIO = {"summary.json", "params.json"}


@dataclasses.dataclass
class Metadata:
    folder: pathlib.Path
    config: dict                 # device configuration (conf file + summary.json config)
    params: dict                 # params.json, as written
    sim_summary: dict            # ftl-sim's summary.json without its config
    fio: list                    # [(path, fio JSON document)]
    conf_name: str = None        # name of the configuration file, if known
    sim_workload: dict = dataclasses.field(default_factory=dict)  # summary.json "workload"

    def get(self, key, default=None):
        """One setting, most specific source first: params, fio options, ftl-sim's workload
        and summary, config."""
        for source in (self.params, self.fio_options, self.sim_workload, self.sim_summary,
                       self.config):
            if key in source:
                return source[key]
        return default

    @property
    def fio_options(self):
        return fio_options(self.fio[0][1]) if self.fio else {}

    @property
    def page_bytes(self):
        geometry = self.sim_summary.get("geometry")
        if isinstance(geometry, dict) and geometry.get("page_bytes"):
            return int(geometry["page_bytes"])
        try:
            return int(self.config.get("secs_per_pg", 8)) * int(self.config.get("secsz", 512))
        except (TypeError, ValueError):
            return 4096

    @property
    def lun_count(self):
        """LUNs of the flash (nchs x luns_per_ch of the configuration), or None."""
        try:
            luns = int(self.config["nchs"]) * int(self.config["luns_per_ch"])
        except (KeyError, TypeError, ValueError):
            return None
        return luns if luns > 0 else None

    def workload(self):
        """e.g. 'randwrite zipf:1.2 bs=4k', or None when nothing says."""
        if "workload" in self.params:
            return str(self.params["workload"])
        trace = self.sim_workload.get("trace")
        if trace:   # a replay: the trace sets sizes and kinds (ftl-sim's --bs is not used)
            return f"trace {pathlib.PurePath(str(trace)).name}"
        parts = []
        rw = self.get("rw") or self.get("readwrite")
        if rw:
            parts.append(str(rw))
            mix = self.get("rwmixread")
            if str(rw) in ("randrw", "rw", "readwrite") and mix is not None:
                parts.append(f"{mix}% read")
        dist = self.get("dist") or self.get("random_distribution")
        if dist and str(dist) not in ("random", "uniform"):
            parts.append(str(dist))
        bs = self.get("bs")
        if bs:
            parts.append(f"bs={_size_text(bs)}")
        return " ".join(parts) or None

    def drive(self):
        """The configuration file's name ('lab-1g'), else the size ('1024 MiB'), or None."""
        name = self.conf_name or self.get("config_name")
        if name:
            return str(name)
        # conf files say ssd_size, ftl-sim's effective config devsz_mb
        size = self.config.get("ssd_size", self.config.get("devsz_mb"))
        return None if size is None else f"{size} MiB"

    def engine(self):
        """'ftl-sim', 'VM (TCG)' / 'VM (KVM)' (params.json's accel), or None."""
        if self.sim_summary.get("tool") == "ftl-sim":
            return "ftl-sim"
        accel = self.params.get("accel")
        return f"VM ({str(accel).upper()})" if accel else None

    def configuration(self):
        """e.g. 'lab-1g, hotcold threshold 6', or None when nothing says."""
        parts = [self.drive()] if self.drive() else []
        placement = self.get("placement")
        if placement == "hotcold":
            parts.append(f"hotcold threshold {self.get('hot_threshold', '?')}")
        elif placement == "single":
            parts.append("single stream")
        elif placement:
            parts.append(str(placement))
        if self.get("mapping") == "dftl":
            parts.append(f"DFTL cmt {self.get('cmt_entries', '?')}")
        if str(self.get("zoned", "")).lower() in ("1", "on"):
            parts.append(f"zoned, {self.get('zones', '?')} zones")
        buffer = self.get("write_buffer_sectors")
        if buffer not in (None, 0, "0"):
            parts.append(f"buffer {buffer} sectors")
        return ", ".join(parts) or None

    def title(self):
        """Plot title naming workload and configuration; the folder name when unknown."""
        parts = [part for part in (self.workload(), self.configuration()) if part]
        return " — ".join(parts) if parts else self.folder.name


def load_metadata(folder):
    folder = pathlib.Path(folder)
    config, conf_name = _read_conf(folder)
    sim_summary = _read_json(folder / "summary.json")
    summary_config = sim_summary.pop("config", None)
    if isinstance(summary_config, dict):
        config.update(summary_config)
    conf_name = conf_name or _conf_stem(sim_summary.get("config_file"))
    sim_workload = sim_summary.pop("workload", None)
    params = _read_json(folder / "params.json")
    fio = []
    for path in sorted(folder.glob("*.json")):
        if path.name not in NOT_FIO:
            document = read_fio_json(path)
            if document is not None:
                fio.append((path, document))
    return Metadata(folder=folder, config=config, params=params, sim_summary=sim_summary,
                    fio=fio, conf_name=conf_name,
                    sim_workload=sim_workload if isinstance(sim_workload, dict) else {})


def _read_conf(folder):
    candidates = [folder / "config.conf"] if (folder / "config.conf").exists() else []
    if not candidates:
        candidates = sorted(folder.glob("*.conf"))[:2]
        if len(candidates) != 1:
            return {}, None  # none, or ambiguous: guess nothing
    path = candidates[0]
    config = {}
    for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        key, sep, value = line.partition("=")
        if not sep or not key.strip():
            raise AnalysisError(f"{path}: line {number}: expected key=value")
        config[key.strip()] = _scalar(value.strip())
    name = None if path.name == "config.conf" else path.stem
    return config, name


def _read_json(path):
    if not path.exists():
        return {}
    try:
        value = json.loads(path.read_text(errors="replace"))
    except json.JSONDecodeError as error:
        raise AnalysisError(f"{path}: line {error.lineno}: malformed JSON: {error.msg}") from None
    if not isinstance(value, dict):
        raise AnalysisError(f"{path}: line 1: expected a JSON object")
    return value


def _conf_stem(value):
    """'conf/lab-1g.conf' -> 'lab-1g'; None for a run folder's own config.conf, which
    names no configuration (as _read_conf treats it)."""
    if isinstance(value, str) and value:
        path = pathlib.PurePath(value)
        return None if path.name == "config.conf" else path.stem
    return None


def _size_text(value):
    """4096 -> '4k', 16384 -> '16k'; strings (fio's '16k') stay as written."""
    if isinstance(value, int) and value >= 1024 and value % 1024 == 0:
        for suffix, scale in (("g", 2**30), ("m", 2**20), ("k", 2**10)):
            if value % scale == 0:
                return f"{value // scale}{suffix}"
    return str(value)


def _scalar(text):
    """'6' -> 6, '0.5' -> 0.5, anything else stays a string."""
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text
