"""Reset and shutdown soak in real guests: `python -m femu_lab.soak`.

  runner   the command line and the boots, round the patterns
  boot     one boot: QEMU, the console, the events played over QMP (vm.qmp)
  guest    the shell job each pattern runs in the guest
  console  reading a boot's console log
  table    the table at the end
"""
