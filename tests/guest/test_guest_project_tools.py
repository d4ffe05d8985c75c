"""The project's own tools in the guest image (femu_guest.image.PROJECT_TOOLS: kv-load):
taken from the C build folder, part of the build key, and a missing one named with what
to build, before any package is fetched."""
import pytest

from femu_guest import image


def _fake_build(tmp_path, monkeypatch, content=b"\x7fELF tool"):
    for built in image.PROJECT_TOOLS.values():
        path = tmp_path / built
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)
    monkeypatch.setenv("FEMU_BUILD_DIR", str(tmp_path))


def test_kv_load_is_a_project_tool():
    assert image.PROJECT_TOOLS["usr/bin/kv-load"] == "tools/kv-load/kv-load"


def test_a_missing_tool_says_what_to_build(tmp_path, monkeypatch):
    monkeypatch.setenv("FEMU_BUILD_DIR", str(tmp_path))
    with pytest.raises(image.ImageError, match=r"kv-load is missing: build the project's C "
                                               r"tools first \(meson setup"):
        image.project_tools()
    with pytest.raises(image.ImageError, match="kv-load is missing"):
        image._build_key({"fio": "1"})   # the key, which every up-to-date check computes


def test_a_rebuilt_tool_changes_the_build_key(tmp_path, monkeypatch):
    _fake_build(tmp_path, monkeypatch)
    assert image.project_tools()["usr/bin/kv-load"] == tmp_path / "tools/kv-load/kv-load"
    before = image._build_key({"fio": "1"})
    assert image._build_key({"fio": "1"}) == before
    _fake_build(tmp_path, monkeypatch, b"\x7fELF tool, rebuilt")
    assert image._build_key({"fio": "1"}) != before
