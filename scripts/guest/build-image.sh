#!/usr/bin/env bash
# Builds (or confirms up to date) the femu guest kernel + initramfs under images/guest.
# Thin wrapper: the builder is femu_lab.guest_image; it only needs python3 and apt.
set -euo pipefail
scripts_dir="$(cd "$(dirname "$0")/.." && pwd)"
export PYTHONPATH="$scripts_dir${PYTHONPATH:+:$PYTHONPATH}"
exec python3 -m femu_lab.guest_image "$@"
