"""ftl-sim with the drive in front of the flash (docs/front.md): a sequential read bound
by the PCIe link at the rate worked by hand below, where reads' time goes, a recording
with the link and the cores on that replays to identical statistics, and the keys'
refusals.

Link arithmetic (PCIe Base Specification facts): PCIe 3.0 moves 8 GT/s a lane with
128b/130b, so x4 carries 8e9 x 4 x 128/130 / 8 = 3.938461538e9 bytes a second each way.
A 128 KiB read sends 512 memory writes of 256 bytes (MPS) up, each with a 16-byte header
and 8 bytes of framing: 131072 + 512 x 24 = 143360 bytes; its CQE (16 + 24) and MSI-X
(4 + 24), the SQE fetch's read request (16 + 8) and the Ack of the SQE's completion (8),
and for its PRP list (32 pages: 31 entries of 8 bytes) a read request (24) and an Ack (8)
bring the command to 143492 bytes up. Up is the busy direction, so the link carries
3.938461538e9 / 143492 = 27447.25 reads a second: 3597.56e6 bytes a second of data."""
import pytest

from test_zoned import _in_repo, summary_of  # noqa: F401

FAST = ["--config", "conf/lab-1g.conf", "--set", "nchs=8"]    # 64 LUNs: flash outruns x4
LINK3 = ["--set", "pcie_gen=3", "--set", "pcie_lanes=4", "--set", "pcie_mps=256"]
SEQ_READ = ["--rw", "read", "--bs", "128k", "--qd", "64", "--precondition", "seq",
            "--io-size", "256m"]
LINK_BYTES_S = 8e9 * 4 * 128 / 130 / 8
UP_PER_READ = 131072 + 512 * 24 + 40 + 28 + 24 + 8 + 24 + 8


def test_a_sequential_read_runs_at_the_link_rate(run_ftl_sim, tmp_path):
    s, _ = summary_of(run_ftl_sim, tmp_path, *FAST, *LINK3, *SEQ_READ)
    want = LINK_BYTES_S / UP_PER_READ * 131072 / 1048576        # MiB/s
    assert s["read_mib_s"] == pytest.approx(want, rel=0.002)
    assert s["link_up_util"] == pytest.approx(1.0, abs=0.002)
    # down: each read's SQE (64 + 20) and PRP list (248 + 20), the Acks of its 512 writes,
    # CQE, MSI-X and its two read requests (8 each): 84 + 268 + 516 x 8 = 4480 bytes
    assert s["link_down_bytes"] == s["reads"] * 4480
    assert s["link_up_bytes"] == s["reads"] * UP_PER_READ
    # without the link the same flash reads faster
    free, _ = summary_of(run_ftl_sim, tmp_path, *FAST, *SEQ_READ, name="free.json")
    assert free["read_mib_s"] > 1.5 * s["read_mib_s"]
    assert "link_up_util" not in free


def test_where_a_qd1_read_spends_its_time(run_ftl_sim, tmp_path):
    """QD1 random reads of mapped pages: each waits for nothing, so its latency is its
    flash time, its own transfers and its core time; the controller's 3 us a read and 40
    us flash reads (lab-1g's pg_rd_lat) show as such."""
    s, _ = summary_of(run_ftl_sim, tmp_path, "--config", "conf/lab-1g.conf", *LINK3,
                      "--set", "ctrl_cores=2", "--set", "ctrl_read_ns=3000",
                      "--rw", "randread", "--bs", "4k", "--qd", "1", "--precondition", "seq",
                      "--io-size", "8m")
    split = s["read_split_us"]
    assert split["count"] == s["reads"] == 2048
    assert split["ctrl"] == pytest.approx(3.0)
    assert split["wait"] == pytest.approx(0.0)
    assert split["flash"] == pytest.approx(40.0, abs=0.5)
    # a 4 KiB read's transfers: SQE request 24 + completion 84, data 4096 + 16 x 24, CQE 40,
    # MSI-X 28 = 4656 bytes, each piece rounded up to the ps
    assert split["link"] == pytest.approx(4656 / LINK_BYTES_S * 1e6, abs=0.002)
    total = split["flash"] + split["link"] + split["ctrl"] + split["wait"]
    assert s["mean_latency_us"] == pytest.approx(total, abs=0.01)


def test_a_recording_with_the_link_and_cores_replays_to_identical_statistics(run_ftl_sim,
                                                                             tmp_path):
    conf = ["--config", "conf/lab-dftl.conf", *LINK3, "--set", "ctrl_cores=2",
            "--set", "ctrl_read_ns=2000", "--set", "ctrl_write_ns=3000",
            "--set", "ctrl_map_miss_ns=700", "--set", "ctrl_flush_ns=100"]
    trace, rec, rep = tmp_path / "run.trace", tmp_path / "rec", tmp_path / "rep"
    run_ftl_sim(*conf, "--rw", "randrw", "--bs", "16k", "--qd", "8", "--io-size", "32m",
                "--trace-out", trace, "--stats-dir", rec)
    run_ftl_sim(*conf, "--trace", trace, "--stats-dir", rep)
    header = (rec / "stats.csv").read_text().splitlines()[0]
    assert header.endswith(",link_up_bytes,link_down_bytes,link_up_util,link_down_util,"
                           "ctrl_util")
    names = sorted(p.name for p in rec.iterdir())
    for name in names:
        assert (rep / name).read_text() == (rec / name).read_text(), name


@pytest.mark.parametrize("setting, message", [
    ("pcie_gen=6", "pcie_gen: 6 is out of range [0, 5]"),
    ("pcie_lanes=3", "pcie_lanes: 3 is not a lane count a PCIe link has (1, 2, 4, 8 or 16)"),
    ("pcie_mps=384", "pcie_mps: 384 is not a power of two (128, 256 or 512)"),
    ("pcie_mps=1024", "pcie_mps: 1024 is out of range [128, 512]"),
    ("ctrl_read_ns=-5", "ctrl_read_ns:"),
    ("ctrl_cores=65", "ctrl_cores: 65 is out of range [0, 64]"),
])
def test_bad_keys_name_the_key(run_ftl_sim, setting, message):
    proc = run_ftl_sim("--config", "conf/lab-1g.conf", "--set", setting, "--rw", "read",
                       "--io-size", "1m", check=False)
    assert proc.returncode == 2 and message in proc.stderr, proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
