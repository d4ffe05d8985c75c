"""hw/femu/meson.build is QEMU's view of femu. The rule it follows:

- the device's sources are those of the device folders it includes (ctrl/, backend/, cmd/,
  top/), each listing its own sources in its own meson.build (cmd/'s those of its
  sub-folders), and any .c at hw/femu's root, listed there (femu_device_sources);
- each library subfolder it includes (ftl/, util/, store/, nvme/, statefile/) lists its own
  sources once, in its own meson.build, for both QEMU's build and the standalone one
  (top-level meson.build);
- every listed file exists, and every .c in an included subfolder (or deeper: ftl/flash/) is
  listed.
"""
import re

import pytest

from femu_device import REPO_ROOT

FEMU = REPO_ROOT / "hw" / "femu"


def _c_files(text: str):
    return set(re.findall(r"'([\w/]+\.c)'", text))


def _subfolders():
    """The subfolders hw/femu/meson.build includes (its foreach loops over subdir(): the
    device's folders, and the libraries')."""
    text = (FEMU / "meson.build").read_text()
    groups = re.findall(r"foreach name : \[([^\]]*)\]\s*\n\s*subdir\(name\)", text)
    assert groups, "hw/femu/meson.build no longer includes its subfolders with a foreach"
    return [name for group in groups for name in re.findall(r"'(\w+)'", group)]


def _listed():
    """Every listed source, relative to hw/femu."""
    listed = _c_files((FEMU / "meson.build").read_text())
    for sub in _subfolders():
        listed |= {f"{sub}/{name}" for name in _c_files((FEMU / sub / "meson.build").read_text())}
    return listed


def test_qemu_side_lists_every_top_level_source():
    device = {p.name for p in FEMU.glob("*.c")}
    listed = {n for n in _listed() if "/" not in n}
    assert listed == device, f"hw/femu/meson.build lists {sorted(listed)}, hw/femu has {sorted(device)}"


def test_every_subfolder_source_is_listed():
    unlisted = sorted(f"{sub}/{p.relative_to(FEMU / sub)}" for sub in _subfolders()
                      for p in (FEMU / sub).rglob("*.c")
                      if f"{sub}/{p.relative_to(FEMU / sub)}" not in _listed())
    assert not unlisted, f"hw/femu/<folder>/meson.build does not list {unlisted}"


def test_every_listed_source_exists():
    missing = sorted(name for name in _listed() if not (FEMU / name).is_file())
    assert not missing, f"hw/femu meson.build files list files that do not exist: {missing}"


def test_the_rule_catches_missing_and_unlisted_files(tmp_path, monkeypatch):
    import test_meson_glue as glue
    femu = tmp_path / "femu"
    (femu / "ftl").mkdir(parents=True)
    (femu / "femu.c").write_text("")
    (femu / "ftl" / "ftl.c").write_text("")
    (femu / "ftl" / "meson.build").write_text("femu_ftl_sources = files(\n  'ftl.c',\n)\n")
    (femu / "meson.build").write_text("files(\n  'femu.c',\n)\nforeach name : ['ftl']\n"
                                      "  subdir(name)\nendforeach\n")
    monkeypatch.setattr(glue, "FEMU", femu)
    glue.test_qemu_side_lists_every_top_level_source()
    glue.test_every_subfolder_source_is_listed()
    glue.test_every_listed_source_exists()
    (femu / "ftl" / "new.c").write_text("")
    with pytest.raises(AssertionError, match="ftl/new.c"):
        glue.test_every_subfolder_source_is_listed()
    (femu / "ftl" / "meson.build").write_text("femu_ftl_sources = files(\n  'ftl.c',\n"
                                              "  'new.c',\n  'gone.c',\n)\n")
    with pytest.raises(AssertionError, match="ftl/gone.c"):
        glue.test_every_listed_source_exists()
