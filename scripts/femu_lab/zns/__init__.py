"""The zoned namespace's side of a run.

  report   the zone command figures of a run on the zoned namespace
"""
