"""Every figure the documents tie to a command reproduces from it: the command runs as
printed (ftl-sim, or a femu-lab sweep with the sim engine) and each quoted figure is
within its stated tolerance of what it gives. The annotation format is in
tests/support/doc_figures.py. Figures a test cannot run here are annotated by-hand, with
the reason, and counted apart.

One run per distinct command for the whole session (several figures share one).
"""
import csv
import json
import os
import re
import shlex
import subprocess
import sys

import pytest

from doc_blocks import REPO, doc_files
from doc_figures import annotations, linked_docs, lookup, normalised, printed_commands

pytestmark = pytest.mark.docs

FTL_SIM = "build/release/tools/ftl-sim/ftl-sim"
LAB = "scripts/femu-lab"
WRITES = {"--summary", "--stats-dir", "--out", "-o"}   # options naming what a run writes
TIMEOUT_S = 600

ALL = [found for path in doc_files() for found in annotations(path)]
RUN = [found for found in ALL if found.cmd is not None]


def _build_dir():
    return os.environ.get("FEMU_BUILD_DIR", str(REPO / "build" / "release"))


def _redirected(words, folder):
    """WORDS with every path a run would write moved under FOLDER."""
    out, index = [], 0
    while index < len(words):
        word = words[index]
        if word in WRITES and index + 1 < len(words):
            out += [word, str(folder / f"{word.lstrip('-')}-{index}")]
            index += 2
            continue
        out.append(word)
        index += 1
    return out


def _ftl_sim(words, folder):
    summary = folder / "doc-summary.json"
    words = [arg for arg in words]
    if "--summary" in words:
        words[words.index("--summary") + 1] = str(summary)
    else:
        words += ["--summary", str(summary)]
    proc = subprocess.run([os.path.join(_build_dir(), "tools/ftl-sim/ftl-sim"), *words],
                          cwd=REPO, capture_output=True, text=True, timeout=TIMEOUT_S)
    assert proc.returncode == 0, proc.stderr
    return json.loads(summary.read_text())


def _femu_lab(words):
    """Run `femu-lab WORDS` from the repository; it must succeed."""
    proc = subprocess.run([sys.executable, "-m", "femu_lab", *words], cwd=REPO,
                          capture_output=True, text=True, timeout=TIMEOUT_S,
                          env={**os.environ, "FEMU_BUILD_DIR": _build_dir()})
    assert proc.returncode == 0, proc.stderr
    return proc


def _sweep(words, folder):
    assert "--engine" in words and words[words.index("--engine") + 1] == "sim", \
        "only sweeps with --engine sim run here"
    out = folder / "sweep"
    _femu_lab([*words, "--out", str(out)])
    with open(out / "sweep.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    swept = [key for key in rows[0] if key not in ("status",)]
    return {f"{key}={row[key]}": {column: value for column, value in row.items()
                                  if column not in ("status", key)}
            for row in rows for key in swept}


def _age(words, folder):
    """femu-lab age's figures, from its last line: 'aged NAME in T s of host time (S s
    simulated): ...; WAF by pass W1, W2; state PATH (M MiB)'."""
    proc = _femu_lab(words)
    text = proc.stdout + proc.stderr
    simulated = re.search(r"\(([0-9.]+) s simulated\)", text)
    passes = re.search(r"WAF by pass ([0-9., ]+);", text)
    size = re.search(r"\(([0-9.]+) MiB\)", text)
    assert simulated and passes and size, f"femu-lab age printed no figures: {text}"
    return {"simulated_s": float(simulated[1]), "state_mib": float(size[1]),
            "waf_pass": [float(value) for value in passes[1].split(",")]}


def _dftl_study(words, folder):
    """femu-lab dftl-study's table: TRACE/BUILD/COLUMN of its dftl-study.csv."""
    _femu_lab(words)
    table = {}
    with open(os.path.join(words[words.index("-o") + 1], "dftl-study.csv"), newline="") as f:
        for row in csv.DictReader(f):
            table.setdefault(row["trace"], {})[row["build"]] = row
    return table


def _mapping_lab(words, folder):
    """femu-lab mapping-lab's tables: SCHEME/CACHE/WORKLOAD/COLUMN of mapping-lab.csv
    (CACHE its cache column, blanks as '-': off, lru-512) and, with --cache-sweep,
    sweep/POLICY/PAGES/COLUMN of cache_sweep.csv."""
    if "-o" not in words and "--out" not in words:
        words = [*words, "-o", str(folder / "lab")]
    _femu_lab(words)
    out = words[words.index("-o" if "-o" in words else "--out") + 1]
    table = {}
    with open(os.path.join(out, "mapping-lab.csv"), newline="") as f:
        for row in csv.DictReader(f):
            cells = table.setdefault(row["scheme"], {}).setdefault(
                row["cache"].replace(" ", "-"), {})
            cells[row["workload"]] = row
    if os.path.exists(os.path.join(out, "cache_sweep.csv")):
        with open(os.path.join(out, "cache_sweep.csv"), newline="") as f:
            for row in csv.DictReader(f):
                table.setdefault("sweep", {}).setdefault(row["policy"], {})[
                    row["cache_pages"]] = row
    return table


def _presets(words, folder):
    """femu-lab presets' table: PRESET/FIGURE/COLUMN of its presets.csv."""
    _femu_lab(words)
    table = {}
    out = words[words.index("-o" if "-o" in words else "--out") + 1]
    with open(os.path.join(out, "presets.csv"), newline="") as f:
        for row in csv.DictReader(f):
            table.setdefault(row["preset"], {})[row["figure"]] = row
    return table


def _energy(words, folder):
    """femu-lab energy's tables. waf: SETTING/WORKLOAD/COLUMN of energy-waf.csv, SETTING
    with '-' for its blank (`single-greedy/rand-100/j_per_gib_written`), and
    target/WAF/COLUMN of energy-waf-targets.csv (`target/2.5/j_per_gib_written`); apst:
    SETTING/COLUMN of energy-apst.csv (`aggressive/p99_latency_us`)."""
    _femu_lab(words)
    out = words[words.index("-o" if "-o" in words else "--out") + 1]
    table = {}
    if words[1] == "waf":
        with open(os.path.join(out, "energy-waf.csv"), newline="") as f:
            for row in csv.DictReader(f):
                table.setdefault(row["setting"].replace(" ", "-"), {})[row["workload"]] = row
        with open(os.path.join(out, "energy-waf-targets.csv"), newline="") as f:
            table["target"] = {row["target_waf"]: row for row in csv.DictReader(f)}
    else:
        with open(os.path.join(out, "energy-apst.csv"), newline="") as f:
            table = {row["setting"]: row for row in csv.DictReader(f)}
    return table


@pytest.fixture(scope="session")
def run_documented(tmp_path_factory):
    """run(cmd) -> the command's result (ftl-sim's summary, a sweep's table), once."""
    results = {}

    def run(cmd):
        if cmd not in results:
            words = shlex.split(normalised(cmd))
            folder = tmp_path_factory.mktemp("doc-run")
            if words[0] == FTL_SIM:
                results[cmd] = _ftl_sim(_redirected(words[1:], folder), folder)
            elif words[:2] == [LAB, "sweep"]:
                results[cmd] = _sweep(_redirected(words[1:], folder), folder)
            elif words[:2] == [LAB, "age"]:
                results[cmd] = _age(_redirected(words[1:], folder), folder)
            elif words[:2] == [LAB, "dftl-study"]:
                results[cmd] = _dftl_study(_redirected(words[1:], folder), folder)
            elif words[:2] == [LAB, "mapping-lab"]:
                results[cmd] = _mapping_lab(_redirected(words[1:], folder), folder)
            elif words[:2] == [LAB, "presets"]:
                results[cmd] = _presets(_redirected(words[1:], folder), folder)
            elif words[:2] == [LAB, "energy"]:
                results[cmd] = _energy(_redirected(words[1:], folder), folder)
            else:
                pytest.fail(f"no runner for {words[0]} (ftl-sim, femu-lab sweep, age, "
                            "dftl-study, mapping-lab, presets and energy run here)")
        return results[cmd]
    return run


def test_annotations_are_well_formed():
    assert ALL, "no figure annotations found"
    for found in ALL:
        assert (found.cmd is None) != (found.by_hand is None), \
            f"{found.where}: a figure has cmd= or by-hand=, one of them"
        assert found.figures, f"{found.where}: no figure"
        for figure in found.figures:   # the quoted figure is what the paragraph prints
            assert figure.shown in found.paragraph, \
                f"{found.where}: {figure.key}: '{figure.shown}' is not in the text before"


@pytest.mark.parametrize("found", RUN,
                         ids=lambda one: one.where)
def test_figure_reproduces(found, run_documented):
    places = [found.path, *linked_docs(found)]
    assert any(normalised(found.cmd) in printed_commands(path) for path in places), \
        f"{found.where}: the command is not printed in {[str(p) for p in places]}"
    result = run_documented(found.cmd)
    wrong = []
    for figure in found.figures:
        measured = float(lookup(result, figure.key))
        if not figure.holds(measured):
            wrong.append(f"{figure.key}: the document says {figure.shown}, the command "
                         f"gives {measured:g} (tolerance {figure.tolerance:g})")
    assert not wrong, f"{found.where}: " + "; ".join(wrong)


def test_count_of_figures(capsys):
    """The count, printed for the test log (tests/run.sh -m docs -s shows it)."""
    run = sum(len(found.figures) for found in RUN)
    by_hand = sum(len(found.figures) for found in ALL if found.by_hand)
    with capsys.disabled():
        print(f"\ndoc figures: {run} checked by running {len(RUN)} annotations' commands, "
              f"{by_hand} annotated by-hand (not run here, each with its reason)")
    assert run > 0


def test_figure_values_and_tolerances():
    from doc_figures import parse_figure
    latency = parse_figure("p99_latency_us", "3.0ms±0.05")
    assert (latency.value, latency.tolerance) == (3000.0, 50.0)
    assert latency.holds(3039.2) and not latency.holds(3060)
    iops = parse_figure("iops", "8,212±1%")
    assert iops.shown == "8,212" and iops.holds(8294) and not iops.holds(8300)
    assert parse_figure("iops", "15k±1").value == 15000
    with pytest.raises(ValueError, match="only on a key in microseconds"):
        parse_figure("waf", "2ms±1")
    with pytest.raises(ValueError, match="expected VALUE±TOL"):
        parse_figure("waf", "about 8")


def test_a_sweep_figure_is_read_from_its_table(run_documented):
    """The runner of `scripts/femu-lab sweep ... --engine sim` figures (the hot/cold lab's
    form: hot_threshold=50/waf=...), on a sweep small enough to take a second."""
    cmd = (f"{LAB} sweep --workload gc-randwrite --set luns_per_ch=2 --set pgs_per_blk=64 "
           "--set ssd_size=48 --set gc_thres_pcent=70,80 --engine sim --runtime 10")
    result = run_documented(cmd)
    assert set(result) >= {"gc_thres_pcent=70", "gc_thres_pcent=80"}
    assert float(lookup(result, "gc_thres_pcent=80/waf")) >= 1.0
    assert float(lookup(result, "gc_thres_pcent=70/gc_erased_blocks")) > 0


def test_a_hot_cold_sweep_annotation_parses(tmp_path):
    """The hot/cold lab's form: a sweep's rows by setting, the figures as quoted."""
    from doc_figures import annotations
    page = tmp_path / "page.md"
    page.write_text(
        "`zipf:1.2` goes from WAF 5.0 to 2.6 ([a note](other.md)).\n"
        '<!-- figure cmd="scripts/femu-lab sweep --workload zipf:1.2 --set '
        'placement=hotcold --set hot_threshold=0,6,20,50 --engine sim" '
        "hot_threshold=0/waf=5.0±0.1 hot_threshold=50/waf=2.6±0.1 -->\n"
        "```text\n<!-- figure by-hand=\"an example in a block is no figure\" x=1±0 -->\n```\n")
    (found,) = annotations(page)
    assert found.cmd.startswith("scripts/femu-lab sweep") and found.line == 2
    assert [(figure.key, figure.shown) for figure in found.figures] == [
        ("hot_threshold=0/waf", "5.0"), ("hot_threshold=50/waf", "2.6")]
    assert lookup({"hot_threshold=50": {"waf": "2.611"}}, found.figures[1].key) == "2.611"
