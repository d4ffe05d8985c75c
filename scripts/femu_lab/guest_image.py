"""The old name of the guest image builder, kept so that `python -m femu_lab.guest_image`
still works: the builder is the femu_guest package (scripts/guest/femu_guest)."""
import sys

from femu_guest.image import main

if __name__ == "__main__":
    sys.exit(main())
