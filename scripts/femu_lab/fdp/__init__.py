"""Flexible Data Placement's side of the lab.

  lab      femu-lab fdp-lab: fdp-separation with and without placement identifiers, side
           by side (aged states, VM runs, ftl-sim replays, femu-plot fdp, a table)
  textbook the textbook hot/cold case in ftl-sim and its steady-state WAF
  bench    femu-lab fdp-bench: the textbook cases, the analytic optimum, ftl-sim's speed

A run's FDP figures, which every run on an FDP device records, are run.fdp_report.
"""
