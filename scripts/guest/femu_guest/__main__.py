"""python -m femu_guest [--force] [--quiet] [--out DIR] [--release R]: build the guest image."""
import sys

from .image import main

sys.exit(main(prog="python -m femu_guest"))
