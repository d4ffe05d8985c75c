"""Flexible Data Placement's side of the lab.

  lab      femu-lab fdp-lab: fdp-separation with and without placement identifiers, side
           by side (aged states, VM runs, ftl-sim replays, femu-plot fdp, a table)

A run's FDP figures, which every run on an FDP device records, are run.fdp_report.
"""
