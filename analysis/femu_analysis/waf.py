"""Write amplification, the one definition in Python (the C side has its own in
hw/femu/ftl): pages the flash programmed for host writes and for GC moves, per page the
host wrote."""


def waf(host_pages, moved_pages):
    """(host_pages + moved_pages) / host_pages as a float; None (undefined) when the host
    wrote nothing. Takes plain numbers or pandas sums."""
    return float((host_pages + moved_pages) / host_pages) if host_pages > 0 else None
