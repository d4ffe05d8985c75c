"""femu_common: the pieces femu's Python packages share, standard library only.

  progress   timestamped progress lines, step lines with their duration, a live line
             rewritten in place on a terminal, a count of items done
  cli_args   argparse pieces: one-line usage errors, bounded numbers, sizes, KEY=VALUE
  errors     FemuError, the one exception base: a one-line message and an exit status
  command    run a command; a failure is one line (the last line of its stderr); as_root

femu_build (build-femu), femu_guest (scripts/guest), femu_analysis (analysis) and
femu_lab (scripts) import it; femu_build and femu_guest run from Debian's python3
without the venv, so nothing here may need more than the standard library.
"""
