"""Figures of the device beside QEMU's stock NVMe device (and upstream FEMU).

  runner            `femu-lab bench`: the boots, the table, the JSON
  devices           the devices compared and their QEMU arguments
  jobs              the guest's fio job list and its console steps
  host              QEMU's CPU use, from the host
  sim               the ftl-sim row
  stats             medians, checks, the flash-time bound
  table             the table
  device_figures    `femu-lab device-figures idle-cpu|latency`
  stock_nvme_bench  `femu-lab stock-nvme-bench`: the stock device alone
"""
