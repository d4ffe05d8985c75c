"""ftl-sim --trace-out while replaying another format's trace: the recording's version
holds every request the replay issues (issue 39, fault 5: a blkparse journal commit, a
FUA write, ended the run with exit 1 and partial outputs)."""
import pytest

SMALL = ["--config", "conf/lab-1g.conf", "--set", "luns_per_ch=2", "--set", "pgs_per_blk=64",
         "--set", "ssd_size=48"]

# blkparse queue events: a write, a preflush + FUA write (an ext4/XFS journal commit,
# 'FWFS'), a FUA write ('WFS'), a read.
BLKPARSE = """\
  8,0    0  1  0.000000000  77  Q  WS 0 + 8 [jbd2]
  8,0    0  2  0.001000000  77  Q  FWFS 64 + 8 [jbd2]
  8,0    0  3  0.002000000  77  Q  WFS 128 + 8 [jbd2]
  8,0    0  4  0.003000000  77  Q  R 0 + 8 [cat]
"""


@pytest.fixture(autouse=True)
def _in_repo(monkeypatch, repo_root):
    monkeypatch.chdir(repo_root)


def test_a_blkparse_replay_records_its_fua_writes(run_ftl_sim, tmp_path):
    trace, out = tmp_path / "j.blk", tmp_path / "r.trace"
    trace.write_text(BLKPARSE)
    run_ftl_sim(*SMALL, "--trace", trace, "--trace-out", out)
    lines = out.read_text().splitlines()
    assert lines[0] == "V 5"
    writes = [line.split() for line in lines if line.startswith("W ")]
    # three writes: the plain one, the commit's and the FUA one; the last two marked
    assert [w[-1] == "fua" for w in writes] == [False, True, True]
    assert sum(line.startswith("F ") for line in lines) == 1    # the preflush
    # and the recording replays to the same counters
    again = run_ftl_sim(*SMALL, "--trace", out)
    first = run_ftl_sim(*SMALL, "--trace", trace)
    assert again.stdout.splitlines()[1:] == first.stdout.splitlines()[1:]


def test_convert_keeps_fua_in_femu_and_counts_it_elsewhere(femu_trace, tmp_path):
    """femu-trace convert --to femu writes version 5 with the FUA marks; the formats with
    no FUA mark say how many writes lost it (never silent)."""
    import subprocess
    trace = tmp_path / "j.blk"
    trace.write_text(BLKPARSE)
    out = tmp_path / "out.femu"
    subprocess.run([femu_trace, "convert", trace, out, "--to", "femu"], check=True,
                   capture_output=True, timeout=60)
    lines = out.read_text().splitlines()
    assert lines[0] == "V 5"
    assert [line.endswith(" fua") for line in lines if line.startswith("W ")] == \
        [False, True, True]
    for to in ("fio-iolog", "mqsim"):
        proc = subprocess.run([femu_trace, "convert", trace, tmp_path / f"out.{to}", "--to",
                               to], capture_output=True, text=True, timeout=60)
        assert proc.returncode == 0
        assert "2 FUA writes have no FUA mark" in proc.stderr
    plain = tmp_path / "plain.blk"
    plain.write_text(BLKPARSE.replace("FWFS", "WS").replace("WFS", "WS"))
    subprocess.run([femu_trace, "convert", plain, out, "--to", "femu"], check=True,
                   capture_output=True, timeout=60)
    assert out.read_text().startswith("V 2\n")
