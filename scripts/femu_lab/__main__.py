"""`python -m femu_lab`: the `femu-lab` command line (femu_lab.cli)."""
import sys

from .cli import main_on_a_pipe

sys.exit(main_on_a_pipe())
