"""Reset and shutdown soak in real guests: `python -m femu_lab.soak`.

  runner   the command line and the boots, round the patterns
  boot     one boot: QEMU, the console, the events played over QMP
  guest    the shell job each pattern runs in the guest
  console  reading a boot's console log
  qmp      the QMP connection (qemu.qmp) the events go through
  table    the table at the end
"""
