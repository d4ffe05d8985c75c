#!/usr/bin/env bash
# The lab's main job: builds what is missing, boots the femu guest on a femu SSD, runs a
# workload and leaves a results folder (or, with IMAGE, boots that disk image FEMU-style).
# The work is done by femu_lab.run.blackbox; this wrapper only makes sure the Debian packages
# and the Python venv it runs in exist. `run-blackbox.sh --help` lists the options.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"

# Silent when everything is installed. Otherwise (the first run) one line saying where apt's
# and pip's output goes, one line per step with its time and the total; a failed step
# prints the end of its output and one line naming it and the log, and this script stops.
"$root/scripts/install-deps.sh" >&2   # stdout stays the command's own
exec "$root/.venv/bin/python" -m femu_lab.run.blackbox "$@"
