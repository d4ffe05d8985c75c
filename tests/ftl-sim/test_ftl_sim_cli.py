"""ftl-sim end to end: arguments, summary values, CSV files, determinism, traces, hot/cold."""
import csv
import json
import math

import pytest

LAB_1G = "conf/lab-1g.conf"
# A 64 MiB-raw device (2 ch x 2 LUN x 64 blocks x 64 pages of 4 KiB), 48 MiB logical:
# big enough for GC dynamics, small enough that a test run takes a fraction of a second.
SMALL = ["--config", LAB_1G, "--set", "luns_per_ch=2", "--set", "pgs_per_blk=64",
         "--set", "ssd_size=48"]


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def summary_of(run_ftl_sim, tmp_path, *args, name="summary.json"):
    path = tmp_path / name
    run_ftl_sim(*args, "--summary", path)
    return json.loads(path.read_text())


@pytest.fixture(autouse=True)
def _in_repo(monkeypatch, repo_root):
    monkeypatch.chdir(repo_root)  # config paths are relative to the repository


@pytest.mark.parametrize("args, message", [
    (["--rw", "sideways"], "--rw: 'sideways' is not one of"),
    (["--dist", "zipf:abc"], "--dist"),
    (["--dist", "lognormal"], "--dist"),
    (["--bs", "4q"], "--bs"),
    (["--bs", "0"], "--bs: must be greater than zero"),
    (["--qd", "0"], "--qd: '0' is not a whole number"),
    (["--rwmixread", "101"], "--rwmixread"),
    (["--io-size", "1m", "--runtime", "5"], "--io-size and --runtime exclude each other"),
    (["--precondition", "random"], "--precondition: 'random' is not one of none, seq"),
    (["--set", "nchs"], "--set: expected key=value"),
    (["--set", "colour=blue"], "colour: unknown key"),
    (["--set", "ssd_size=1024"], "configuration: devsz_mb: logical size 1024 MiB must be smaller"),
    (["--config", "/nonexistent.conf"], "/nonexistent.conf: cannot open"),
    (["--frobnicate"], "unknown or incomplete option '--frobnicate'"),
    (["--bs", "1000"], "--bs: 1000 is not a multiple of the 512-byte sector"),
    (["--size", "2g"], "--size: 2147483648 bytes is larger than the device"),
    (["--trace", "/nonexistent.trace"], "/nonexistent.trace"),
    (["stray"], "unexpected argument 'stray'"),
])
def test_bad_arguments_exit_2_with_one_line(run_ftl_sim, args, message):
    proc = run_ftl_sim("--config", LAB_1G, *args, check=False)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert message in lines[0]
    assert lines[0].startswith("ftl-sim: ")


def test_bad_config_file_names_file_line_and_key(run_ftl_sim, tmp_path):
    conf = tmp_path / "bad.conf"
    conf.write_text("nchs=2  # fine\nluns_per_ch=eight\n")
    proc = run_ftl_sim("--config", conf, check=False)
    assert proc.returncode == 2
    assert f"{conf}:2: luns_per_ch: 'eight' is not a non-negative integer" in proc.stderr


def test_qd1_write_latency_is_one_page_program(run_ftl_sim, tmp_path):
    # An empty device never collects garbage: each 4 KiB write costs exactly pg_wr_lat.
    s = summary_of(run_ftl_sim, tmp_path, *SMALL, "--rw", "randwrite", "--qd", "1",
                   "--io-size", "4m")
    assert s["writes"] == 1024 and s["reads"] == 0
    assert s["mean_latency_us"] == pytest.approx(200.0)
    assert s["iops"] == pytest.approx(5000.0)
    assert s["gc_runs"] == 0 and s["waf"] == pytest.approx(1.0)
    assert s["config"]["ssd_size" if "ssd_size" in s["config"] else "devsz_mb"] == 48
    assert s["config"]["luns_per_ch"] == 2


def test_qd_scales_over_luns_and_reads_cost_a_sense(run_ftl_sim, tmp_path):
    # 4 LUNs: at qd 4 random writes overlap, up to 4x the qd-1 rate.
    s = summary_of(run_ftl_sim, tmp_path, *SMALL, "--qd", "4", "--io-size", "8m")
    assert 5000 * 1.5 < s["iops"] <= 5000 * 4 + 1e-6
    # Sequential reads of a preconditioned device at qd 1: 40 us each.
    s = summary_of(run_ftl_sim, tmp_path, *SMALL, "--precondition", "seq", "--rw", "read",
                   "--io-size", "4m", name="r.json")
    assert s["mean_latency_us"] == pytest.approx(40.0)
    assert s["host_read_pages"] == 1024 and s["host_write_pages"] == 0
    assert s["precondition_sim_time_s"] > 0


def test_summary_waf_and_counts_agree(run_ftl_sim, tmp_path):
    s = summary_of(run_ftl_sim, tmp_path, *SMALL, "--precondition", "seq",
                   "--qd", "8", "--runtime", "20")
    for key in ("host_write_pages", "host_read_pages", "gc_write_pages", "erased_blocks",
                "gc_runs", "waf", "iops", "mean_latency_us", "p99_latency_us", "sim_time_s",
                "config"):
        assert key in s
    assert s["gc_runs"] > 0 and s["erased_blocks"] == s["gc_runs"] * 4
    assert s["waf"] == pytest.approx(
        (s["host_write_pages"] + s["gc_write_pages"]) / s["host_write_pages"], rel=1e-4)
    assert s["host_write_pages"] == s["writes"]  # 4 KiB writes on 4 KiB pages
    assert s["sim_time_s"] >= 20
    assert s["p99_latency_us"] >= s["mean_latency_us"] * 0.5
    assert s["iops"] == pytest.approx(s["ops"] / s["sim_time_s"], abs=0.01)


def test_csv_files_cover_the_whole_run(run_ftl_sim, tmp_path):
    stats = tmp_path / "stats"
    s = summary_of(run_ftl_sim, tmp_path, *SMALL, "--precondition", "seq", "--qd", "4",
                   "--runtime", "25", "--stats-dir", stats)
    total = s["precondition_sim_time_s"] + s["sim_time_s"]
    iops = read_csv(stats / "IOPSData.csv")
    assert list(iops[0]) == ["time", "read", "write"]
    assert len(iops) == math.ceil(total)  # every second has a row, the last may be partial
    assert [float(r["time"]) for r in iops[:3]] == [1.0, 2.0, 3.0]
    precondition_writes = 48 * 256  # 48 MiB of 4 KiB pages, written once
    assert sum(int(r["write"]) for r in iops) == precondition_writes + s["writes"]
    assert list(read_csv(stats / "throughputData.csv")[0]) == [
        "time", "readThroughput", "writeThroughput"]
    ten = read_csv(stats / "statistics.csv")
    assert list(ten[0]) == ["seconds", "iops", "waf"]
    assert len(ten) == math.ceil(total / 10)
    gc = read_csv(stats / "GCData.csv")
    assert sum(int(r["reclaimedBlocks"]) for r in gc) == s["erased_blocks"]
    moved = read_csv(stats / "WAFData.csv")
    assert sum(int(r["GCWrite"]) for r in moved) == s["gc_write_pages"]
    rich = read_csv(stats / "stats.csv")
    assert len(rich) == len(iops)
    assert sum(int(r["host_write_pages"]) for r in rich) == precondition_writes + s[
        "host_write_pages"]
    phases = read_csv(stats / "phases.csv")
    assert [p["phase"] for p in phases] == ["precondition", "workload", "end"]
    assert float(phases[1]["time_s"]) == pytest.approx(s["precondition_sim_time_s"], abs=1e-3)
    counts = read_csv(stats / "lpn_access_count.csv")
    assert list(counts[0]) == ["LPN", "Access_Count"]
    assert len(counts) == 48 * 256
    assert sum(int(r["Access_Count"]) for r in counts) == precondition_writes + s["writes"]


def test_same_seed_same_result_other_seed_differs(run_ftl_sim, tmp_path):
    args = [*SMALL, "--precondition", "seq", "--dist", "zipf:1.2", "--qd", "8",
            "--runtime", "10"]
    a = summary_of(run_ftl_sim, tmp_path, *args, "--seed", "5", "--stats-dir", tmp_path / "a",
                   name="a.json")
    b = summary_of(run_ftl_sim, tmp_path, *args, "--seed", "5", "--stats-dir", tmp_path / "b",
                   name="b.json")
    c = summary_of(run_ftl_sim, tmp_path, *args, "--seed", "6", name="c.json")
    assert a == b
    for name in ("IOPSData.csv", "stats.csv", "lpn_access_count.csv"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    assert a["ops"] != c["ops"] or a["gc_write_pages"] != c["gc_write_pages"]


def test_trace_replay_with_streams(run_ftl_sim, tmp_path):
    trace = tmp_path / "t.trace"
    trace.write_text("S 7\n# comment\nW 0 16 H\nW 16 8 C\nR 0 24\nW 8 8 C\nW 32 8 C\n\n")
    s = summary_of(run_ftl_sim, tmp_path, *SMALL, "--set", "placement=stream",
                   "--trace", trace)
    assert s["writes"] == 4 and s["reads"] == 1
    assert s["host_write_pages"] == 2 + 1 + 1 + 1
    # C (cold) is stream 0, H (hot) stream 1
    assert [wp["host_pages"] for wp in s["write_pointers"]] == [3, 2]
    bad = tmp_path / "bad.trace"
    bad.write_text("W 0 8\nX 1 2\n")
    proc = run_ftl_sim(*SMALL, "--trace", bad, check=False)
    assert proc.returncode == 2
    assert f"{bad}:2" in proc.stderr
    beyond = tmp_path / "beyond.trace"
    beyond.write_text(f"W {48 * 2048} 8\n")  # first sector past 48 MiB
    proc = run_ftl_sim(*SMALL, "--trace", beyond, check=False)
    assert proc.returncode == 2 and "beyond the device" in proc.stderr


def test_unwritten_reads_with_runtime_fail_clearly(run_ftl_sim):
    proc = run_ftl_sim(*SMALL, "--rw", "randread", "--runtime", "5", check=False)
    assert proc.returncode == 1
    assert "simulated time stopped advancing" in proc.stderr


def test_hotcold_lowers_waf_under_zipf_on_lab_1g(run_ftl_sim, tmp_path):
    """The lab observation: hot/cold separation lowers WAF under zipf:1.2 on lab-1g."""
    common = ["--config", LAB_1G, "--precondition", "seq", "--dist", "zipf:1.2",
              "--qd", "16", "--runtime", "120"]
    single = summary_of(run_ftl_sim, tmp_path, *common, name="single.json")
    split = summary_of(run_ftl_sim, tmp_path, *common, "--set", "placement=hotcold",
                       "--set", "hot_threshold=6", name="hotcold.json")
    print(f"lab-1g zipf:1.2 WAF: single {single['waf']:.2f}, hotcold(6) {split['waf']:.2f}")
    assert single["gc_runs"] > 0
    assert split["waf"] < single["waf"] * 0.9


def test_invariant_checker_runs_during_a_run(run_ftl_sim, tmp_path):
    s = summary_of(run_ftl_sim, tmp_path, *SMALL, "--precondition", "seq", "--qd", "4",
                   "--set", "placement=hotcold", "--set", "hot_threshold=1",
                   "--dist", "zipf:0.8", "--runtime", "10", "--check-every", "2000")
    assert s["gc_runs"] > 0  # checked while GC was running, and nothing was found


def test_stats_dir_parents_are_created(run_ftl_sim, tmp_path):
    stats = tmp_path / "results" / "run-1"
    run_ftl_sim(*SMALL, "--io-size", "1m", "--stats-dir", stats)
    assert (stats / "IOPSData.csv").exists()
    proc = run_ftl_sim(*SMALL, "--io-size", "1m", "--stats-dir", "/proc/nope/x", check=False)
    assert proc.returncode == 1 and "cannot create /proc/nope/x" in proc.stderr


def test_print_config_is_a_complete_config_file_with_overrides(run_ftl_sim, tmp_path):
    """--print-config: every key once, overrides applied, and the output loads back as a
    config file that prints the same."""
    proc = run_ftl_sim("--config", LAB_1G, "--set", "hot_threshold=6",
                       "--set", "placement=hotcold", "--print-config")
    lines = [l.split("#", 1)[0].strip() for l in proc.stdout.splitlines()]
    values = dict(l.split("=", 1) for l in lines if l)
    assert values["hot_threshold"] == "6" and values["placement"] == "hotcold"
    assert values["devsz_mb"] == "768" and values["nchs"] == "2"
    assert "# logical capacity: 805306368 bytes" in proc.stdout
    saved = tmp_path / "effective.conf"
    saved.write_text(proc.stdout)
    again = run_ftl_sim("--config", saved, "--print-config")
    assert again.stdout == proc.stdout


def test_print_config_rejects_an_impossible_geometry(run_ftl_sim):
    proc = run_ftl_sim("--config", LAB_1G, "--set", "ssd_size=1024", "--print-config",
                       check=False)
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "devsz_mb" in proc.stderr


def test_precondition_region_writes_only_the_size_region_first(run_ftl_sim, tmp_path):
    """--precondition region writes the --size region once (as fio lays out a file) before
    the measured part; seq writes the whole logical space."""
    def precondition_pages(mode):
        stats = tmp_path / mode
        summary = summary_of(run_ftl_sim, tmp_path, *SMALL, "--size", "16m", "--precondition",
                             mode, "--runtime", "1", "--stats-dir", stats, name=f"{mode}.json")
        phases = [r["phase"] for r in read_csv(stats / "phases.csv")]
        assert phases == ["precondition", "workload", "end"]
        total = sum(int(r["host_write_pages"]) for r in read_csv(stats / "stats.csv"))
        return total - summary["host_write_pages"]   # the summary counts the measured part
    assert precondition_pages("region") == (16 << 20) // 4096
    assert precondition_pages("seq") == (48 << 20) // 4096


# ---- issue 15: DFTL, write buffer, streams, GC units ----

DFTL = [*SMALL, "--set", "mapping=dftl", "--set", "cmt_entries=1024"]
TEXT_COUNTERS = ["map reads", "map writes", "map GCs", "map-GC moved pages", "CMT hits",
                 "CMT misses", "buffer read hits", "buffer absorbed rewrites",
                 "buffer flushes", "buffer fill reads", "fallback runs", "fallback pages",
                 "valid pages per GC victim", "single stream", "WAF"]


def test_dftl_buffer_counters_in_summary_and_text(run_ftl_sim, tmp_path):
    args = [*DFTL, "--set", "write_buffer_sectors=256", "--rw", "randrw", "--bs", "2k",
            "--io-size", "64m", "--precondition", "seq"]
    s = summary_of(run_ftl_sim, tmp_path, *args)
    assert s["mapping"] == "dftl"
    assert s["cmt_misses"] > 0 and s["map_reads"] > 0 and s["map_writes"] > 0
    assert 0 < s["cmt_hit_rate"] < 1
    assert s["cmt_hit_rate"] == pytest.approx(s["cmt_hits"] / (s["cmt_hits"] + s["cmt_misses"]),
                                              abs=1e-6)
    assert s["buf_flushed_pages"] <= s["host_write_pages"]
    assert s["buf_fill_reads"] > 0          # 2 KiB writes leave half-page holes on flash
    programs = (s["buf_flushed_pages"] + s["gc_write_pages"] + s["map_writes"] +
                s["map_gc_moved_pages"] + s["fallback_pages"])
    assert s["waf"] == pytest.approx(programs / s["host_write_pages"], abs=1e-3)
    hist = dict(map(tuple, s["victim_histogram"]["data"]))
    assert sum(hist.values()) >= s["gc_runs"]
    text = run_ftl_sim(*args).stdout.splitlines()
    found = [next(i for i, line in enumerate(text) if line.startswith(name))
             for name in TEXT_COUNTERS]
    assert found == sorted(found), "one line per counter, in the issue's order"


def test_a_cmt_holding_everything_costs_no_map_traffic(run_ftl_sim, tmp_path):
    base = ["--rw", "randwrite", "--io-size", "96m", "--precondition", "seq"]
    page = summary_of(run_ftl_sim, tmp_path, *SMALL, *base, name="page.json")
    full = summary_of(run_ftl_sim, tmp_path, *SMALL, "--set", "mapping=dftl",
                      "--set", "cmt_entries=12288", *base, name="full.json")
    assert full["map_reads"] == full["map_writes"] == full["map_gc_runs"] == 0
    for key in ("waf", "gc_write_pages", "erased_blocks", "mean_latency_us", "iops"):
        assert full[key] == page[key], key


def test_gc_unit_block_runs_and_reports_blocks(run_ftl_sim, tmp_path):
    s = summary_of(run_ftl_sim, tmp_path, *SMALL, "--set", "gc_unit=block",
                   "--set", "gc_mode=line", "--io-size", "96m", "--precondition", "seq",
                   "--check-every", "5000")
    assert s["gc_runs"] == s["erased_blocks"] > 0      # one block per GC run
    proc = run_ftl_sim(*SMALL, "--set", "gc_unit=block", "--set", "gc_mode=paced",
                       check=False)
    assert proc.returncode == 2 and "gc_unit" in proc.stderr


def test_streams_from_the_command_line_and_traces(run_ftl_sim, tmp_path):
    s = summary_of(run_ftl_sim, tmp_path, *SMALL, "--set", "placement=stream",
                   "--stream", "1", "--io-size", "8m")
    assert [wp["host_pages"] for wp in s["write_pointers"]] == [0, 2048]
    proc = run_ftl_sim(*SMALL, "--set", "placement=stream", "--stream", "2", check=False)
    assert proc.returncode == 2 and "--stream: 2 is not below nstreams" in proc.stderr
    proc = run_ftl_sim(*SMALL, "--stream", "1", check=False)
    assert proc.returncode == 2 and "placement=stream" in proc.stderr
    trace = tmp_path / "v2.trace"
    trace.write_text("V 2\nW 0 0 8 1 0\nW 10 8 8 1 5\n")
    proc = run_ftl_sim(*SMALL, "--set", "placement=stream", "--trace", trace, check=False)
    assert proc.returncode == 2 and f"{trace}:3" in proc.stderr and "nstreams" in proc.stderr


@pytest.mark.parametrize("setting, message", [
    ("cmt_entries=10", "cmt_entries: 10 is smaller than one translation page"),
    ("write_buffer_sectors=4", "write_buffer_sectors: 4 is smaller than one page"),
    ("write_buffer_sectors=999999999", "write_buffer_sectors: 999999999 is larger than"),
    ("mapping=hashed", "mapping: 'hashed' is not one of page, dftl"),
    ("gc_unit=plane", "gc_unit: 'plane' is not one of line, block"),
    # 59 MiB fits this geometry with page mapping, not with dftl's map line beside it
    ("ssd_size=59", "mapping: dftl's 15 translation pages and its map line do not fit"),
])
def test_bad_issue15_keys_fail_with_one_line(run_ftl_sim, setting, message):
    proc = run_ftl_sim(*SMALL, "--set", "mapping=dftl", "--set", setting, check=False)
    assert proc.returncode == 2 and message in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
