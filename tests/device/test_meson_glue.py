"""hw/femu/meson.build is QEMU's view of femu. The rule it follows:

- the device's sources are every hw/femu/*.c, all listed there;
- a source in a subfolder is part of the device only when listed there; each listed
  file must exist. Helper folders with QEMU-free code (nvme/, util/, store/, ...) build
  standalone from their own meson.build and need not be listed until the device uses
  them;
- the FTL is listed file by file (QEMU's build must not include the standalone
  ftl/meson.build), and that list must equal ftl/meson.build's.
"""
import re

import pytest

from femu_device import REPO_ROOT

FEMU = REPO_ROOT / "hw" / "femu"


def _c_files(text: str):
    return set(re.findall(r"'([\w/]+\.c)'", text))


def _listed():
    return _c_files((FEMU / "meson.build").read_text())


def test_qemu_side_lists_every_ftl_source():
    ftl = _c_files((FEMU / "ftl" / "meson.build").read_text())
    listed = {name[len("ftl/"):] for name in _listed() if name.startswith("ftl/")}
    assert listed == ftl, (f"hw/femu/meson.build is missing {sorted(ftl - listed)} and has "
                           f"extra {sorted(listed - ftl)} compared with hw/femu/ftl/meson.build")


def test_qemu_side_lists_every_top_level_source():
    device = {p.name for p in FEMU.glob("*.c")}
    listed = {n for n in _listed() if "/" not in n}
    assert listed == device, f"hw/femu/meson.build lists {sorted(listed)}, hw/femu has {sorted(device)}"


def test_every_listed_source_exists():
    missing = sorted(name for name in _listed() if not (FEMU / name).is_file())
    assert not missing, f"hw/femu/meson.build lists files that do not exist: {missing}"


def test_the_rule_ignores_unlisted_helper_folders(tmp_path, monkeypatch):
    import test_meson_glue as glue
    femu = tmp_path / "femu"
    (femu / "ftl").mkdir(parents=True)
    (femu / "util").mkdir()
    (femu / "femu.c").write_text("")
    (femu / "ftl" / "ftl.c").write_text("")
    (femu / "util" / "ring.c").write_text("")   # a helper the device does not use yet
    (femu / "ftl" / "meson.build").write_text("ftl_sources = files(\n  'ftl.c',\n)\n")
    (femu / "meson.build").write_text("files(\n  'femu.c',\n  'ftl/ftl.c',\n)\n")
    monkeypatch.setattr(glue, "FEMU", femu)
    glue.test_qemu_side_lists_every_ftl_source()
    glue.test_qemu_side_lists_every_top_level_source()
    glue.test_every_listed_source_exists()
    (femu / "meson.build").write_text("files(\n  'femu.c',\n  'ftl/ftl.c',\n  'util/gone.c',\n)\n")
    with pytest.raises(AssertionError, match="util/gone.c"):
        glue.test_every_listed_source_exists()
