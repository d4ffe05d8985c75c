"""What a run folder says about itself: configuration, workload, fio results.

Sources, later ones overriding earlier ones for the same key:
``config.conf`` (or the single other ``*.conf``; ``key=value  # comment`` lines), ftl-sim's
``summary.json`` (its ``config`` object and its top-level fields), fio JSON job options, and
``params.json`` (written by experiment runners; the most specific). Only used for titles,
labels and sweep parameters, so everything here is optional.
"""
import dataclasses
import json
import pathlib

from .errors import AnalysisError
from .fio import fio_options, read_fio_json

# Files in a run folder that are JSON but never fio results.
NOT_FIO = {"summary.json", "params.json"}
# Keys that describe the workload rather than the device, in display order.
WORKLOAD_KEYS = ("rw", "dist", "random_distribution", "bs", "qd", "iodepth", "numjobs")


@dataclasses.dataclass
class Metadata:
    folder: pathlib.Path
    config: dict                 # device configuration (conf file + summary.json config)
    params: dict                 # params.json, as written
    sim_summary: dict            # ftl-sim's summary.json without its config
    fio: list                    # [(path, fio JSON document)]
    conf_name: str = None        # name of the configuration file, if known

    def get(self, key, default=None):
        """One setting, most specific source first: params, fio options, summary, config."""
        for source in (self.params, self.fio_options, self.sim_summary, self.config):
            if key in source:
                return source[key]
        return default

    @property
    def fio_options(self):
        return fio_options(self.fio[0][1]) if self.fio else {}

    @property
    def page_bytes(self):
        try:
            return int(self.config.get("secs_per_pg", 8)) * int(self.config.get("secsz", 512))
        except (TypeError, ValueError):
            return 4096

    def workload(self):
        """e.g. 'randwrite zipf:1.2 bs=4k', or None when nothing says."""
        if "workload" in self.params:
            return str(self.params["workload"])
        parts = []
        rw = self.get("rw") or self.get("readwrite")
        if rw:
            parts.append(str(rw))
        dist = self.get("dist") or self.get("random_distribution")
        if dist and str(dist) not in ("random", "uniform"):
            parts.append(str(dist))
        bs = self.get("bs")
        if bs:
            parts.append(f"bs={bs}")
        return " ".join(parts) or None

    def configuration(self):
        """e.g. 'lab-1g, hotcold threshold 6', or None when nothing says."""
        parts = []
        name = self.conf_name or self.get("config_name")
        if name:
            parts.append(str(name))
        elif "ssd_size" in self.config:
            parts.append(f"{self.config['ssd_size']} MiB")
        placement = self.get("placement")
        if placement == "hotcold":
            parts.append(f"hotcold threshold {self.get('hot_threshold', '?')}")
        elif placement:
            parts.append(str(placement))
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
        conf_name = conf_name or _conf_stem(summary_config.get("config"))
    params = _read_json(folder / "params.json")
    fio = []
    for path in sorted(folder.glob("*.json")):
        if path.name not in NOT_FIO:
            document = read_fio_json(path)
            if document is not None:
                fio.append((path, document))
    return Metadata(folder=folder, config=config, params=params, sim_summary=sim_summary,
                    fio=fio, conf_name=conf_name)


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
    if isinstance(value, str) and value:
        return pathlib.PurePath(value).stem
    return None


def _scalar(text):
    """'6' -> 6, '0.5' -> 0.5, anything else stays a string."""
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text
