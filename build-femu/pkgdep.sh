#!/usr/bin/env bash
# Installs (with apt, only what is missing) the Debian packages that building QEMU 10 with
# the femu device needs, and the firmware the built binary loads at run time (-L folders):
# the list scripts/deps/qemu-build.apt, through the project's one installer. Safe to run
# again: it does nothing when everything is present. femu-compile.sh runs it first.
set -euo pipefail
exec "$(cd "$(dirname "$0")/.." && pwd)/scripts/install-deps.sh" --apt-only qemu-build
