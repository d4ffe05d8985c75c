"""Real-world block traces in the lab: a synthetic trace in every format the readers of
ftl-sim and femu-trace know (generate, from one seeded request stream), the femu-trace
tool run from Python (info, convert), and `femu-lab trace`, their command line.

  requests   the seeded request stream every format is written from
  writers    one writer per text format (msr, spc, fio iologs, mqsim, disksim, femu)
  blkparse   the blkparse writer (Q and C events, the per-CPU summary)
  generate   a stream written to a file (.gz / .xz by suffix), with a progress line
  femu_trace running femu-trace (info, convert) and its summary in words
  cli        `femu-lab trace generate | info | convert`
"""
