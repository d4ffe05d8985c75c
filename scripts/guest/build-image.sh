#!/usr/bin/env bash
# Builds (or confirms up to date) the femu guest kernel + initramfs under images/guest.
# Thin wrapper: the builder is the femu_guest package beside this script; it only needs
# python3 and apt (no venv).
set -euo pipefail
guest_dir="$(cd "$(dirname "$0")" && pwd)"
export PYTHONPATH="$guest_dir${PYTHONPATH:+:$PYTHONPATH}"
exec python3 -m femu_guest "$@"
