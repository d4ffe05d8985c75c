"""The zoned namespace's side of a run.

  report             the zone command figures of a run on the zoned namespace
  compaction_trace   zns-compaction's plan as an ftl-sim trace (Copy vs read + append)
"""
