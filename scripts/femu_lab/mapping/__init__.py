"""`femu-lab mapping-lab`: page, DFTL, block, BAST and FAST mapping, with and without the
DRAM read cache, on the same workloads and the same small SSD, in ftl-sim.

  plan      the schemes, cache settings and workloads; one Run per cell, its ftl-sim args
  trace     the real-world trace workload (a given file, or a synthetic MSR-layout one)
  measure   one run folder's figures, as ftl-sim reported them
  table     the CSV and Markdown tables
  figures   one PNG per metric, and the read cache's hit rate against its size
  lab       the command: options, the checks before anything runs, the runs, the outputs
"""
