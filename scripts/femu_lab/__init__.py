"""femu_lab: host-side tooling for femu guests.

Modules (among others):
  vm           launch QEMU with a job, enforce a timeout, collect the results
  results      the plain-text framing the guest uses to send result files home
  vm_cli       the `femu-vm` command line
  lab_cli      the `femu-lab` command line; blackbox is run-blackbox.sh's
  soak         reset / unplug soak in real guests (python -m femu_lab.soak)

The guest image comes from femu_guest (scripts/guest), the built QEMU's path from
femu_build (build-femu), the analysis from femu_analysis (analysis).
"""
