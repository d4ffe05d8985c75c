"""The result framing: split, binary safety, damage detection, safe names."""
import pytest

from femu_lab.vm import results


def frame(name: str, content: bytes) -> bytes:
    return (b"--- femu-result begin name=%s bytes=%d ---\n" % (name.encode(), len(content))
            + content + b"\n--- femu-result end name=%s ---\n" % name.encode())


def test_several_files_split_apart():
    stream = (frame("fio.json", b'{"a": 1}\n') + frame("sysbench.txt", b"text")
              + frame("femu-status", b"exit_status=0\ntimed_out=0\n")
              + results.COMPLETE_LINE + b"\n")
    parsed = results.parse(stream)
    assert parsed.files == {"fio.json": b'{"a": 1}\n', "sysbench.txt": b"text",
                            "femu-status": b"exit_status=0\ntimed_out=0\n"}
    assert parsed.complete and not parsed.damaged
    assert parsed.status == {"exit_status": "0", "timed_out": "0"}


def test_content_is_delimited_by_its_byte_count():
    tricky = bytes(range(256)) + b"\n--- femu-result end name=x ---\n--- femu-result begin name=y bytes=1 ---\n"
    parsed = results.parse(frame("x", tricky) + results.COMPLETE_LINE + b"\n")
    assert parsed.files == {"x": tricky}
    assert not parsed.damaged


def test_truncated_stream_is_reported():
    stream = frame("a", b"complete") + frame("b", b"0123456789")[:-20]
    parsed = results.parse(stream)
    assert parsed.files["a"] == b"complete"
    assert parsed.damaged == ["b"]
    assert not parsed.complete


def test_empty_stream():
    parsed = results.parse(b"")
    assert parsed.files == {} and not parsed.complete and parsed.status == {}


@pytest.mark.parametrize("name", ["../escape", "/abs/../../x", "a/../../b", ""])
def test_unsafe_names_are_refused(name):
    with pytest.raises(ValueError):
        results.safe_relative_path(name)


def test_write_files_keeps_subfolders_and_skips_unsafe(tmp_path):
    written = results.write_files({"d/f.txt": b"x", "../evil": b"y"}, tmp_path)
    assert (tmp_path / "d" / "f.txt").read_bytes() == b"x"
    assert list(written) == ["d/f.txt"]
    assert not (tmp_path.parent / "evil").exists()
