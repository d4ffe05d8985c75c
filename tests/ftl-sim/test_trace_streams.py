"""A trace that is a stream (standard input "-", /dev/stdin from a pipe, a FIFO) is read
exactly once: ftl-sim (detection, dry run, replay) and femu-trace info and convert see
every request, as they do from the same bytes in a regular file. Before, the stream was
opened again by name for each pass, so the replay got nothing, or only the tail."""
import gzip
import json
import os
import subprocess

import pytest

SMALL = ["--config", "conf/lab-1g.conf", "--set", "luns_per_ch=2", "--set", "pgs_per_blk=64",
         "--set", "ssd_size=48"]
FEMU_WRITES = 40000
MSR_ROWS = 5000
FILETIME_0 = 128166372000000000


def femu_v1():
    """40,000 writes of 4 KiB over 8 MiB: far more than detection's look-ahead."""
    return "".join(f"W {(i % 2048) * 8} 8\n" for i in range(FEMU_WRITES)).encode()


def msr():
    rows = ["Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime"]
    rows += [f"{FILETIME_0 + i * 1000},hm,0,{'Read' if i % 5 == 0 else 'Write'},"
             f"{(i % 1024) * 4096},4096,10" for i in range(MSR_ROWS)]
    return ("\r\n".join(rows) + "\r\n").encode()


# name: (bytes, writes, reads)
TRACES = {
    "femu-v1": (femu_v1, FEMU_WRITES, 0),
    "msr": (msr, MSR_ROWS - MSR_ROWS // 5, MSR_ROWS // 5),
    "msr-gzip": (lambda: gzip.compress(msr()), MSR_ROWS - MSR_ROWS // 5, MSR_ROWS // 5),
}
HOW = ["dash", "dev-stdin", "fifo"]


@pytest.fixture(autouse=True)
def _in_repo(monkeypatch, repo_root):
    monkeypatch.chdir(repo_root)


def run_on_stream(tool, args, data, how, tmp_path):
    """Run tool with args, where the word TRACE stands for the trace given as a stream."""
    if how == "fifo":
        fifo = tmp_path / "trace.fifo"
        os.mkfifo(fifo)
        src = tmp_path / "trace.src"
        src.write_bytes(data)
        writer = subprocess.Popen(["sh", "-c", 'exec cat "$1" > "$2"', "sh", src, fifo])
        argv = [str(tool), *[str(fifo) if a == "TRACE" else str(a) for a in args]]
        try:
            return subprocess.run(argv, capture_output=True, timeout=300,
                                  stdin=subprocess.DEVNULL)
        finally:
            writer.kill()
            writer.wait()
    name = "-" if how == "dash" else "/dev/stdin"
    argv = [str(tool), *[name if a == "TRACE" else str(a) for a in args]]
    return subprocess.run(argv, input=data, capture_output=True, timeout=300)


@pytest.mark.parametrize("how", HOW)
@pytest.mark.parametrize("trace", sorted(TRACES))
def test_ftl_sim_replays_every_request_of_a_stream(ftl_sim, tmp_path, trace, how):
    make, writes, reads = TRACES[trace]
    summary = tmp_path / "s.json"
    proc = run_on_stream(ftl_sim, [*SMALL, "--trace", "TRACE", "--replay", "closed",
                                   "--summary", summary], make(), how, tmp_path)
    assert proc.returncode == 0, proc.stderr
    s = json.loads(summary.read_text())
    assert (s["writes"], s["reads"]) == (writes, reads)


@pytest.mark.parametrize("how", HOW)
@pytest.mark.parametrize("trace", sorted(TRACES))
def test_femu_trace_info_counts_every_request_of_a_stream(femu_trace, tmp_path, trace, how):
    make, writes, reads = TRACES[trace]
    proc = run_on_stream(femu_trace, ["info", "TRACE", "--json"], make(), how, tmp_path)
    assert proc.returncode == 0, proc.stderr
    facts = json.loads(proc.stdout)
    assert (facts["writes"], facts["reads"]) == (writes, reads)


@pytest.mark.parametrize("how", HOW)
@pytest.mark.parametrize("trace", sorted(TRACES))
def test_femu_trace_convert_keeps_every_request_of_a_stream(femu_trace, tmp_path, trace,
                                                            how):
    make, writes, reads = TRACES[trace]
    out = tmp_path / "out.femu"
    # scale needs the extent: a pass before the conversion's, over the same stream
    proc = run_on_stream(femu_trace, ["convert", "TRACE", out, "--to", "femu",
                                      "--trace-lba-map", "scale", "--device-bytes",
                                      str(64 << 20)], make(), how, tmp_path)
    assert proc.returncode == 0, proc.stderr
    ops = [line.split()[0] for line in out.read_text().splitlines()]
    assert (ops.count("W"), ops.count("R")) == (writes, reads)


def test_a_full_spool_folder_is_one_error(ftl_sim, tmp_path):
    """The stream is copied into TMPDIR; a folder that cannot take it is one line, exit 2,
    and nothing written."""
    summary = tmp_path / "s.json"
    proc = subprocess.run([str(ftl_sim), *SMALL, "--trace", "-", "--summary", summary],
                          input=femu_v1(), capture_output=True, timeout=300,
                          env={**os.environ, "TMPDIR": str(tmp_path / "no-such-folder")})
    assert proc.returncode == 2
    lines = proc.stderr.decode().strip().splitlines()
    assert len(lines) == 1 and "-: cannot spool the stream into" in lines[0], lines
    assert not summary.exists()


@pytest.mark.parametrize("how", HOW)
def test_ftl_sim_named_format_on_a_stream(ftl_sim, tmp_path, how):
    """--trace-format named: no detection, but the dry run and the replay both read the
    stream (the replay used to reopen it and find it empty)."""
    make, writes, reads = TRACES["msr"]
    summary = tmp_path / "s.json"
    proc = run_on_stream(ftl_sim, [*SMALL, "--trace", "TRACE", "--trace-format", "msr",
                                   "--replay", "closed", "--summary", summary], make(), how,
                         tmp_path)
    assert proc.returncode == 0, proc.stderr
    s = json.loads(summary.read_text())
    assert (s["writes"], s["reads"]) == (writes, reads)
    assert s["trace_input"]["records"] == MSR_ROWS


def test_an_endless_stream_is_one_line_not_a_full_disk(ftl_sim, femu_trace, tmp_path):
    """/dev/zero: read only as far as detection needs (before, the whole stream was to be
    spooled: the disk would fill first). The timeout only catches that hang."""
    for argv in ([str(ftl_sim), "--trace", "/dev/zero"],
                 [str(femu_trace), "info", "/dev/zero"],
                 [str(femu_trace), "convert", "/dev/zero", str(tmp_path / "o"), "--to",
                  "femu", "--trace-format", "msr"]):
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=120,
                              env={**os.environ, "TMPDIR": str(tmp_path)})
        lines = proc.stderr.strip().splitlines()
        assert proc.returncode == 2 and len(lines) == 1 and "/dev/zero" in lines[0], lines
    assert sorted(p.name for p in tmp_path.iterdir()) == []
