"""The differential check's totals, printed at the end of the session."""
import sys


def pytest_terminal_summary(terminalreporter):
    module = sys.modules.get("test_reader_differential")
    totals = getattr(module, "TOTALS", None)
    if not totals or not totals["runs"]:
        return
    terminalreporter.write_sep("-", "reader differential check")
    terminalreporter.write_line(
        f"{len(totals['traces'])} generated traces of {len(totals['formats'])} formats under "
        f"{len(totals['option_sets'])} option sets: {totals['runs']} conversions agreed with "
        f"the reference on {totals['requests']} requests")
