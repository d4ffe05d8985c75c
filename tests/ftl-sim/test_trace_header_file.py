"""A recorded trace's second line names the header that defines its format: that file
must exist (issue 41: it named hw/femu/ftl/io_trace.h, which does not). ftl-sim and the
device write the line with the same code (hw/femu/ftl/obs/io_trace_writer.c)."""
SMALL = ["--config", "conf/lab-1g.conf", "--set", "luns_per_ch=2", "--set", "pgs_per_blk=64",
         "--set", "ssd_size=48"]


def test_a_recorded_trace_names_a_header_that_exists(run_ftl_sim, repo_root, tmp_path):
    out = tmp_path / "r.trace"
    run_ftl_sim(*SMALL, "--io-size", "64k", "--trace-out", out)
    comment = out.read_text().splitlines()[1]
    assert comment.startswith("# femu I/O trace recorded by ftl-sim; format: "), comment
    named = comment.split("format: ", 1)[1]
    assert named.endswith(".h") and (repo_root / named).is_file(), named
