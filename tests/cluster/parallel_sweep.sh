#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A sweep through GNU parallel with local slots (docs/sweeps.md): shards 0…n-1 as parallel jobs,
# joined by sweep-merge, byte-identical to the same sweep without shards. With --sshlogin the same
# command line spreads the shards over hosts.
#
#   tests/cluster/parallel_sweep.sh CLI [OUTDIR [SHARDS [SCENARIO SWEEP-ARGS...]]]
#
# Exit 77 (CTest: skipped) without GNU parallel. CTest label "cluster", outside `make test`.
set -euo pipefail

here=$(cd "$(dirname "$0")/../.." && pwd)
cli=$(realpath "${1:?usage: parallel_sweep.sh CLI [OUTDIR [SHARDS [SCENARIO ARGS...]]]}")
out=$(realpath -m "${2:-$(mktemp -d /tmp/schedlab-parallel-out.XXXXXX)}")
shards=${3:-2}
shift $(($# < 3 ? $# : 3))
if [ $# -eq 0 ]; then
    set -- "$here/scenarios/cgroup-weight-starvation.json" --param profile=6.12,7.1 \
        --param /tasks/2/program/0/loop/1/fork/program/1/sleep=1s,250ms --seeds 2 --duration 200ms
fi
if ! command -v parallel >/dev/null; then
    echo "skipped: GNU parallel not installed (apt-get install parallel)"
    exit 77
fi
mkdir -p "$out"
rm -f "$out"/shard-*.csv "$out"/results.csv
# Each shard on one thread: the slots are the parallelism here.
parallel --will-cite -q --halt now,fail=1 -j "$shards" \
    "$cli" sweep "$@" --jobs 1 --quiet --shard {}/"$shards" --out "$out"/shard-{}.csv \
    ::: $(seq 0 $((shards - 1)))
"$cli" sweep-merge "$out"/shard-*.csv --out "$out/results.csv"
"$cli" sweep "$@" --quiet --out "$out/local.csv"
cmp "$out/results.csv" "$out/local.csv"
echo "merged parallel shards are byte-identical to the local sweep ($out/results.csv)"
