"""femu_lab.run.figures_file: the JSON a report keeps in the run folder (kv.json, fdp.json),
written and read back the way kv_report and fdp_report both use it."""
import json

from femu_lab.run import fdp_report, figures_file, kv_report


def test_save_writes_indented_json_and_returns_the_figures(tmp_path):
    figures = {"waf": 1.5, "handles": [{"handle": 0}]}
    assert figures_file.save(tmp_path, "x.json", figures) is figures
    text = (tmp_path / "x.json").read_text()
    assert text == json.dumps(figures, indent=2) + "\n"


def test_save_of_none_writes_nothing(tmp_path):
    assert figures_file.save(tmp_path, "x.json", None) is None
    assert not (tmp_path / "x.json").exists()


def test_text_formats_what_the_file_holds_or_none_without_it(tmp_path):
    assert figures_file.text(tmp_path, "x.json", lambda f: "never") is None
    (tmp_path / "x.json").write_text('{"ops": 3}\n')
    assert figures_file.text(tmp_path, "x.json", lambda f: f"ops {f['ops']}") == "ops 3"


def test_both_reports_print_nothing_without_their_file(tmp_path):
    assert kv_report.report_text(tmp_path) is None
    assert fdp_report.report_text(tmp_path) is None


def test_fdp_report_text_reads_fdp_json(tmp_path):
    result = {"log": {"hbmw_bytes": 1 << 20, "mbmw_bytes": 3 << 19, "mbe_bytes": 0,
                      "waf": 1.5},
              "csv": {"waf": 1.25, "handles": [
                  {"handle": 1, "host_pages": 100, "gc_pages": 25, "media_pages": 125,
                   "media_bytes": 125 * 4096, "waf": 1.25},
                  {"handle": 2, "host_pages": 0, "gc_pages": 0, "media_pages": 0,
                   "media_bytes": 0, "waf": None}]}}
    figures_file.save(tmp_path, fdp_report.FDP_FILE, result)
    text = fdp_report.report_text(tmp_path)
    # MBMW 1.5 MiB over HBMW 1.0 MiB; handle 2 took no media writes: no line
    assert text.splitlines() == [
        "FDP: WAF 1.500 from the FDP statistics log (MBMW 1.5 MiB / HBMW 1.0 MiB), 1.250 "
        "from stats.csv over the window",
        "  handle 1: media 0.5 MiB (100 host + 25 GC pages), WAF 1.250"]
