"""femu_analysis: femu's statistics CSVs -> tidy frames, benchmark windows, lab plots, summaries.

The usual path is ``load_run(dir)`` -> ``find_window(run)`` -> ``summarize(run, window)`` or one
of the ``plots`` functions; ``femu-plot`` (cli.py) wires the same calls to the command line.
"""
from .errors import AnalysisError
from .loader import Run, load_run
from .window import Window, find_window, parse_window
from .summary import summarize

__all__ = ["AnalysisError", "Run", "load_run", "Window", "find_window", "parse_window",
           "summarize"]
