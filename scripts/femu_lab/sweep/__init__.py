"""`femu-lab sweep`: one workload over several configuration settings (its options, the
Slurm ones too: femu_lab.commands.sweep).

  plan     the --set axes and their points
  checks   what must hold before a sweep starts (every point's configuration)
  folder   the sweep folder: one folder per point, their states, resuming
  runner   running the points (here, or through the Slurm executor) and the report
  report   the comparison table and plots
"""
