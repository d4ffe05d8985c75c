"""Delta debugging (ddmin) over a failing record list: the shortest list found that
still fails the same way, within a time budget. First whole batches (a batch ends with
a sync), then single records."""
import time
from typing import Callable, List, Optional

Test = Callable[[List[dict]], bool]     # True: this list still fails the same way


def _batches(records: List[dict]) -> List[List[dict]]:
    groups, current = [], []
    for rec in records:
        current.append(rec)
        if rec["a"] == "sync":
            groups.append(current)
            current = []
    if current:
        groups.append(current)
    return groups


def _ddmin(items: list, fails: Callable[[list], bool], out_of_time: Callable[[], bool]) -> list:
    n = 2
    while len(items) >= 2 and not out_of_time():
        chunk = max(1, len(items) // n)
        reduced = False
        for start in range(0, len(items), chunk):
            if out_of_time():
                break
            candidate = items[:start] + items[start + chunk:]
            if candidate and fails(candidate):
                items = candidate
                n = max(n - 1, 2)
                reduced = True
                break
        if not reduced:
            if chunk == 1:
                break
            n = min(n * 2, len(items))
    return items


def minimize(records: List[dict], fails: Test, budget: float,
             log: Optional[Callable[[str], None]] = None) -> List[dict]:
    """records must fail already. Returns the shortest failing list found."""
    stop_at = time.monotonic() + budget
    out_of_time = lambda: time.monotonic() > stop_at   # noqa: E731
    tries = [0]

    def counted(flat: List[dict]) -> bool:
        tries[0] += 1
        return fails(flat)

    groups = _batches(records)
    groups = _ddmin(groups, lambda gs: counted([r for g in gs for r in g]), out_of_time)
    flat = [r for g in groups for r in g]
    if log:
        log(f"  ddmin: {len(records)} -> {len(flat)} records in {len(groups)} batch(es) "
            f"({tries[0]} runs)")
    flat = _ddmin(flat, counted, out_of_time)
    if log:
        log(f"  ddmin: {len(flat)} records after single-record passes ({tries[0]} runs"
            f"{', budget spent' if out_of_time() else ''})")
    return flat
