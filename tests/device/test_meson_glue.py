"""hw/femu/meson.build lists the FTL's sources itself (QEMU's build must not include the
standalone ftl/meson.build); this keeps the two lists from drifting apart."""
import re

from femu_device import REPO_ROOT

FEMU = REPO_ROOT / "hw" / "femu"


def _c_files(text: str):
    return set(re.findall(r"'([\w/]+\.c)'", text))


def test_qemu_side_lists_every_ftl_source():
    ftl = _c_files((FEMU / "ftl" / "meson.build").read_text())
    listed = {name[len("ftl/"):] for name in _c_files((FEMU / "meson.build").read_text())
              if name.startswith("ftl/")}
    assert listed == ftl, (f"hw/femu/meson.build is missing {sorted(ftl - listed)} and has "
                           f"extra {sorted(listed - ftl)} compared with hw/femu/ftl/meson.build")


def test_qemu_side_lists_every_device_source():
    device = {p.name for p in FEMU.glob("*.c")}
    listed = {n for n in _c_files((FEMU / "meson.build").read_text()) if "/" not in n}
    assert listed == device, f"hw/femu/meson.build lists {sorted(listed)}, hw/femu has {sorted(device)}"
