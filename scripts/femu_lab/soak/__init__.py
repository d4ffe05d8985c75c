"""Reset and shutdown soak in real guests: `femu-lab soak`.

  runner   the command (its options, run) and the boots, round the patterns
  boot     one boot: QEMU, the console, the events played over QMP
  guest    the shell job each pattern runs in the guest
  console  reading a boot's console log
  qmp      the QMP connection (qemu.qmp) the events go through
  table    the table at the end
"""
