"""Flexible Data Placement's side of the lab.

  report   a run's WAF from the FDP statistics log and from stats.csv, media per handle
  lab      femu-lab fdp-lab: fdp-separation with and without placement identifiers, side
           by side (aged states, VM runs, ftl-sim replays, femu-plot fdp, a table)
"""
