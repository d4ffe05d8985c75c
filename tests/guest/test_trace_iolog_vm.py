"""A real-world trace replayed in the guest (`femu-lab run --trace`) and in ftl-sim: the
same few hundred requests, as a fio iolog, give the device the same host counters in
both. The guest replays them back to back (--trace-timing fast) with fio; ftl-sim in
closed-loop order (femu-trace converts the iolog to femu's trace). Counts, not rates: the two take the requests at different speeds.

The guest's kernel reads a few pages when it scans the namespace at boot: the run records
what the device served (--record), and those reads, before the workload phase, are taken
off the device's totals."""
import pandas as pd
import pytest

from femu_fixtures import SMALL_SSD, femu_qemu  # noqa: F401  (96 MiB logical; tests/support)
from femu_lab import cli as lab_cli
from femu_lab.traces import femu_trace as femu_trace_tool, generate

pytestmark = pytest.mark.vm

SMALL = [f"--set={key}={value}" for key, value in SMALL_SSD.items()]
RECORDS, SEED, FOOTPRINT = 300, 11, 32 << 20
COUNTERS = ("host_read_pages", "host_write_pages", "host_trim_pages", "host_read_bytes",
            "host_write_bytes", "host_write_cmds", "nand_user_programs", "nand_erases")


def totals(stats_dir):
    stats = pd.read_csv(stats_dir / "stats.csv")
    return {name: int(stats[name].sum()) for name in COUNTERS}


def reads_before_workload(recording):
    """Pages, bytes and commands of the reads the device served before the workload
    phase (version-2 trace: R t lba nsect nsid; P t name)."""
    pages = sectors = commands = 0
    page_sectors = SMALL_SSD["secs_per_pg"] * SMALL_SSD["secsz"] // 512
    for fields in (line.split() for line in recording.read_text().splitlines()):
        if fields[:1] == ["P"] and fields[2] == "workload":
            break
        if fields[:1] == ["R"]:
            lba, count = int(fields[2]), int(fields[3])
            pages += (lba + count - 1) // page_sectors - lba // page_sectors + 1
            sectors += count
            commands += 1
    return pages, sectors * 512, commands


def test_a_fio_iolog_replayed_in_the_guest_counts_as_in_ftl_sim(femu_qemu, image, femu_trace,
                                                                run_ftl_sim, capsys, tmp_path):
    trace = tmp_path / "mix.iolog"
    counts = generate.generate(trace, "fio-iolog", RECORDS, SEED, FOOTPRINT, progress=False)
    folder = tmp_path / "vm"
    # femu_qemu resolved: a QEMU named by its own path is used as it is (no rebuild check)
    status = lab_cli.main(["run", *SMALL, "--trace", str(trace), "--trace-timing", "fast",
                           "--record", "--qemu", str(femu_qemu.resolve()),
                           "--out", str(folder)])
    out, err = capsys.readouterr()
    print(err[-3000:])
    assert status == 0, err[-2000:]
    assert out.strip().splitlines()[-1] == str(folder)

    vm = totals(folder)
    boot_pages, boot_bytes, _ = reads_before_workload(folder / "io.trace")
    vm["host_read_pages"] -= boot_pages
    vm["host_read_bytes"] -= boot_bytes

    # The same requests for ftl-sim: femu's trace without times, replayed closed-loop.
    requests = tmp_path / "mix.femu"
    proc = femu_trace_tool.run(femu_trace_tool.convert_args(
        trace, requests, "femu", trace_format="fio", trace_time="closed-loop"))
    assert proc.returncode == 0, proc.stderr
    sim = tmp_path / "sim"
    run_ftl_sim("--config", folder / "config.conf", "--trace", requests, "--replay",
                "closed", "--stats-dir", sim)
    print(f"\nVM {vm}\nftl-sim {totals(sim)}")
    assert vm == totals(sim)
    assert vm["host_write_bytes"] == counts.bytes_written
    assert vm["host_read_bytes"] == counts.bytes_read
    assert vm["host_write_cmds"] == counts.writes
