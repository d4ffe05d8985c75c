"""Bad device configurations: QEMU exits with status 1 and one line that names the
property or config key at fault; never an abort, a core or a hang."""
import pathlib
import signal

import pytest

BAD = [
    # (device options, words the one error line must contain)
    ("femu,nchs=0", ["nchs", "out of range"]),
    ("femu,nchs=-1", ["nchs"]),
    ("femu,nchs=lots", ["nchs"]),
    ("femu,devsz_mb=999999", ["devsz_mb", "given as a property"]),
    ("femu,devsz_mb=0", ["devsz_mb"]),
    ("femu,secsz=1000", ["secsz", "power of two"]),
    ("femu,placement=sideways", ["placement", "sideways"]),
    ("femu,gc_thres_pcent=99", ["gc_thres_pcent"]),
    ("femu,nstreams=17,placement=stream", ["nstreams"]),
    ("femu,mapping=dftl,cmt_entries=100", ["cmt_entries", "translation page"]),
    ("femu,mapping=hashed", ["mapping", "hashed"]),
    ("femu,write_buffer_sectors=999999999", ["write_buffer_sectors", "larger than the device"]),
    ("femu,write_buffer_sectors=4", ["write_buffer_sectors", "smaller than one page"]),
    ("femu,buf_flush_pcent=0", ["buf_flush_pcent"]),
    ("femu,config=/nonexistent/ssd.conf", ["config", "/nonexistent/ssd.conf"]),
    ("femu,queues=0", ["queues"]),
    ("femu,queues=100000", ["queues"]),
    ("femu,mdts=99", ["mdts"]),
    ("femu,serial=this-serial-is-far-too-long", ["serial"]),
    ("femu,serial=", ["serial"]),
    ("femu,trace_out=/nonexistent/dir/run.trace", ["trace_out", "cannot create"]),
    ("femu,trace_out=/dev/full", ["trace_out", "write failed"]),
    # a power state past ps_count (properties apply ps_count first: none can drop it)
    ("femu,ps_count=2,ps3_max_mw=5", ["ps3_max_mw", "ps_count is 2", "given as a property"]),
    ("femu,ps_count=2,ps1_max_mw=30000", ["ps1_max_mw", "not ordered"]),
]


def _check_one_clear_line(proc, words):
    assert proc.returncode == 1, f"exit {proc.returncode}: {proc.stderr}"
    assert proc.returncode != -signal.SIGABRT
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, f"want one error line, got: {proc.stderr!r}"
    for word in words:
        assert word in lines[0], f"{word!r} not in {lines[0]!r}"
    assert "Aborted" not in proc.stderr and "core dumped" not in proc.stderr


@pytest.mark.parametrize("device,words", BAD, ids=[d for d, _ in BAD])
def test_bad_property_fails_with_one_line(launch, device, words):
    _check_one_clear_line(launch(device), words)


@pytest.mark.parametrize("body,words", [
    ("nchs=2\nfrobnicate=3\n", ["frobnicate", ":2:", "unknown key"]),
    ("nchs=zero\n", ["nchs", ":1:"]),
    ("nchs=2\nnchs=4\n", ["nchs", ":2:"]),
    ("nchs=1\nssd_size=16384\n", ["devsz_mb", "from"]),
    ("ps3_max_mw=5\nps_count=2\n", ["ps3_max_mw", ":1:", "ps_count is 2"]),
])
def test_bad_config_file_fails_with_one_line(launch, tmp_path, body, words):
    conf = tmp_path / "bad.conf"
    conf.write_text(body)
    _check_one_clear_line(launch(f"femu,config={conf}"), words)


def test_unusable_stats_dir(launch, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    _check_one_clear_line(launch(f"femu,stats_dir={blocker}/stats"), ["stats_dir"])


def test_explicit_property_fixes_a_bad_config_file_value(launch, tmp_path):
    # The file's devsz_mb does not fit its geometry; an explicit devsz_mb replaces it.
    conf = tmp_path / "small.conf"
    conf.write_text("nchs=1\nluns_per_ch=8\nblks_per_pl=64\nssd_size=16384\n")
    assert launch(f"femu,config={conf}").returncode == 1
    proc = launch(f"femu,config={conf},devsz_mb=384")
    assert proc.returncode == 0, proc.stderr


def test_zrwa_realizes_and_sizes_past_16_bits_are_refused(launch):
    """A zoned device with zrwa_zones realizes (test_zrwa_device.py checks its Identify
    fields); a ZRWAS that Identify Namespace cannot give in 16 bits of 512-byte LBAs (64
    MiB: 131072) is refused in one line naming zrwa_size."""
    conf = pathlib.Path(__file__).resolve().parents[2] / "conf" / "zns-lab.conf"
    proc = launch(f"femu,config={conf},zrwa_zones=1")
    assert proc.returncode == 0, proc.stderr
    big = ("pgs_per_blk=4096,blks_per_pl=20,zones=16,zone_size=64M,zone_cap=64M,"
           "zrwa_zones=1,zrwa_size=64M")
    _check_one_clear_line(launch(f"femu,config={conf},{big}"),
                          ["zrwa_size", "65535", "16 bits", "given as a property"])
