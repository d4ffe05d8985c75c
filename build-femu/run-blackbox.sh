#!/usr/bin/env bash
# The lab's main job: builds what is missing, boots the femu guest on a femu SSD, runs a
# workload and leaves a results folder (or, with IMAGE, boots that disk image FEMU-style).
# The work is done by femu_lab.blackbox; this wrapper only makes sure the Debian packages
# and the Python venv it runs in exist. `run-blackbox.sh --help` lists the options.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"

first_time=false
if [[ ! -x "$root/.venv/bin/python" ]]; then
    first_time=true
    echo "run-blackbox: installing Debian packages and the Python venv (.venv)" \
         "(a minute or two the first time)" >&2
fi
# Quiet and quick when everything is installed; says what it installs otherwise.
"$root/scripts/install-deps.sh" >&2
if $first_time; then
    echo "run-blackbox: Debian packages and the Python venv installed in" \
         "$((SECONDS / 60)) min $((SECONDS % 60)) s" >&2
fi
exec "$root/.venv/bin/python" -m femu_lab.blackbox "$@"
