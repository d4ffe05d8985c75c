"""One lab run: run-blackbox.sh and `femu-lab run` (its command module: femu_lab.commands.run).

  blackbox     the command line (both names), its checks, the run it starts
  vm_run       one run in the VM: its results folder, the guest job, the analysis
  sim_run      one run through ftl-sim in simulated time (a sweep's --engine sim point)
  report       a run folder's figures, summaries and headline
  fdp_report   a run's FDP figures: WAF from the FDP statistics log and stats.csv
  zns_report   a run's zoned figures per phase (zns-phases.csv)
  kv_report    a key-value run's figures: the guest's load generator, the device's counters
  figures_file a report's JSON in the run folder (kv.json, fdp.json): written, read back
  cut_spec     --power-cut: the spec, and the thread that cuts over QMP
  live_progress  the progress line a run prints while the device works
  aged         `femu-lab age`: an aged FTL state a run starts from (--aged)
  compat       FEMU-compatible mode: the user's own disk image with the femu SSD
"""
