"""Read fio's JSON results (``fio --output-format=json``) into one row per result file.

fio may print warnings before the JSON object, so parsing starts at the first '{'. Jobs are
summed (IOPS, bandwidth); mean latency is the mean over every I/O, i.e. weighted by each
job's and direction's I/O count.
"""
import json
import pathlib

from .errors import AnalysisError

DIRECTIONS = ("read", "write", "trim")


def read_fio_json(path):
    """Parsed fio JSON of ``path``, or None when the file is not a fio result."""
    path = pathlib.Path(path)
    try:
        text = path.read_text(errors="replace")
    except OSError as error:
        raise AnalysisError(f"{path}: cannot read: {error}") from None
    start = text.find("{")
    if start < 0:
        return None
    try:
        document = json.loads(text[start:])
    except json.JSONDecodeError as error:
        if '"fio version"' in text or '"jobs"' in text:
            raise AnalysisError(f"{path}: line {text[:start].count(chr(10)) + error.lineno}: "
                                f"malformed fio JSON: {error.msg}") from None
        return None
    if not isinstance(document, dict) or not isinstance(document.get("jobs"), list):
        return None
    return document


def fio_options(document):
    """Job options of the first job over the global ones (fio's own precedence)."""
    options = dict(document.get("global options") or {})
    jobs = document.get("jobs") or []
    if jobs:
        options.update(jobs[0].get("job options") or {})
    return options


def fio_result(document, path="fio"):
    """IOPS, bandwidth (MiB/s) and mean latency (us) over all jobs of one fio result."""
    iops = bandwidth_kib = latency_sum_ns = ios = 0.0
    for job in document.get("jobs") or []:
        for direction in DIRECTIONS:
            stats = job.get(direction)
            if not isinstance(stats, dict):
                continue
            try:
                iops += float(stats.get("iops", 0.0))
                bandwidth_kib += float(stats.get("bw", 0.0))
                count = float(stats.get("total_ios", 0.0))
                latency = stats.get("lat_ns") or stats.get("clat_ns") or {}
                mean = float(latency.get("mean", 0.0))
            except (TypeError, ValueError):
                raise AnalysisError(f"{path}: job '{job.get('jobname', '?')}' {direction}: "
                                    "non-numeric iops/bw/latency") from None
            if count > 0:
                latency_sum_ns += mean * count
                ios += count
    return {
        "iops": iops,
        "bandwidth_mib_s": bandwidth_kib / 1024.0,
        "mean_latency_us": latency_sum_ns / ios / 1000.0 if ios else float("nan"),
    }
