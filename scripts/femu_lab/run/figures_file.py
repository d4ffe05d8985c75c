"""A report's figures file in a run folder (kv.json, fdp.json): record() writes it once the
figures are made (they go into result.json too), report_text() reads it back for the lines
a run prints at its end. One place for both, so every report keeps the same layout."""
import json
from pathlib import Path
from typing import Callable, Dict, Optional

Figures = Dict[str, object]


def save(folder: Path, name: str, figures: Optional[Figures]) -> Optional[Figures]:
    """figures, also written to folder/name as indented JSON; None (nothing written) for a
    run without such figures."""
    if figures is not None:
        (folder / name).write_text(json.dumps(figures, indent=2) + "\n")
    return figures


def text(folder: Path, name: str, format_figures: Callable[[Figures], str]) -> Optional[str]:
    """format_figures of what folder/name holds; None for a run without that file."""
    path = folder / name
    if not path.is_file():
        return None
    return format_figures(json.loads(path.read_text()))
