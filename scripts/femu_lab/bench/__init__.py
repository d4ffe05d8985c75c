"""Figures of the device beside QEMU's stock NVMe device (and upstream FEMU).

  runner            `femu-lab bench`: the boots, the table, the JSON
  devices           the devices compared and their QEMU arguments
  jobs              the guest's fio job list and its console steps
  host              QEMU's CPU use, from the host
  threads           QEMU's CPU time per thread, grouped (poller, ftl, vCPU, main, other)
  cpu_windows       the thread samples at each fio job's start and end, and its I/Os
  cpu_figures       host CPU per completed I/O of each group and job
  cpu_check         femu's CPU per I/O against a baseline --json (or stock's)
  sim               the ftl-sim row
  stats             medians, checks, the flash-time bound
  table             the table
  device_figures    `femu-lab device-figures idle-cpu|latency`
  stock_nvme_bench  `femu-lab stock-nvme-bench`: the stock device alone
"""
