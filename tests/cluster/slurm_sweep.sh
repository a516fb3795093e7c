#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A sweep through a real Slurm: sets up a private single-node cluster on this machine (munged,
# slurmctld and slurmd from Debian's munge / slurm-wlm packages, a minimal slurm.conf, all state in
# a scratch directory, ports 16817/16818), submits docs/slurm/sweep.sbatch as a job array, waits,
# merges the shards with sweep-merge and checks the result is byte-identical to the same sweep run
# locally without shards. Then stops the daemons it started (by their pids) and removes the scratch.
#
#   tests/cluster/slurm_sweep.sh CLI [OUTDIR [SHARDS [SCENARIO SWEEP-ARGS...]]]
#
# Without SCENARIO it sweeps the seed scenario briefly (2 profiles × 2 sleep periods × 2 seeds,
# 200 ms each). Exit 77 (CTest: skipped) when not root or the packages are not installed.
# CTest label "cluster", outside `make test` (docs/sweeps.md).
set -euo pipefail

here=$(cd "$(dirname "$0")/../.." && pwd)
cli=$(realpath "${1:?usage: slurm_sweep.sh CLI [OUTDIR [SHARDS [SCENARIO ARGS...]]]}")
out=$(realpath -m "${2:-$(mktemp -d /tmp/schedlab-slurm-out.XXXXXX)}")
shards=${3:-3}
shift $(($# < 3 ? $# : 3))
if [ $# -eq 0 ]; then
    set -- "$here/scenarios/cgroup-weight-starvation.json" --param profile=6.12,7.1 \
        --param /tasks/2/program/0/loop/1/fork/program/1/sleep=1s,250ms --seeds 2 --duration 200ms
fi
compare=${COMPARE:-1} # 0: skip the local unsharded run (long sweeps)

for tool in munged slurmctld slurmd sbatch squeue sinfo; do
    if ! command -v "$tool" >/dev/null; then
        echo "skipped: $tool not installed (apt-get install munge slurmctld slurmd slurm-client)"
        exit 77
    fi
done
if [ "$(id -u)" -ne 0 ]; then
    echo "skipped: the private cluster's daemons run as root"
    exit 77
fi

work=$(mktemp -d /tmp/schedlab-slurm.XXXXXX)
chmod 755 "$work"
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
    if [ "${KEEP:-0}" = 1 ]; then echo "kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT

# munge: a fresh key and a private socket, the daemon as the munge user.
mkdir -p "$work/munge" "$work/state" "$work/spool" "$out"
dd if=/dev/urandom of="$work/munge/munge.key" bs=1024 count=1 status=none
chown -R munge:munge "$work/munge"
chmod 755 "$work/munge" # munged: the socket's directory must be searchable by all
chmod 400 "$work/munge/munge.key"
runuser -u munge -- munged --foreground --key-file="$work/munge/munge.key" \
    --socket="$work/munge/munge.socket" --pid-file="$work/munge/munged.pid" \
    --log-file="$work/munge/munged.log" --seed-file="$work/munge/munged.seed" \
    >"$work/munged.out" 2>&1 &
pids+=($!)

node=$(hostname -s)
cat >"$work/slurm.conf" <<CONF
ClusterName=schedlab
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=16817
SlurmdPort=16818
AuthType=auth/munge
AuthInfo=socket=$work/munge/munge.socket
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
PlugStackConfig=$work/plugstack.conf
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/builtin
MpiDefault=none
ReturnToService=2
NodeName=$node NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=sweep Nodes=$node Default=YES MaxTime=INFINITE State=UP
CONF
: >"$work/plugstack.conf"
export SLURM_CONF=$work/slurm.conf
for i in $(seq 50); do [ -S "$work/munge/munge.socket" ] && break; sleep 0.2; done
slurmctld -D -f "$SLURM_CONF" >"$work/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -f "$SLURM_CONF" -N "$node" >"$work/slurmd.out" 2>&1 &
pids+=($!)
for i in $(seq 60); do
    state=$(sinfo -h -N -o %t 2>/dev/null | head -1 || true)
    [ "$state" = idle ] && break
    sleep 1
done
if [ "$state" != idle ]; then
    echo "the node did not become idle (state '$state'); slurmctld.log:" >&2
    tail -20 "$work/slurmctld.log" "$work/slurmd.log" >&2 || true
    exit 1
fi
echo "cluster up: $(sinfo -h -o '%P %D nodes %c CPUs %t')"

rm -f "$out"/shard-*.csv "$out"/results.csv
start=$(date +%s)
job=$(SCHEDLAB_CLI=$cli sbatch --parsable --array=0-$((shards - 1)) --cpus-per-task=1 \
    --chdir="$here" --output="$out/shard-%a.log" "$here/docs/slurm/sweep.sbatch" "$out" "$@")
echo "submitted job array $job: $shards tasks"
while [ -n "$(squeue -h -j "$job" 2>/dev/null)" ]; do
    sleep 2
done
echo "array finished in $(($(date +%s) - start)) s"
for i in $(seq 0 $((shards - 1))); do
    if [ ! -s "$out/shard-$i.csv" ]; then
        echo "shard $i wrote no CSV; its log:" >&2
        cat "$out/shard-$i.log" >&2 || true
        exit 1
    fi
done
"$cli" sweep-merge "$out"/shard-*.csv --out "$out/results.csv"
if [ "$compare" = 1 ]; then
    "$cli" sweep "$@" --quiet --out "$out/local.csv"
    cmp "$out/results.csv" "$out/local.csv"
    echo "merged Slurm shards are byte-identical to the local sweep ($out/results.csv)"
fi
