#!/usr/bin/env bash
# The one test entry (README.md, .ci/run): installs what is missing, builds the
# QEMU-free C parts twice (release, and debug with ASan+UBSan), runs their unit
# and property tests, then every pytest suite under tests/. Arguments go to pytest:
# `tests/run.sh -m unit` is the quick tier (pytest markers unit, integration, slurm, qtest,
# vm, build: see pyproject.toml, whose [tool.pytest.ini_options] pytest reads as the
# repository root's configuration, and tests/conftest.py), which leaves the ASan+UBSan
# build and its C tests to the full run and runs its tests on two workers (pytest-xdist -n 2; a later -n of yours wins). Without
# -m unit every test runs in this one process, one after the other, as CI runs them.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

scripts/install-deps.sh

build_and_test() {  # build_and_test DIR [meson setup options...]
    local dir=$1; shift
    if [[ ! -e "$dir/build.ninja" ]]; then
        meson setup "$dir" "$@"
    fi
    meson compile -C "$dir"
    meson test -C "$dir" --suite unit --print-errorlogs
}
build_and_test build/release --buildtype=release
quick=no
for ((i = 1; i < $#; i++)); do
    [[ ${!i} == -m && ${@:i+1:1} == unit ]] && quick=yes
done
workers=()
if [[ $quick == no ]]; then
    build_and_test build/asan --buildtype=debug -Db_lto=false -Db_sanitize=address,undefined
else
    workers=(-n 2)
fi

export FEMU_BUILD_DIR="$root/build/release"
exec .venv/bin/python -m pytest tests "${workers[@]}" "$@"
