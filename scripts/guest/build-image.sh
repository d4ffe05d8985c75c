#!/usr/bin/env bash
# Builds (or confirms up to date) the femu guest kernel + initramfs under
# images/guest/RELEASE: build-image.sh [--release trixie|bookworm] [--force] [--refresh].
# Thin wrapper: the builder is the femu_guest package beside this script (with femu_common
# from scripts/common); it only needs python3 and apt (no venv). Every argument goes to it.
set -euo pipefail
guest_dir="$(cd "$(dirname "$0")" && pwd)"
common_dir="$(cd "$guest_dir/../common" && pwd)"
export PYTHONPATH="$guest_dir:$common_dir${PYTHONPATH:+:$PYTHONPATH}"
exec python3 -m femu_guest "$@"
