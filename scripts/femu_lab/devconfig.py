"""The device configuration a run uses: a conf file plus --set overrides, checked and
flattened into one complete config file by `ftl-sim --print-config` (the same C parser
and validation the device runs), so a results folder records exactly what ran and a bad
key fails in one line before any VM boots.
"""
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Mapping, Optional, Sequence, Tuple

from femu_common.cli_args import key_value
from femu_common.errors import InputError
from femu_guest import paths as guest_paths

from . import paths
from .ftl_sim import CommandError, ftl_sim_reason, run_ftl_sim

DEFAULT_CONFIG = paths.REPO_ROOT / "conf" / "lab-1g.conf"


class ConfigError(InputError):
    """A bad config file or override; the message is one line naming the key."""


@dataclass
class DeviceConfig:
    source: Optional[Path]          # the conf file it started from (None: FEMU defaults)
    overrides: Dict[str, str]       # --set key=value, in order
    text: str                       # the complete effective config file
    values: Dict[str, str]          # key -> value (canonical names)
    logical_bytes: int              # capacity the host sees

    @property
    def name(self) -> str:
        return self.source.stem if self.source else "femu-defaults"

    def write(self, path: Path) -> Path:
        header = f"# effective configuration: {self.source or 'FEMU defaults'}"
        if self.overrides:
            header += " with " + " ".join(f"{k}={v}" for k, v in self.overrides.items())
        path.write_text(header + "\n" + self.text)
        return path


def c_build_dir() -> Path:
    """The meson build folder of the QEMU-free C parts (FEMU_BUILD_DIR overrides
    build/release; femu_guest.paths says so, for the guest's tools too)."""
    return guest_paths.c_build_dir()


def c_tool_path(name: str) -> Path:
    """A tool of tools/NAME as meson builds it in c_build_dir() (ftl-sim, femu-trace)."""
    return c_build_dir() / "tools" / name / name


def ftl_sim_path() -> Path:
    """The built ftl-sim in c_build_dir()."""
    return c_tool_path("ftl-sim")


def parse_overrides(items: Sequence[str]) -> Dict[str, str]:
    """['hot_threshold=6', ...] -> {'hot_threshold': '6'}; one-line ConfigError otherwise."""
    overrides: Dict[str, str] = {}
    for item in items:
        pair = key_value(item)
        if pair is None or not pair[1]:
            raise ConfigError(f"--set: expected key=value, got '{item}'")
        overrides[pair[0]] = pair[1]
    return overrides


def load(config: Optional[Path], overrides: Mapping[str, str],
         ftl_sim: Optional[Path] = None) -> DeviceConfig:
    tool = Path(ftl_sim) if ftl_sim else ftl_sim_path()
    if not tool.exists():
        raise ConfigError(f"{tool} is missing: build it with "
                          "'meson setup build/release && meson compile -C build/release'")
    if config is not None and not Path(config).is_file():
        raise ConfigError(f"config file {config} does not exist")
    args: List[str] = [str(tool), "--print-config"]
    if config is not None:
        args += ["--config", str(config)]
    for key, value in overrides.items():
        args += ["--set", f"{key}={value}"]
    try:
        proc = run_ftl_sim(args)
    except CommandError as error:
        raise ConfigError(ftl_sim_reason(error)) from None
    values, logical_bytes = _parse(proc.stdout)
    return DeviceConfig(source=Path(config) if config else None, overrides=dict(overrides),
                        text=proc.stdout, values=values, logical_bytes=logical_bytes)


def _parse(text: str) -> Tuple[Dict[str, str], int]:
    values: Dict[str, str] = {}
    logical_bytes = 0
    for line in text.splitlines():
        if line.startswith("# logical capacity:"):
            logical_bytes = int(line.split(":", 1)[1].split()[0])
            continue
        body = line.split("#", 1)[0].strip()
        if body:
            key, _, value = body.partition("=")
            values[key.strip()] = value.strip()
    return values, logical_bytes
