"""femu_lab: host-side tooling for femu guests.

Modules:
  guest_image  build the TCG-friendly guest kernel + initramfs from Debian packages
  vm           launch QEMU with a job, enforce a timeout, collect the results
  results      the plain-text framing the guest uses to send result files home
  vm_cli       the `femu-vm` command line
"""
