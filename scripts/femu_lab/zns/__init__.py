"""The zoned namespace's side of a run.

  compaction_trace   zns-compaction's plan as an ftl-sim trace (Copy vs read + append)

The zone command figures of a run on the zoned namespace are run.zns_report.
"""
