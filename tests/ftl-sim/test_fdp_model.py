"""FDP against the textbook: ftl-sim's steady-state WAF on the hot/cold case held against
the analytic optimum (femu_analysis.fdp_model), one handle against placement=single, the
five-request trace where placement must not amplify, and two classes with disjoint
lifetimes. The figures are printed (pytest -s shows them; they are the bench's too)."""
import json

import pytest

from femu_analysis import fdp_model
from femu_lab.fdp import textbook as fdp_textbook

WRITES = 300_000        # per run; the steady state is the second N of fill + 2N

# The five-request trace's device: 1 LUN x 20 blocks x 16 pages of 4 KiB (a line is one
# block), 1 MiB logical = 256 pages; foreground GC keeps 1 block (5 % of 20).
TINY = ["--set", "secsz=512", "--set", "secs_per_pg=8", "--set", "pgs_per_blk=16",
        "--set", "blks_per_pl=20", "--set", "pls_per_lun=1", "--set", "luns_per_ch=1",
        "--set", "nchs=1", "--set", "ssd_size=1", "--set", "gc_thres_pcent=95",
        "--set", "gc_thres_pcent_high=95", "--set", "gc_mode=line"]
FIVE = "W 0 128 H\nW 0 128 H\nW 0 128 H\nW 128 1920 C\nW 128 1920 C\n"


@pytest.fixture(autouse=True)
def _in_repo(monkeypatch, repo_root):
    monkeypatch.chdir(repo_root)  # config paths are relative to the repository


def summary(run_ftl_sim, tmp_path, *args, name="s.json"):
    path = tmp_path / name
    run_ftl_sim(*args, "--summary", path)
    return json.loads(path.read_text())


def test_textbook_two_handles_reach_the_analytic_optimum(ftl_sim, repo_root):
    cases = {name: fdp_textbook.textbook_case(ftl_sim, name, WRITES, repo_root)
             for name in fdp_textbook.CASES}
    optimum = fdp_textbook.analytic_optimum(cases["one handle"].long.summary)
    print(f"\ntextbook hot/cold, steady state over {WRITES} writes after fill + {WRITES}:")
    for name, case in cases.items():
        handles = ", ".join("-" if w is None else f"{w:.3f}" for w in case.handle_wafs)
        print(f"  {name:30s} WAF {case.waf:.3f} (per handle {handles})")
    print(f"  {'analytic optimum':30s} WAF {optimum:.3f}")
    assert optimum == pytest.approx(1.437, abs=0.001)
    best = cases["two handles, gc_scope=global"].waf
    assert best == pytest.approx(optimum, rel=0.10)
    # each class on its own handle helps; weighing every handle's victims helps more
    assert best < cases["two handles, gc_scope=stream"].waf < cases["one handle"].waf


def test_one_handle_is_placement_single(ftl_sim, repo_root):
    args = fdp_textbook.textbook_args
    single = fdp_textbook.timed_run(ftl_sim, args(fdp_textbook.SINGLE, WRITES), repo_root)
    fdp = fdp_textbook.timed_run(ftl_sim, args(fdp_textbook.CASES["one handle"], WRITES),
                                 repo_root)
    for key in ("host_write_pages", "gc_write_pages", "gc_read_pages", "gc_runs",
                "erased_blocks", "waf", "ops", "mean_latency_us", "max_latency_us",
                "sim_time_s", "gc_victim_valid_pages", "victim_histogram", "wear"):
        assert single.summary[key] == fdp.summary[key], key
    assert single.summary["write_pointers"][0]["media_pages"] == \
        fdp.summary["write_pointers"][0]["media_pages"]


@pytest.mark.parametrize("name, placement", [
    ("placement=single", ["--set", "placement=single"]),
    ("two handles, gc_scope=global", ["--set", "placement=fdp", "--set", "fdp_ruhs=2"]),
])
def test_five_requests_amplify_nothing(run_ftl_sim, tmp_path, name, placement):
    trace = tmp_path / "five.trace"
    trace.write_text(FIVE)
    s = summary(run_ftl_sim, tmp_path, *TINY, *placement, "--trace", trace)
    print(f"\nfive-request trace, {name}: WAF {s['waf']:.2f}")
    assert s["host_write_pages"] == 3 * 16 + 2 * 240
    assert s["gc_write_pages"] == 0 and s["waf"] == 1.0


def test_five_requests_with_one_fdp_handle_and_with_the_stream_rule(run_ftl_sim, tmp_path):
    untagged = tmp_path / "untagged.trace"
    untagged.write_text(FIVE.replace(" H", "").replace(" C", ""))
    one = summary(run_ftl_sim, tmp_path, *TINY, "--set", "placement=fdp",
                  "--set", "fdp_ruhs=1", "--trace", untagged, name="one.json")
    assert one["waf"] == 1.0
    # gc_scope=stream collects only the writing handle's units: the cold writes find
    # none of their own reclaimable and move their own valid pages over and over
    trace = tmp_path / "five.trace"
    trace.write_text(FIVE)
    stream = summary(run_ftl_sim, tmp_path, *TINY, "--set", "placement=fdp",
                     "--set", "fdp_ruhs=2", "--set", "gc_scope=stream", "--trace", trace,
                     name="stream.json")
    print(f"\nfive-request trace: one handle WAF {one['waf']:.2f}, two handles with "
          f"gc_scope=stream WAF {stream['waf']:.2f}")
    assert stream["waf"] == pytest.approx(7.79, abs=0.005)


def disjoint_trace(path, writes, a_pages, b_pages, every, tags=True, only=None):
    """Region A (pages [0, a_pages)) and region B (the next b_pages) each rewritten
    sequentially over and over, interleaved: one B write after every `every` A writes.
    A is tagged C (handle 0), B H (handle 1); only='a' or 'b' keeps one region's."""
    lines, a, b = [], 0, 0
    for i in range(writes):
        to_b = only == "b" or (only != "a" and i % (every + 1) == every)
        if to_b:
            lines.append(f"W {(a_pages + b) * 8} 8" + (" H" if tags else ""))
            b = (b + 1) % b_pages
        else:
            lines.append(f"W {a * 8} 8" + (" C" if tags else ""))
            a = (a + 1) % a_pages
    path.write_text("\n".join(lines) + "\n")


def test_disjoint_lifetimes_separate_perfectly(ftl_sim, tmp_path, repo_root):
    base = ["--config", fdp_textbook.CONFIG, "--set", "mapping=page",
            "--set", "gc_mode=line", "--set", "placement=fdp"]
    writes = 200_000
    cases = {  # name: (handles, tags, only)
        "A alone": (1, False, "a"), "B alone": (1, False, "b"),
        "two handles": (2, True, None), "one handle": (1, False, None),
    }
    wafs = {}
    for name, (handles, tags, only) in cases.items():
        def args(n, handles=handles, tags=tags, only=only, name=name):
            trace = tmp_path / f"{name.replace(' ', '-')}-{n}.trace"
            disjoint_trace(trace, n, 12288, 12288, 3, tags, only)
            return [*base, "--set", f"fdp_ruhs={handles}", "--trace", trace]
        wafs[name] = fdp_textbook.steady_state(ftl_sim, name, args, writes, repo_root).waf
    print("\ndisjoint lifetimes (A and B rewritten sequentially, 3 A writes to 1 B):")
    for name, waf in wafs.items():
        print(f"  {name:12s} WAF {waf:.3f}")
    alone = min(wafs["A alone"], wafs["B alone"])
    assert alone == pytest.approx(1.0, abs=0.01)
    assert wafs["two handles"] == pytest.approx(alone, rel=0.05)
    assert wafs["one handle"] > 1.15 * wafs["two handles"]


def test_model_spare_matches_the_geometry(run_ftl_sim, tmp_path):
    s = summary(run_ftl_sim, tmp_path, "--config", fdp_textbook.CONFIG,
                "--set", "mapping=page", "--io-size", "4k")
    assert fdp_model.spare_of(s) == 6592
    assert fdp_model.spare_of(s, open_units=2) == 6464
    assert fdp_model.hot_cold_optimum(24576, 0.1, 0.9, 6592)[0] == pytest.approx(1.437,
                                                                                 abs=0.001)
