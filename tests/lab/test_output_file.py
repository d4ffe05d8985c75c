"""femu_lab.output_file: what a lab tool may rename its output over. A rename over a
FIFO, a symlink or a device would turn it into a regular file (as root /dev/null too)."""
import os
from pathlib import Path

import pytest

from femu_lab.output_file import OutputFileError, check_replaceable, replace


def test_a_new_path_and_a_regular_file_may_be_replaced(tmp_path):
    check_replaceable(tmp_path / "new", "OUT")
    (tmp_path / "old").write_text("old")
    (tmp_path / "made").write_text("new")
    replace(tmp_path / "made", tmp_path / "old", "OUT")
    assert (tmp_path / "old").read_text() == "new" and not (tmp_path / "made").exists()


def _special(tmp_path, kind):
    path = tmp_path / kind
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "symlink":
        (tmp_path / "target").write_text("kept")
        path.symlink_to(tmp_path / "target")
    elif kind == "dangling-symlink":
        path.symlink_to(tmp_path / "nowhere")
    else:
        path.mkdir()
    return path


@pytest.mark.parametrize("kind, says", [("fifo", "is a FIFO"),
                                        ("symlink", "is a symbolic link"),
                                        ("dangling-symlink", "is a symbolic link"),
                                        ("folder", "is a folder")])
def test_anything_else_is_refused_in_one_line(tmp_path, kind, says):
    path = _special(tmp_path, kind)
    mode = os.lstat(path).st_mode
    with pytest.raises(OutputFileError, match=says) as error:
        check_replaceable(path, "OUT")
    assert "\n" not in str(error.value) and str(error.value).startswith(f"OUT {path} ")
    (tmp_path / "made").write_text("new")
    with pytest.raises(OutputFileError):
        replace(tmp_path / "made", path, "OUT")
    assert os.lstat(path).st_mode == mode and (tmp_path / "made").exists()


def test_a_character_device_is_refused():
    with pytest.raises(OutputFileError, match="is a character device"):
        check_replaceable(Path(os.devnull), "-o")


@pytest.mark.parametrize("where, says", [("missing/out", "does not exist"),
                                         ("file/out", "is not a folder")])
def test_the_folder_must_be_there(tmp_path, where, says):
    (tmp_path / "file").write_text("")
    with pytest.raises(OutputFileError, match=f"folder {tmp_path / where.split('/')[0]} {says}"):
        check_replaceable(tmp_path / where, "OUT")
