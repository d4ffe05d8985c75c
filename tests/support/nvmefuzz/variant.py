"""What a device property string turns on in the fuzzer, so that a replay file (whose
header keeps the properties) runs with the same features as the seed that made it.

- `zoned=on`: the zoned namespace (CONTROLLER.md, "Zoned namespace"): it takes the NSID
  after the conventional ones, the controller is enabled with CC.CSS = 110b so it is
  active, and zone commands, Copy into zones and the zone check (`zcheck`) are generated.
- `state_out=@`: a state file in the seed's temporary folder (target.py puts the path in
  place of '@'), QEMU gets a QMP monitor and the device an id: vendor C2h and QMP
  `save-state` (`qsave`) are generated.
- `placement=fdp`: Flexible Data Placement (CONTROLLER.md, "Flexible Data Placement"):
  the FDP logs, features 1Dh/1Eh, I/O Management, writes with DTYPE and DSPEC, creates
  with placement handle lists, the FDP check (`fdpcheck`) and the configuration change
  with every namespace deleted and made again (`fdpcfg`) are generated.
- `kv_ns_mb` > 0: the Key Value namespace (CONTROLLER.md, "Key Value command set"): the
  NSID after the conventional ones (before the zoned one), active with CC.CSS = 110b;
  Store, Retrieve, Delete, Exist and List are generated (kv_commands.py), creates with
  CSI 01h are allowed, and the namespace itself is never deleted, detached or formatted.
- `write_buffer_sectors` > 0 (and plp off): a volatile write cache, so a power cut can
  lose acknowledged writes; QEMU gets a QMP monitor and the device an id, and power cuts
  mid-flight (`pcut`, QMP `power-cut now`) are generated.
"""
from dataclasses import dataclass
from typing import Dict, Optional

import nvme_qtest

STATE_MARK = "@"            # state_out=@: the target's own folder
DEVICE_ID = "femu0"
QOM_PATH = f"/machine/peripheral/{DEVICE_ID}"


def props_dict(props: str) -> Dict[str, str]:
    """Key -> value of SMALL_GEOMETRY then props (a later key wins, as in QEMU)."""
    out = {}
    for part in f"{nvme_qtest.SMALL_GEOMETRY},{props}".split(","):
        if "=" in part:
            key, value = part.split("=", 1)
            out[key] = value
    return out


@dataclass(frozen=True)
class Zoned:
    nsid: int
    zones: int
    zone_lbas: int          # ZSZE = ZCAP, in 512-byte LBAs
    max_open: int           # 0: no limit
    max_active: int

    @property
    def nsze(self) -> int:
        return self.zones * self.zone_lbas


@dataclass(frozen=True)
class Kv:
    nsid: int
    mib: int                # kv_ns_mb: its capacity in value bytes


@dataclass(frozen=True)
class Fdp:
    ruhs: int               # reclaim unit handles (NRUH), placement handles at realize
    persistent: bool        # fdp_ruh_type: RUHT 2 (persistently isolated), else 1
    time_limit_s: int       # fdp_ru_time_limit_s (ERUTL; 0: none)
    ru_pages: int           # pages of a reclaim unit (a line, or a block with gc_unit=block)
    page_bytes: int
    write_buffer: bool      # write_buffer_sectors > 0: FDPA.FDPVWC, HBMW may lead MBMW
    gc_counted: bool = True     # GC's moved pages are in MBMW when placed (gc_mode=line);
                                # paced GC counts them when it charges their flash time

    @property
    def ru_bytes(self) -> int:
        return self.ru_pages * self.page_bytes

    @property
    def dsze(self) -> int:
        """Log 20h's configuration descriptor with its RUH descriptors, 8-byte padded."""
        return (64 + 4 * self.ruhs + 7) // 8 * 8

    def log_bytes(self, lid: int) -> int:
        """The size of FDP log page lid (20h-23h)."""
        return {0x20: 16 + self.dsze, 0x21: 8 + 8 * self.ruhs, 0x22: 64, 0x23: 4096}[lid]


@dataclass(frozen=True)
class Variant:
    zoned: Optional[Zoned] = None
    save: bool = False      # a state_out, a QMP monitor
    fdp: Optional[Fdp] = None
    # write_buffer_sectors > 0: a volatile write cache (Identify VWC bit 0), so Get and
    # Set Features of Volatile Write Cache (06h) succeed; without one they are Invalid Field
    write_cache: bool = False
    # a write buffer that a power cut can lose (plp off): QMP power cuts (`pcut`)
    power_cut: bool = False
    kv: Optional[Kv] = None

    @property
    def css(self) -> int:
        return 6 if self.zoned or self.kv else 0

    @property
    def qmp(self) -> bool:
        """QEMU gets a QMP monitor and the device the id DEVICE_ID."""
        return self.save or self.power_cut


def parse(props: str) -> Variant:
    d = props_dict(props)
    zoned = None
    conventional = len([x for x in d.get("namespaces", "1").split(":") if x])
    if "namespaces" in d and ":" not in d["namespaces"] and d["namespaces"].isdigit() \
            and int(d["namespaces"]) < 16:
        conventional = int(d["namespaces"])       # namespaces=N: N equal ones
    kv = Kv(conventional + 1, int(d["kv_ns_mb"])) if int(d.get("kv_ns_mb", 0)) else None
    if d.get("zoned") == "on":
        luns = int(d["nchs"]) * int(d["luns_per_ch"])
        zone = int(d.get("zone_luns", luns)) * int(d["pgs_per_blk"]) * int(d["secs_per_pg"])
        zoned = Zoned(conventional + 1 + (kv is not None), int(d.get("zones", 16)), zone,
                      int(d.get("max_open", 0)), int(d.get("max_active", 0)))
    fdp = None
    if d.get("placement") == "fdp":
        luns = int(d["nchs"]) * int(d["luns_per_ch"])
        pages = int(d["pgs_per_blk"]) * (1 if d.get("gc_unit") == "block" else luns)
        fdp = Fdp(int(d.get("fdp_ruhs", 8)), d.get("fdp_ruh_type", "persistent") != "initial",
                  int(d.get("fdp_ru_time_limit_s", 0)), pages,
                  int(d["secsz"]) * int(d["secs_per_pg"]),
                  int(d.get("write_buffer_sectors", 0)) > 0,
                  d.get("gc_mode", "paced") == "line")
    buffer = int(d.get("write_buffer_sectors", 0)) > 0
    return Variant(zoned, d.get("state_out") == STATE_MARK, fdp, buffer,
                   buffer and d.get("plp", "off") not in ("on", "true", "yes"), kv)
