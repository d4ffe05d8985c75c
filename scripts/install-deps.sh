#!/usr/bin/env bash
# The one place the project's dependencies are installed; tests/run.sh,
# build-femu/run-blackbox.sh, scripts/femu-lab and build-femu/pkgdep.sh call it.
#
#   scripts/install-deps.sh [--apt-only] [--venv DIR] [LIST...]
#
# Debian packages: those named in scripts/deps/LIST.apt; without LIST every *.apt list but
# the ones installed only when named (listed below), only the missing ones, through sudo
# when not root. Then, unless --apt-only, a Python venv (default .venv) with scripts/deps/
# *.pip and the repository's Python packages, installed editable in one pip call so that
# their dependencies on each other are met from their folders, never from an index:
# scripts/common/ (femu-common), analysis/ (femu-analysis), build-femu/ (femu-build),
# scripts/guest/ (femu-guest), scripts/ (femu-lab). The venv is redone only when a
# requirement list or a pyproject.toml changed. apt's and pip's output goes to
# build/logs/install-deps.log; the terminal shows one line per step with its time, and for
# a failed step the log's last lines and one line naming the step and the log. Nothing at
# all when nothing is missing.
set -euo pipefail
caller_dir=$PWD
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
deps=scripts/deps
python_packages=(scripts/common analysis build-femu scripts/guest scripts)
# Lists installed only when named: slurm is a whole single-node Slurm cluster (munge,
# slurmctld, slurmd), which only tests/slurm needs (its fixture runs
# `scripts/install-deps.sh --apt-only slurm`); a sweep's --executor slurm runs where Slurm
# already is, on a cluster's submit host.
ON_REQUEST=(slurm)
TAG="[install-deps]"
log=build/logs/install-deps.log

apt_only=false
venv=.venv
lists=()
while (($#)); do
    case $1 in
        --apt-only) apt_only=true ;;
        --venv) venv=${2:?--venv needs a folder}; shift ;;
        -h|--help) sed -n '2,17s/^# \{0,1\}//p' "$0"
                   echo "Lists installed only when named: ${ON_REQUEST[*]}."; exit 0 ;;
        -*) echo "install-deps: error: unknown option '$1' (see $0 --help)" >&2; exit 2 ;;
        *) [[ -e $deps/$1.apt ]] || { echo "install-deps: error: no list $deps/$1.apt" >&2
                                       exit 2; }
           lists+=("$deps/$1.apt") ;;
    esac
    shift
done
if ((${#lists[@]} == 0)); then
    for list in "$deps"/*.apt; do
        name=$(basename "$list" .apt)
        [[ " ${ON_REQUEST[*]} " == *" $name "* ]] || lists+=("$list")
    done
fi

# Two installs at once (two pytest workers, two terminals) would race for apt's lock and
# the venv: the second waits here, then finds nothing missing.
mkdir -p "$(dirname "$log")"
exec 9> "$(dirname "$log")/install-deps.lock"
flock 9

# ---- progress lines -------------------------------------------------------------------
# One line per step: on a terminal the step's line is replaced by the line with its time;
# elsewhere (CI logs) both are printed, as femu-compile.sh prints its steps.
log_shown=$root/$log
[[ $log_shown == "$caller_dir"/* ]] && log_shown=${log_shown#"$caller_dir"/}
log_started=false
now_ms() { local t=${EPOCHREALTIME//[!0-9]/}; echo $((10#$t / 1000)); }
duration() {  # milliseconds -> '8.2 s', '42 s', '3 min 12 s' (femu_common.progress.duration)
    local ms=$1 tenths seconds
    if ((ms < 9950)); then
        tenths=$(((ms + 50) / 100))
        echo "$((tenths / 10)).$((tenths % 10)) s"
    else
        seconds=$(((ms + 500) / 1000))
        if ((seconds < 60)); then echo "$seconds s"
        else echo "$((seconds / 60)) min $((seconds % 60)) s"; fi
    fi
}

# step NAME COMMAND...: runs COMMAND with its output appended to the log.
step() {
    local name=$1 started first status=0
    shift
    if ! $log_started; then   # the first step: say where the output goes
        : > "$log"
        log_started=true
        all_started=$(now_ms)
        echo "$TAG installing what is missing; apt's and pip's output goes to $log_shown" >&2
    fi
    printf '==== %s: %s\n' "$name" "$*" >> "$log"
    first=$(($(wc -l < "$log") + 1))   # the step's own output starts on this line
    if [[ -t 2 ]]; then printf '%s %s ...' "$TAG" "$name" >&2
    else echo "$TAG $name ..." >&2; fi
    started=$(now_ms)
    "$@" >> "$log" 2>&1 < /dev/null || status=$?
    local took
    took=$(duration $(($(now_ms) - started)))
    if ((status == 0)); then
        [[ -t 2 ]] && printf '\r\033[K' >&2
        echo "$TAG $name: done in $took" >&2
        return 0
    fi
    [[ -t 2 ]] && echo >&2
    tail -n "+$first" "$log" | tail -n 15 | sed 's/^/  | /' >&2
    echo "$TAG error: $name failed after $took (exit status $status); its whole output" \
         "is in $log_shown" >&2
    exit 1
}

finish() {  # after the last step, when there was one: the whole install's time
    if $log_started; then
        echo "$TAG installed in $(duration $(($(now_ms) - all_started)))" >&2
    fi
}

# ---- Debian packages ------------------------------------------------------------------
wanted=$(cat "${lists[@]}" | sed 's/#.*//' | tr -s ' \t' '\n' | sed '/^$/d' | sort -u)
missing=()
for pkg in $wanted; do
    if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed'; then
        missing+=("$pkg")
    fi
done
if ((${#missing[@]})); then
    sudo=()
    if [[ $(id -u) -ne 0 ]]; then
        sudo=(sudo)
        command -v sudo > /dev/null || {
            echo "$TAG error: ${missing[*]} missing and neither root nor sudo here: install" \
                 "them as root (apt-get install ${missing[*]})" >&2
            exit 1; }
        if ! sudo -n true 2> /dev/null; then   # ask for the password before the steps
            echo "$TAG apt-get install needs root: sudo asks for your password" >&2
            sudo -v
        fi
    fi
    apt=("${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300)
    what=${missing[*]}
    ((${#missing[@]} <= 6)) || what="${#missing[@]} packages (named in the log)"
    step "apt-get update" "${apt[@]}" update
    step "apt-get install $what" "${apt[@]}" install -y --no-install-recommends \
        "${missing[@]}"
fi
if $apt_only; then
    finish
    exit 0
fi

# ---- Python venv ----------------------------------------------------------------------
# Re-install Python packages only when a requirement list or pyproject changed.
pyprojects=("${python_packages[@]/%//pyproject.toml}")
stamp_input=$(cat "$deps"/*.pip "${pyprojects[@]}" | sha256sum | cut -d' ' -f1)
if [[ ! -x $venv/bin/python || "$(cat "$venv/.deps-stamp" 2>/dev/null)" != "$stamp_input" ]]; then
    pip=("$venv/bin/python" -m pip install --disable-pip-version-check)
    step "python venv $venv" python3 -m venv "$venv"
    step "pip: upgrade pip" "${pip[@]}" --upgrade pip
    for req in "$deps"/*.pip; do
        step "pip: $req" "${pip[@]}" -r "$req"
    done
    editable=()
    for package in "${python_packages[@]}"; do
        editable+=(-e "$package")
    done
    step "pip: ${python_packages[*]} (editable)" "${pip[@]}" "${editable[@]}"
    echo "$stamp_input" > "$venv/.deps-stamp"
fi
finish
