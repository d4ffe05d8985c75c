"""QEMU and the guest, without the lab around them.

  launch   boot QEMU with a job, enforce a timeout, collect the results (VmSpec, run)
  cli      the `femu-vm` command line
  accel    the accelerator a boot uses (kvm or tcg) and the probe behind 'auto'
  results  the plain-text framing the guest uses to send result files home
  qtest    QEMU's qtest protocol, for tests that drive the device with no guest
  qmp      the QMP connection (qemu.qmp): commands, and waiting for events
"""
