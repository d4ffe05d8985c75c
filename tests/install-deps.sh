#!/usr/bin/env bash
# Installs what the tests need: the Debian packages listed in tests/deps/*.apt
# (only the missing ones) and a Python venv at .venv with tests/deps/*.pip and
# every local Python package (a folder holding pyproject.toml) installed.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

wanted=$(cat tests/deps/*.apt | sed 's/#.*//' | tr -s ' \t' '\n' | sed '/^$/d' | sort -u)
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

# Re-install Python packages only when a requirement list or pyproject changed.
stamp_input=$(cat tests/deps/*.pip */pyproject.toml 2>/dev/null | sha256sum | cut -d' ' -f1)
if [[ ! -x .venv/bin/python || "$(cat .venv/.deps-stamp 2>/dev/null)" != "$stamp_input" ]]; then
    echo "install-deps: preparing Python venv in .venv"
    python3 -m venv .venv
    .venv/bin/python -m pip install -q --upgrade pip
    for req in tests/deps/*.pip; do
        [[ -e "$req" ]] && .venv/bin/python -m pip install -q -r "$req"
    done
    for pyproject in */pyproject.toml; do
        [[ -e "$pyproject" ]] && .venv/bin/python -m pip install -q -e "$(dirname "$pyproject")"
    done
    echo "$stamp_input" > .venv/.deps-stamp
fi
