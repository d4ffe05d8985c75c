"""`femu-lab dftl-study`: DFTL, the write buffer and streams on three traces, in ftl-sim.

  traces   the traces (generated, seeded)
  study    the command: one ftl-sim run per trace and build
  report   the table and figures
"""
