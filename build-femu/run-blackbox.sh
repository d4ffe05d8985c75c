#!/usr/bin/env bash
# The lab's main job: builds what is missing, boots the femu guest on a femu SSD, runs a
# workload and leaves a results folder (or, with IMAGE, boots that disk image FEMU-style).
# The work is done by femu_lab.blackbox; this wrapper only makes sure the Debian packages
# and the Python venv it runs in exist. `run-blackbox.sh --help` lists the options.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"

if [[ ! -x "$root/.venv/bin/python" ]]; then
    echo "run-blackbox: installing Debian packages and the Python venv (.venv)" \
         "(a few minutes the first time)" >&2
fi
# Quiet and quick when everything is installed; says what it installs otherwise.
"$root/scripts/install-deps.sh" >&2
exec "$root/.venv/bin/python" -m femu_lab.blackbox "$@"
