#!/usr/bin/env bash
# The one place the project's dependencies are installed; tests/run.sh,
# build-femu/run-blackbox.sh, scripts/femu-lab and build-femu/pkgdep.sh call it.
#
#   scripts/install-deps.sh [--apt-only] [--venv DIR] [LIST...]
#
# Debian packages: those named in scripts/deps/LIST.apt (every *.apt list without LIST),
# only the missing ones, through sudo when not root. Then, unless --apt-only, a Python
# venv (default .venv) with scripts/deps/*.pip and the repository's Python packages,
# installed editable in one pip call so that femu-lab's dependencies on the others are
# met from their folders, never from an index: analysis/ (femu-analysis), build-femu/
# (femu-build), scripts/guest/ (femu-guest), scripts/ (femu-lab). The venv is redone only
# when a requirement list or a pyproject.toml changed. Quiet when nothing is missing.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
deps=scripts/deps
python_packages=(analysis build-femu scripts/guest scripts)

apt_only=false
venv=.venv
lists=()
while (($#)); do
    case $1 in
        --apt-only) apt_only=true ;;
        --venv) venv=${2:?--venv needs a folder}; shift ;;
        -h|--help) sed -n '2,13s/^# \{0,1\}//p' "$0"; exit 0 ;;
        -*) echo "install-deps: error: unknown option '$1' (see $0 --help)" >&2; exit 2 ;;
        *) [[ -e $deps/$1.apt ]] || { echo "install-deps: error: no list $deps/$1.apt" >&2
                                       exit 2; }
           lists+=("$deps/$1.apt") ;;
    esac
    shift
done
((${#lists[@]})) || lists=("$deps"/*.apt)

wanted=$(cat "${lists[@]}" | sed 's/#.*//' | tr -s ' \t' '\n' | sed '/^$/d' | sort -u)
missing=()
for pkg in $wanted; do
    if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed'; then
        missing+=("$pkg")
    fi
done
if ((${#missing[@]})); then
    echo "install-deps: apt-get install ${missing[*]}"
    sudo=""
    [[ $(id -u) -eq 0 ]] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
$apt_only && exit 0

# Re-install Python packages only when a requirement list or pyproject changed.
pyprojects=("${python_packages[@]/%//pyproject.toml}")
stamp_input=$(cat "$deps"/*.pip "${pyprojects[@]}" | sha256sum | cut -d' ' -f1)
if [[ ! -x $venv/bin/python || "$(cat "$venv/.deps-stamp" 2>/dev/null)" != "$stamp_input" ]]; then
    echo "install-deps: preparing Python venv in $venv"
    python3 -m venv "$venv"
    "$venv/bin/python" -m pip install -q --upgrade pip
    for req in "$deps"/*.pip; do
        "$venv/bin/python" -m pip install -q -r "$req"
    done
    editable=()
    for package in "${python_packages[@]}"; do
        editable+=(-e "$package")
    done
    "$venv/bin/python" -m pip install -q "${editable[@]}"
    echo "$stamp_input" > "$venv/.deps-stamp"
fi
