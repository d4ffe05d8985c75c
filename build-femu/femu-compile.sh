#!/usr/bin/env bash
# Builds QEMU 10.0 with the femu device and leaves it at build-femu/qemu-system-x86_64.
#   build-femu/femu-compile.sh [-j N] [--refresh-source] [--clean] [--sanitize]
#   --sanitize        ASan + UBSan build in qemu-build-sanitize/ -> qemu-system-x86_64-sanitize
#   QEMU_SRC=DIR      build that QEMU 10.0 tree (edited in place: hw/femu link, one-line
#                     hooks, configs/devices/x86_64-softmmu/femu.mak)
#   QEMU_TARBALL=FILE unpack that tarball instead of Debian's qemu source package
# Re-running after editing hw/femu rebuilds only what changed. The work is done by the
# femu_build Python package beside this script (with femu_common from scripts/common, the
# shared standard-library helpers); this wrapper only installs the packages.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"

"$here/pkgdep.sh"
# Debian's python3 (not a pyenv or venv one): QEMU's configure builds its venv from it.
python=/usr/bin/python3
[[ -x $python ]] || python=python3
common="$(cd "$here/../scripts/common" && pwd)"
PYTHONPATH="$here:$common${PYTHONPATH:+:$PYTHONPATH}" exec "$python" -B -m femu_build "$@"
