"""Replay files: JSON lines, a header then one action record per line. Running one
starts a fresh QEMU, runs the records and ends with a sync and a SIGTERM exit, so what
only shows at the end (a completion that never comes, a report at exit) shows here too."""
import json
from pathlib import Path
from typing import List, Optional, Tuple

from .executor import Executor
from .failure import Failure
from .target import DEVICE_PROPS, start

FORMAT = "femu-nvme-fuzz/1"
EPILOGUE = [{"a": "sync"}, {"a": "stop"}]


def save(path: Path, header: dict, records: List[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as out:
        out.write(json.dumps({"format": FORMAT, **header}) + "\n")
        for rec in records:
            out.write(json.dumps(rec, separators=(",", ":")) + "\n")


def load(path: Path) -> Tuple[dict, List[dict]]:
    lines = Path(path).read_text().splitlines()
    header = json.loads(lines[0])
    if header.get("format") != FORMAT:
        raise ValueError(f"{path}: not a {FORMAT} replay file")
    return header, [json.loads(line) for line in lines[1:] if line.strip()]


def execute(qemu: Path, records: List[dict], deadline: float,
            epilogue: bool = True, props: str = DEVICE_PROPS) -> Tuple[Optional[Failure], int]:
    """Run records on a fresh QEMU with the device properties `props`; (the first failure
    or None, SQEs sent)."""
    target = start(qemu, props=props)
    ex = None
    try:
        ex = Executor(target, deadline)
        tail = EPILOGUE if epilogue and (not records or records[-1]["a"] != "stop") else []
        for i, rec in enumerate([*records, *tail]):
            ex.run(rec, i)
        return None, ex.sent
    except Failure as failure:
        return failure, ex.sent if ex else 0
    finally:
        target.close()
