#!/usr/bin/env bash
# A real single-node Slurm cluster for the tests, everything kept inside one folder:
#
#   tests/slurm/slurm-cluster.sh start DIR    write the munge key and slurm.conf into DIR,
#                                             start munged, slurmctld and slurmd, wait until
#                                             sinfo shows this host idle, print SLURM_CONF
#   tests/slurm/slurm-cluster.sh stop DIR     stop the three daemons and wait for them
#
# Clients find the cluster through SLURM_CONF=DIR/slurm.conf (AuthInfo there names DIR's
# munge socket, so the system's munge and Slurm, if any, are never touched). The one
# partition is `femu` (Default=YES) holding this host with its real CPUs and memory.
# Ports: FEMU_SLURM_PORT (default 16817) for slurmctld and the next one for slurmd.
# Needs the Debian packages of scripts/deps/slurm.apt (scripts/install-deps.sh --apt-only
# slurm installs them; the Slurm tests' fixture does when a program is missing).
set -euo pipefail

usage() { echo "usage: $0 start|stop DIR" >&2; exit 2; }
(($# == 2)) || usage
action=$1
dir=$(mkdir -p "$2" && cd "$2" && pwd)
port=${FEMU_SLURM_PORT:-16817}
wait_seconds=${FEMU_SLURM_WAIT:-60}

fail() {
    echo "slurm-cluster: error: $*" >&2
    for log in "$dir"/log/*.log; do
        [[ -e $log ]] || continue
        echo "---- $log (last 20 lines)" >&2
        tail -n 20 "$log" >&2
    done
    exit 1
}

need_programs() {
    local missing=()
    for program in munged slurmctld slurmd sinfo sbatch; do
        command -v "$program" >/dev/null || missing+=("$program")
    done
    ((${#missing[@]} == 0)) || {
        echo "slurm-cluster: error: ${missing[*]} not installed" \
             "(scripts/install-deps.sh --apt-only slurm installs scripts/deps/slurm.apt)" >&2
        exit 1
    }
}

# Node facts as slurmd itself sees them (CPUs, sockets, cores, memory), so the node
# registers without "low resources" draining it.
node_line() {
    local facts
    facts=$(slurmd -C | head -n 1)
    facts=${facts#NodeName=* }          # keep CPUs=... RealMemory=...
    echo "NodeName=$(hostname -s) NodeAddr=127.0.0.1 $facts State=UNKNOWN"
}

write_config() {
    mkdir -p "$dir"/munge "$dir"/log "$dir"/ctld "$dir"/slurmd "$dir"/run
    chmod 0700 "$dir"/munge
    if [[ ! -e $dir/munge/munge.key ]]; then
        head -c 1024 /dev/urandom > "$dir"/munge/munge.key
        chmod 0400 "$dir"/munge/munge.key
    fi
    cat > "$dir"/slurm.conf <<EOF
# Written by tests/slurm/slurm-cluster.sh: a throwaway single-node cluster.
ClusterName=femu-test
SlurmctldHost=$(hostname -s)(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=$(id -un)
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.socket
StateSaveLocation=$dir/ctld
SlurmdSpoolDir=$dir/slurmd
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
# No cgroups: the daemons run in containers and CI machines alike.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
# Quick dispatch: schedule on every submit and completion, report back fast.
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
SlurmdTimeout=60
MinJobAge=600
$(node_line)
PartitionName=femu Nodes=$(hostname -s) Default=YES MaxTime=INFINITE State=UP
EOF
}

start() {
    need_programs
    [[ ! -e $dir/run/slurmctld.pid ]] || stop_daemons
    write_config
    munged --socket="$dir"/munge/munge.socket --key-file="$dir"/munge/munge.key \
        --pid-file="$dir"/run/munged.pid --log-file="$dir"/log/munged.log \
        --seed-file="$dir"/munge/munged.seed --force \
        || fail "munged did not start"
    export SLURM_CONF=$dir/slurm.conf
    slurmctld -f "$SLURM_CONF" || fail "slurmctld did not start"
    slurmd -f "$SLURM_CONF" || fail "slurmd did not start"
    local deadline=$((SECONDS + wait_seconds)) state=""
    while ((SECONDS < deadline)); do
        state=$(sinfo -h -n "$(hostname -s)" -o %t 2>/dev/null || true)
        [[ $state == idle ]] && { echo "$SLURM_CONF"; return 0; }
        sleep 1
    done
    fail "the node is not idle after ${wait_seconds} s (sinfo says '${state:-nothing}')"
}

# Stop one daemon by its pid file and wait until it is gone.
stop_one() {
    local name=$1 pidfile=$dir/run/$1.pid pid
    [[ -e $pidfile ]] || return 0
    pid=$(cat "$pidfile")
    if [[ $pid =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null; then
        kill -TERM "$pid"
        for _ in $(seq 1 100); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.1
        done
        if kill -0 "$pid" 2>/dev/null; then
            echo "slurm-cluster: $name ($pid) ignored SIGTERM for 10 s; killing it" >&2
            kill -KILL "$pid" 2>/dev/null || true
        fi
    fi
    rm -f "$pidfile"
}

stop_daemons() {
    stop_one slurmd
    stop_one slurmctld
    stop_one munged
}

case $action in
    start) start ;;
    stop) stop_daemons ;;
    *) usage ;;
esac
