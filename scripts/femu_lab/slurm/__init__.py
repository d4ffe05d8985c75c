"""A sweep as a Slurm array job (`femu-lab sweep --executor slurm`, docs/slurm.md).

  checks    the options and the cluster, before anything is submitted
  request   what a task needs to run its point, written into the sweep folder
  executor  sbatch, waiting for the job, scancel on Ctrl-C
  queue     squeue / sacct: the tasks' states
  status    `femu-lab sweep --status DIR`
  task      one array task: `python -m femu_lab.slurm.task SWEEP INDEX`
"""
