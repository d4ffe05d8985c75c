#!/usr/bin/env bash
# Installs (with apt, only what is missing) the Debian packages that building QEMU 10 with
# the femu device needs, and the firmware the built binary loads at run time (-L folders).
# Safe to run again: it does nothing when everything is present.
set -euo pipefail

packages=(
    # toolchain and QEMU's build system (configure brings its own newer meson in a venv)
    build-essential pkg-config ninja-build python3 python3-venv python3-pip ccache
    # fetching and unpacking Debian's QEMU source package
    dpkg-dev xz-utils
    # libraries of the configured features: glib + pixman (core), slirp (user net),
    # libaio (linux-aio), libcap-ng + libattr (virtfs), zlib (core)
    libglib2.0-dev libpixman-1-dev libslirp-dev libaio-dev libcap-ng-dev libattr1-dev
    zlib1g-dev
    # firmware for -L: SeaBIOS, iPXE option ROMs, QEMU's own data files (kvmvapic, ...)
    seabios ipxe-qemu qemu-system-data
)

missing=()
for pkg in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed'; then
        missing+=("$pkg")
    fi
done
if ((${#missing[@]} == 0)); then
    echo "pkgdep: all ${#packages[@]} packages present"
    exit 0
fi

sudo=""
[[ $(id -u) -eq 0 ]] || sudo="sudo"
echo "pkgdep: apt-get install ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
echo "pkgdep: installed ${#missing[@]} package(s)"
