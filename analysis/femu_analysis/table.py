"""Summaries as a table: aligned text for the terminal, Markdown for summary.md."""

COLUMNS = (  # (header, path into the summary dict, format)
    ("run", ("run",), "{}"),
    ("window s", None, None),
    ("IOPS mean", ("iops", "mean"), "{:.0f}"),
    ("IOPS p5", ("iops", "p5"), "{:.0f}"),
    ("IOPS p50", ("iops", "p50"), "{:.0f}"),
    ("IOPS p99", ("iops", "p99"), "{:.0f}"),
    ("MiB/s mean", ("throughput_mib_s", "mean"), "{:.1f}"),
    ("erased blocks", ("erased_blocks", "total"), "{:.0f}"),
    ("fold erased blocks", ("erased_blocks", "fold"), "{:.0f}"),
    ("moved pages", ("moved_pages", "total"), "{:.0f}"),
    ("WAF", ("waf",), "{:.3f}"),
    ("WAF host", ("waf_host",), "{:.3f}"),
    ("WAF GC", ("waf_gc",), "{:.3f}"),
    ("WAF fold", ("waf_fold",), "{:.3f}"),
    ("WAF map", ("waf_map",), "{:.3f}"),
    ("WAF copy", ("waf_copy",), "{:.3f}"),
    # what a WAF below 1 needs beside it: host pages the write buffer never programmed
    ("buffer absorbed pages", ("ftl", "buf_absorbed_pages"), "{:.0f}"),
    ("buffer pending pages", ("ftl", "buf_pending_pages"), "{:.0f}"),
    ("CMT hit rate", ("ftl", "cmt_hit_rate"), "{:.3f}"),
    ("map writes", ("ftl", "map_writes"), "{:.0f}"),
    ("NAND read", ("nand", "NAND_read"), "{:.0f}"),
    ("NAND write", ("nand", "NAND_write"), "{:.0f}"),
    ("NAND cpbk", ("nand", "NAND_cpbk"), "{:.0f}"),
    ("CH_util", ("nand", "ch_util_mean"), "{:.2f}"),
)


# Columns shown only when some summary has a figure other than 0 there (the parts of WAF
# and of erased blocks, and the write buffer's pages, that most drives never have).
WHEN_NOT_ZERO = ("fold erased blocks", "WAF fold", "WAF map", "WAF copy",
                 "buffer absorbed pages", "buffer pending pages")


def _lookup(summary, path):
    value = summary
    for key in path:
        value = value.get(key) if isinstance(value, dict) else None
    return value


def rows(summaries):
    """Header and one row of strings per summary; '-' where a figure is unknown."""
    columns = [column for column in COLUMNS if column[0] not in WHEN_NOT_ZERO or
               any(_lookup(summary, column[1]) for summary in summaries)]
    header = [name for name, _, _ in columns]
    body = []
    for summary in summaries:
        row = []
        for name, path, fmt in columns:
            if path is None:
                window = summary["window"]
                row.append(f"{window['start_s']:g}-{window['end_s']:g}")
                continue
            value = _lookup(summary, path)
            row.append("-" if value is None else fmt.format(value))
        body.append(row)
    return header, body


def text_table(summaries):
    header, body = rows(summaries)
    widths = [max(len(line[i]) for line in [header, *body]) for i in range(len(header))]
    lines = ["  ".join(cell.ljust(width) if i == 0 else cell.rjust(width)
                       for i, (cell, width) in enumerate(zip(line, widths)))
             for line in [header, *body]]
    return "\n".join(lines)


def markdown_table(summaries):
    header, body = rows(summaries)
    lines = ["| " + " | ".join(header) + " |",
             "|" + "|".join(["---"] + ["---:"] * (len(header) - 1)) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in body]
    titles = [f"- **{summary['run']}**: {summary['title']}; window {summary['window']['source']}"
              f"; WAF from {summary.get('waf_source', '-')}"
              f"; counts from {summary.get('counts_from', '-')}" for summary in summaries]
    return "\n".join(["# femu run summary", "", *lines, "", *titles, ""])
