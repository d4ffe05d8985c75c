"""`python -m femu_lab.soak`: the soak's command line (runner)."""
import sys

from .runner import main

sys.exit(main())
