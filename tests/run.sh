#!/usr/bin/env bash
# The one test entry (README.md, .ci/run): installs what is missing, builds the
# QEMU-free C parts twice (release, and debug with ASan+UBSan), runs their unit
# and property tests, builds and runs the libFuzzer targets (clang, FUZZ_SECONDS each,
# default 10), then every pytest suite under tests/. Arguments go to pytest:
# `tests/run.sh -m unit` is the quick tier (pytest markers unit, integration, slurm, qtest,
# vm, build, docs: see pyproject.toml, whose [tool.pytest.ini_options] pytest reads as the
# repository root's configuration, and tests/conftest.py), which leaves the ASan+UBSan
# build, its C tests and the fuzz targets to the full run and runs its tests on two
# workers (pytest-xdist -n 2; a later -n of yours wins). Without
# -m unit every test runs in this one process, one after the other, as CI runs them.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

scripts/install-deps.sh

build_and_test() {  # build_and_test DIR SUITE [meson setup options...]
    local dir=$1 suite=$2; shift 2
    if [[ ! -e "$dir/build.ninja" ]]; then
        meson setup "$dir" "$@"
    fi
    meson compile -C "$dir"
    meson test -C "$dir" --suite "$suite" --print-errorlogs
}
build_and_test build/release unit --buildtype=release
quick=no
for ((i = 1; i < $#; i++)); do
    [[ ${!i} == -m && ${@:i+1:1} == unit ]] && quick=yes
done
workers=()
if [[ $quick == no ]]; then
    build_and_test build/asan unit --buildtype=debug -Db_lto=false -Db_sanitize=address,undefined
    # The libFuzzer targets (tests/fuzz/targets): every seed replayed, then a few seconds
    # of fuzzing each, under ASan+UBSan.
    CC=clang build_and_test build/fuzz fuzz --buildtype=debug -Db_lto=false \
        -Db_sanitize=address,undefined -Dfuzz=true
else
    workers=(-n 2)
fi

export FEMU_BUILD_DIR="$root/build/release"
exec .venv/bin/python -m pytest tests "${workers[@]}" "$@"
