"""Write amplification, the one definition in Python (README's; the C side's is ftl_waf in
hw/femu/ftl/core/ftl_query.c, its parts ftl_waf_programs, and the two agree): every page the
flash programmed over the pages the host wrote. The programs come in parts, each its own
counters' sum:

    host   host data programmed (SLC or normal mode; with a write buffer, its flushes)
    gc     pages data GC moved, and the stream fallback's moves
    fold   pages folded from SLC units into normal ones (slc_cache=on)
    map    translation pages written and moved by map GC (mapping=dftl)
    copy   Copy's programs and copybacks (its destination pages count as host pages)

so WAF = waf_host + waf_gc + waf_fold + waf_map + waf_copy. The counters are stats.csv's
column names (Copy's come from nand.csv: with_copy_counts); a column a file lacks counts 0,
and files from before the flash program counters fall back to host + GC-moved pages.

Erased blocks, likewise, are those GC erased plus those folding and the stream fallback
erased (erased_parts); GC runs are every collection, data GC's and the fallback's victims
(collections), as gc_victims.csv counts them.

A write buffer's absorbed pages (host pages a later write replaced in the buffer: one
program for both) and the pages still pending in it at the end count as host pages and
were never programmed: with a buffer the WAF can be below 1, and buffer_figures gives the
columns that say why (stats.csv's, STATS.md).
"""
from .errors import AnalysisError

PARTS = ("host", "gc", "fold", "map", "copy")
PART_COLUMNS = {
    "host": ("nand_user_programs",),
    "gc": ("nand_gc_programs", "fallback_pages"),
    "fold": ("slc_folded_pages",),
    "map": ("map_writes", "map_gc_moved_pages"),
    "copy": ("nand_copy_programs", "nand_copybacks"),
}
# What the older stats.csv (or a VM-era file) has in place of a part's counters.
OLD_PART_COLUMNS = {"host": ("host_write_pages",), "gc": ("gc_moved_pages",)}
HOST_COLUMNS = ("host_write_pages", "copy_pages")
ERASE_PARTS = {"gc": "gc_erased_blocks", "fold": "slc_fold_erases",
               "fallback": "fallback_erased_blocks"}
# Every data collection: data GC's victims and the stream fallback's (placement=stream).
COLLECTION_COLUMNS = ("gc_runs", "fallback_lines")
# Every counter the functions below read: what a caller sums.
COUNTER_COLUMNS = tuple(dict.fromkeys(
    [c for columns in PART_COLUMNS.values() for c in columns] +
    [c for columns in OLD_PART_COLUMNS.values() for c in columns] +
    list(HOST_COLUMNS) + list(ERASE_PARTS.values()) + list(COLLECTION_COLUMNS)))
# How the parts are named where they are printed.
PART_LABELS = {"host": "host", "gc": "GC", "fold": "fold", "map": "map", "copy": "copy"}


def waf(host_pages, moved_pages):
    """(host_pages + moved_pages) / host_pages as a float; None (undefined) when the host
    wrote nothing. For files that hold only those two counts (WAFData.csv, FDP handles)."""
    return float((host_pages + moved_pages) / host_pages) if host_pages > 0 else None


def sums(rows, columns=COUNTER_COLUMNS):
    """{column: total} over the rows (a DataFrame, or a list of csv.DictReader rows) for
    each of columns the rows have; empty fields count 0."""
    if hasattr(rows, "columns"):
        return {c: float(rows[c].fillna(0).sum()) for c in columns if c in rows.columns}
    present = [c for c in columns if rows and c in rows[0]]
    return {c: float(sum(float(r.get(c) or 0) for r in rows)) for c in present}


# nand.csv's columns that give Copy's counters (stats.csv has none of them).
NAND_COLUMNS = ("NAND_write", "NAND_cpbk", "copy_pages", "zone_write_pages")


def with_copy_counts(counts, nand_counts):
    """counts (stats.csv totals) with Copy's counters from nand.csv's totals over the same
    seconds: copybacks are NAND_cpbk; Copy's other programs are what NAND_write holds
    beyond every other part and the zone writes (which are no device WAF's)."""
    if not set(NAND_COLUMNS) <= set(nand_counts):
        return counts
    others = sum(program_parts(counts).values())
    programs = nand_counts["NAND_write"] - nand_counts["zone_write_pages"] - others
    if programs < 0:   # the two files do not cover the same seconds: no WAF from them
        raise AnalysisError(f"nand.csv's NAND_write ({nand_counts['NAND_write']:.0f}) is "
                            f"below stats.csv's programs ({others:.0f}) over the same rows")
    return {**counts, "copy_pages": nand_counts["copy_pages"],
            "nand_copybacks": nand_counts["NAND_cpbk"], "nand_copy_programs": programs}


def program_parts(counts):
    """{part: flash page programs} from counter totals (missing counters count 0)."""
    parts = {}
    for part, columns in PART_COLUMNS.items():
        if not any(c in counts for c in columns) and part in OLD_PART_COLUMNS:
            columns = OLD_PART_COLUMNS[part]
        parts[part] = float(sum(counts.get(c, 0.0) for c in columns))
    return parts


def waf_parts(counts):
    """The WAF and its parts from counter totals (e.g. sums(rows)): {"waf", "waf_host",
    "waf_gc", "waf_fold", "waf_map", "waf_copy", "flash_programs", "host_write_pages"};
    the WAF figures None (undefined) when the host wrote nothing."""
    host = float(sum(counts.get(c, 0.0) for c in HOST_COLUMNS))
    parts = program_parts(counts)
    programs = sum(parts.values())
    out = {"waf": programs / host if host > 0 else None}
    for part in PARTS:
        out[f"waf_{part}"] = parts[part] / host if host > 0 else None
    out["flash_programs"] = programs
    out["host_write_pages"] = host
    return out


# stats.csv's write-buffer columns (STATS.md; only with a buffer): page counts over a span,
# and the gauge of the pages still in the buffer (not on flash) at a row's end.
BUFFER_COUNT_COLUMNS = ("buf_absorbed_pages", "buf_flushed_pages", "buf_dropped_pages")
BUFFER_GAUGE_COLUMN = "buf_pending_pages"


def buffer_figures(stats, rows=None):
    """What explains a WAF below 1 over a span of stats.csv (the DataFrame stats; rows, its
    rows of the span as series.within gives them, default all): the span's sums of
    BUFFER_COUNT_COLUMNS, "buf_pending_pages" (the pages in the buffer at the span's end,
    host pages not yet programmed: its last row's gauge) and "buf_pending_pages_start"
    (the row before the span's, None when the span starts with the file); so the span's
    host pages through the buffer = absorbed + flushed + dropped + pending - pending at
    the start. {} when the file has no buffer columns (no write buffer, or an older file)
    or the span no row."""
    rows = stats if rows is None else rows
    if stats is None or BUFFER_GAUGE_COLUMN not in stats.columns or not len(rows):
        return {}
    out = sums(rows, BUFFER_COUNT_COLUMNS)
    out[BUFFER_GAUGE_COLUMN] = float(rows[BUFFER_GAUGE_COLUMN].iloc[-1])
    before = stats.loc[:rows.index[0]].iloc[:-1]
    out["buf_pending_pages_start"] = float(before[BUFFER_GAUGE_COLUMN].iloc[-1]) \
        if len(before) else None
    return out


def describe_buffer(figures):
    """'buffer: 16624 host pages absorbed, 1024 pending at the end (never programmed)'
    (buffer_figures: the end of its span), or '..., none pending at the end (flushed)';
    '' without a buffer."""
    if BUFFER_GAUGE_COLUMN not in figures:
        return ""
    pending = figures[BUFFER_GAUGE_COLUMN]
    end = f"{pending:.0f} pending at the end (never programmed)" if pending \
        else "none pending at the end (flushed)"
    return f"buffer: {figures.get('buf_absorbed_pages', 0):.0f} host pages absorbed, {end}"


def collections(counts):
    """{"gc_collections", "data_gc_runs", "fallback_victims"} from counter totals: every
    data collection, data GC's victims (gc_runs) and the defragmenting fallback's
    (fallback_lines, 0 when the counts lack it)."""
    runs, fallback = (float(counts.get(column, 0.0)) for column in COLLECTION_COLUMNS)
    return {"gc_collections": runs + fallback, "data_gc_runs": runs,
            "fallback_victims": fallback}


def erased_parts(counts):
    """{"erased_blocks", "gc_erased_blocks", "fold_erased_blocks",
    "fallback_erased_blocks"}: blocks erased, by whom."""
    parts = {part: float(counts.get(column, 0.0)) for part, column in ERASE_PARTS.items()}
    out = {"erased_blocks": sum(parts.values())}
    out.update({f"{part}_erased_blocks": value for part, value in parts.items()})
    return out


def describe(figures, digits=2, host=True):
    """'1.31 (host 1.00, fold 0.31)': the WAF of waf_parts and its parts that are not 0
    (host always, unless host=False: a short line); '-' when undefined."""
    if figures.get("waf") is None:
        return "-"
    shown = [f"{PART_LABELS[part]} {figures[f'waf_{part}']:.{digits}f}" for part in PARTS
             if figures.get(f"waf_{part}") is not None and
             ((host and part == "host") or (part != "host" and figures[f"waf_{part}"]))]
    return f"{figures['waf']:.{digits}f}" + (f" ({', '.join(shown)})" if shown else "")


def describe_erased(figures):
    """'GC 96', or 'GC 0 + fold 148' when folding erased blocks too, '+ fallback N' when
    the stream fallback did (erased_parts)."""
    text = f"GC {figures.get('gc_erased_blocks') or 0:.0f}"
    for part in ("fold", "fallback"):
        if figures.get(f"{part}_erased_blocks"):
            text += f" + {part} {figures[f'{part}_erased_blocks']:.0f}"
    return text
