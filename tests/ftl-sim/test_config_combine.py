"""Combining configuration files: --config more than once (later keys win), `include PATH`
lines, the NAND media profiles in conf/nand, and the one-line error that names the file and
line that set a refused key last."""
import os

import pytest

GEOMETRIES = ("conf/lab-1g.conf", "conf/femu-default.conf")
# profile: page bytes, pages per block, read / program / erase / transfer ns
PROFILES = {
    "slc": (4096, 64, 25000, 200000, 1500000, 6000),
    "mlc": (16384, 128, 35000, 390000, 4000000, 24000),
    "tlc": (16384, 768, 60000, 700000, 4500000, 24000),
    "qlc": (16384, 1024, 120000, 1365000, 6000000, 24000),
    "znand": (2048, 512, 3000, 100000, 1500000, 3000),
}
MEDIA_KEYS = {"secsz", "secs_per_pg", "pgs_per_blk", "pg_rd_lat", "pg_wr_lat", "blk_er_lat",
              "ch_xfer_lat", "pe_cycles", "cell_bits"}
# Media of several bits per cell that an SLC cache could use also give SLC-mode latencies.
SLC_MODE_KEYS = {"slc_pg_rd_lat", "slc_pg_wr_lat", "slc_blk_er_lat"}
SLC_MODE_PROFILES = {"tlc", "qlc"}
# Every profile gives the energy model's NAND figures (docs/energy.md).
ENERGY_KEYS = {"nand_vcc_mv", "nand_icc_read_ua", "nand_icc_prog_ua", "nand_icc_erase_ua",
               "nand_io_pj_per_byte"}
# 4 KiB SLC pages and 64-page blocks shrink both geometries below their logical size.
REFUSED = {
    ("conf/lab-1g.conf", "slc"): "conf/lab-1g.conf:10: devsz_mb: logical size 768 MiB must "
                                 "be smaller than the raw capacity (256 MiB)",
    ("conf/femu-default.conf", "slc"): "conf/femu-default.conf:10: devsz_mb: logical size "
                                       "12288 MiB must be smaller than the raw capacity "
                                       "(4096 MiB)",
}


@pytest.fixture(autouse=True)
def _in_repo(monkeypatch, repo_root):
    monkeypatch.chdir(repo_root)  # config paths are relative to the repository


def printed_config(proc):
    lines = [line.split("#", 1)[0].strip() for line in proc.stdout.splitlines()]
    return dict(line.split("=", 1) for line in lines if line)


def media(values):
    return (int(values["secsz"]) * int(values["secs_per_pg"]), int(values["pgs_per_blk"]),
            int(values["pg_rd_lat"]), int(values["pg_wr_lat"]), int(values["blk_er_lat"]),
            int(values["ch_xfer_lat"]))


def test_profiles_hold_media_keys_only_each_with_its_source(repo_root):
    for name in PROFILES:
        lines = (repo_root / "conf" / "nand" / f"{name}.conf").read_text().splitlines()
        settings = [line for line in lines if line.strip() and not line.startswith("#")]
        want = (MEDIA_KEYS | ENERGY_KEYS |
                (SLC_MODE_KEYS if name in SLC_MODE_PROFILES else set()))
        assert {line.split("=", 1)[0] for line in settings} == want, name
        assert all("#" in line and line.split("#", 1)[1].strip() for line in settings), name


@pytest.mark.parametrize("geometry", GEOMETRIES)
@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_every_profile_with_every_geometry(run_ftl_sim, geometry, profile):
    proc = run_ftl_sim("--config", geometry, "--config", f"conf/nand/{profile}.conf",
                       "--print-config", check=False)
    refused = REFUSED.get((geometry, profile))
    if refused:
        assert proc.returncode == 2
        assert proc.stderr.splitlines() == [
            f"ftl-sim: configuration: {refused} (see ftl-sim --help)"]
        return
    assert proc.returncode == 0, proc.stderr
    values = printed_config(proc)
    assert media(values) == PROFILES[profile]
    geometry_values = printed_config(run_ftl_sim("--config", geometry, "--print-config"))
    for key in ("nchs", "luns_per_ch", "blks_per_pl", "devsz_mb", "gc_mode", "placement"):
        assert values[key] == geometry_values[key], key


def test_later_files_win(run_ftl_sim):
    profile_last = printed_config(run_ftl_sim("--config", "conf/lab-1g.conf", "--config",
                                              "conf/nand/mlc.conf", "--print-config"))
    geometry_last = printed_config(run_ftl_sim("--config", "conf/nand/mlc.conf", "--config",
                                               "conf/lab-1g.conf", "--print-config"))
    assert (profile_last["pgs_per_blk"], profile_last["pg_rd_lat"]) == ("128", "35000")
    assert (geometry_last["pgs_per_blk"], geometry_last["pg_rd_lat"]) == ("256", "40000")
    assert geometry_last["pe_cycles"] == "3000"   # only the profile sets it


def test_include_lines_combine_like_two_files(run_ftl_sim, tmp_path, repo_root):
    (tmp_path / "nand").mkdir()
    (tmp_path / "nand" / "fast.conf").write_text("pg_rd_lat=3000\npg_wr_lat=100000\n")
    combined = tmp_path / "combined.conf"
    combined.write_text(f"include {repo_root}/conf/lab-1g.conf   # absolute\n"
                        "include nand/fast.conf               # relative to this file\n"
                        "pg_wr_lat=50000                      # after the include: wins\n")
    values = printed_config(run_ftl_sim("--config", combined, "--print-config"))
    assert (values["nchs"], values["pg_rd_lat"], values["pg_wr_lat"]) == ("2", "3000", "50000")


def test_a_conflict_names_the_file_and_line_that_set_the_key(run_ftl_sim, tmp_path):
    bigger = tmp_path / "bigger.conf"
    bigger.write_text("# ask for more than the flash holds\nssd_size=4096\n")
    proc = run_ftl_sim("--config", "conf/lab-1g.conf", "--config", "conf/nand/mlc.conf",
                       "--config", bigger, check=False)
    assert proc.returncode == 2
    assert proc.stderr.splitlines() == [
        f"ftl-sim: configuration: {bigger}:2: devsz_mb: logical size 4096 MiB must be smaller "
        "than the raw capacity (2048 MiB) (see ftl-sim --help)"]
    # --set takes the key over: the message has no file to name
    proc = run_ftl_sim("--config", "conf/lab-1g.conf", "--config", "conf/nand/slc.conf",
                       "--set", "ssd_size=1024", check=False)
    assert proc.returncode == 2
    assert proc.stderr.splitlines() == [
        "ftl-sim: configuration: devsz_mb: logical size 1024 MiB must be smaller than the raw "
        "capacity (256 MiB) (see ftl-sim --help)"]
    fits = run_ftl_sim("--config", "conf/lab-1g.conf", "--config", "conf/nand/slc.conf",
                       "--set", "ssd_size=192", "--print-config")
    assert printed_config(fits)["devsz_mb"] == "192"


@pytest.mark.parametrize("files, where, message", [
    ({"a.conf": "include a.conf\n"}, "a.conf:1", "include a.conf: an include cycle"),
    ({"a.conf": "nchs=2\ninclude b.conf\n", "b.conf": "include a.conf\n"}, "b.conf:1",
     "include a.conf: an include cycle"),
    ({"a.conf": "include b.conf\n", "b.conf": "nchs=2\nnchs=4\n"}, "b.conf:2",
     "nchs: set twice in this file (included from "),
    ({"a.conf": "include missing.conf\n"}, "a.conf:1", "include missing.conf: cannot open"),
    # found by fuzz-conf: an include of a device or a FIFO read for ever or blocked
    ({"a.conf": "include /dev/zero\n"}, "", "/dev/zero: not a regular file (included "),
    ({"a.conf": "include fifo\n", "fifo": None}, "", "fifo: not a regular file (included "),
    ({"a.conf": "include sub\n", "sub": {}}, "", "sub: not a regular file (included "),
    ({"a.conf": "include big.conf\n", "big.conf": "# x\n" * 300_000}, "",
     "big.conf: 1200000 bytes, more than a configuration file holds (1048576) (included "),
])
def test_include_errors_are_one_line(run_ftl_sim, tmp_path, files, where, message):
    for name, text in files.items():
        if text is None:
            os.mkfifo(tmp_path / name)
        elif isinstance(text, dict):
            (tmp_path / name).mkdir()
        else:
            (tmp_path / name).write_text(text)
    proc = run_ftl_sim("--config", tmp_path / "a.conf", check=False)
    assert proc.returncode == 2
    lines = proc.stderr.splitlines()
    start = f"ftl-sim: {tmp_path}/{where}: {message}" if where else "ftl-sim: "
    assert len(lines) == 1 and lines[0].startswith(start), lines
    assert message in lines[0]


def test_summary_lists_the_config_files(run_ftl_sim, tmp_path):
    import json
    summary = tmp_path / "s.json"
    run_ftl_sim("--config", "conf/lab-1g.conf", "--config", "conf/nand/mlc.conf",
                "--io-size", "1m", "--summary", summary)
    got = json.loads(summary.read_text())
    assert got["config_files"] == ["conf/lab-1g.conf", "conf/nand/mlc.conf"]
    assert got["config_file"] == "conf/nand/mlc.conf"
    assert got["config"]["pg_wr_lat"] == 390000
