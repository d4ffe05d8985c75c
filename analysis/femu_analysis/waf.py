"""Write amplification, the one definition in Python (the C side has its own in
hw/femu/ftl): pages the flash programmed per page the host wrote. Without DFTL or a write
buffer that is host pages plus GC moves; with them the flash programs are counted
themselves (buffer flushes, GC and fallback moves, translation pages and map GC moves,
see flash_programs)."""

# stats.csv columns whose sum is every flash page program (hw/femu/ftl/core/ftl_query.c, ftl_waf)
PROGRAM_COLUMNS = ("nand_user_programs", "nand_gc_programs", "map_writes",
                   "map_gc_moved_pages", "fallback_pages")


def waf(host_pages, moved_pages):
    """(host_pages + moved_pages) / host_pages as a float; None (undefined) when the host
    wrote nothing. Takes plain numbers or pandas sums."""
    return float((host_pages + moved_pages) / host_pages) if host_pages > 0 else None


def flash_programs(rows):
    """Every flash page program in these stats.csv rows, or None when they predate the
    DFTL counters (then host + GC-moved pages is the whole story)."""
    if not set(PROGRAM_COLUMNS) <= set(rows):
        return None
    return float(sum(rows[column].sum() for column in PROGRAM_COLUMNS))
