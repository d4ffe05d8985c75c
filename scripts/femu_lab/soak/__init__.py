"""Reset and shutdown soak in real guests: `femu-lab soak`.

  runner   the command (its options, run) and the boots, round the patterns
  boot     one boot: QEMU, the console, the events played over QMP (vm.qmp)
  guest    the shell job each pattern runs in the guest
  console  reading a boot's console log
  table    the table at the end
"""
