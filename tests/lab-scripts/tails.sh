#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# lab/tails.sh over a hand-made trace and probe file (docs/real-kernels.md, "Where the runner's
# clock reads fall"). Times in seconds; the trace's first sched_ event is at 1.0 (time 0).
#  - sleeper-1 (pid 10) runs 1.0000-1.0001 and blocks: a parent (a sleeper without a dot, seen
#    in the first second); woken, it runs from 1.0100, reads its CPU clock at 1.0105 and 1.0110
#    (its last read, 1 000 µs after it started) and forks at 1.0116: p_read 1000, p_fork 600;
#  - its child (pid 11) preempts it at 1.0117 (the parent ran 100 µs after the fork) and runs
#    1 000 µs; the parent runs 200 µs more and blocks in its wait at 1.0129: p_wait 300;
#    (the child is switched out under its parent's name, before it took its own: still a child);
#  - the child runs on from 1.0129, reads at 1.0130 (1 100 µs into its burst) and sleeps at
#    1.0132: c1 1300, c1_tail 200; woken, it runs from 1.2632, blocks in D at 1.2637 (which does
#    not end the burst), runs again from 1.2638, reads at 1.2640 and exits at 1.2645:
#    c2 500 + 700 = 1200, c2_tail 1200 - (500 + 200) = 500;
#  - sleeper-1 itself was forked by the runner (schedlab-run) before the trace's first switch:
#    only a sleeper's fork makes a child;
#  - a second parent's fork without a clock read before it is not counted, nor are bursts
#    outside the window (a third fork at 30 s with FROM 0, TO 10).
#   tests/lab-scripts/tails.sh
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
out=$(mktemp -d /tmp/schedlab-tails.XXXXXX)
trap 'rm -rf "$out"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
sw() { printf '  %s [000] d..2.  %s: sched_switch: prev_comm=%s prev_pid=%s prev_prio=120 prev_state=%s ==> next_comm=%s next_pid=%s next_prio=120\n' "$2-$3" "$1" "$2" "$3" "$4" "$5" "$6"; }
fk() { printf '  %s [000] .....  %s: sched_process_fork: comm=%s pid=%s child_comm=%s child_pid=%s\n' "$2-$3" "$1" "$2" "$3" "$2" "$4"; }
rd() { printf '  task-%s [000] .....  %s: tsr: (task_sched_runtime+0x4/0x100) pid=%s oc=1 v=0 d=0 vp=0 sl=0 nq=1 tf=0\n' "$2" "$1" "$2"; }
{
    echo "# tracer: nop"
    fk 0.999000 schedlab-run 5 10
    sw 1.000000 swapper/0 0 R sleeper-1 10
    sw 1.000100 sleeper-1 10 S swapper/0 0
    sw 1.000200 swapper/0 0 R sleeper-2 20
    sw 1.000300 sleeper-2 20 S swapper/0 0
    sw 1.010000 swapper/0 0 R sleeper-1 10
    fk 1.011600 sleeper-1 10 11
    sw 1.011700 sleeper-1 10 R sleeper-1.1 11
    sw 1.012700 sleeper-1 11 R sleeper-1 10
    sw 1.012900 sleeper-1 10 S sleeper-1.1 11
    sw 1.013200 sleeper-1.1 11 S swapper/0 0
    sw 1.050000 swapper/0 0 R sleeper-2 20
    fk 1.052000 sleeper-2 20 21
    sw 1.052100 sleeper-2 20 S swapper/0 0
    sw 1.263200 swapper/0 0 R sleeper-1.1 11
    sw 1.263700 sleeper-1.1 11 D swapper/0 0
    sw 1.263800 swapper/0 0 R sleeper-1.1 11
    sw 1.264500 sleeper-1.1 11 Z sleeper-1 10
    sw 31.000000 sleeper-1 10 S swapper/0 0
    sw 31.000100 swapper/0 0 R sleeper-1 10
    fk 31.001000 sleeper-1 10 12
} > "$out/trace.txt"
{
    rd 1.010500 10
    rd 1.011000 10
    rd 1.013000 11
    rd 1.264000 11
    rd 31.000500 10
} > "$out/probes.txt"
got=$("$here/lab/tails.sh" "$out" 0 10)
want="p_read 1000 (1), p_fork 600 (1), p_wait 300 (1), c1 1300 (1), c1_tail 200 (1), c2 1200 (1), c2_tail 500 (1)"
[ "$got" = "$want" ] || fail "tails.sh: $got"
# Without the window's bursts: no parent burst, exit 1; FROM not below TO, a time that is not a
# number, one bound without the other: usage, exit 2; no probe file: usage, exit 2.
for args in "20 10" "10 120s" "x 10" "10"; do
    rc=0
    "$here/lab/tails.sh" "$out" $args >/dev/null 2>&1 || rc=$?
    [ "$rc" = 2 ] || fail "tails.sh RUNDIR $args exits $rc, not 2"
done
rc=0
"$here/lab/tails.sh" "$out" 40 50 >/dev/null 2>&1 || rc=$?
[ "$rc" = 1 ] || fail "no parent burst in the window exits $rc, not 1"
rm "$out/probes.txt"
rc=0
"$here/lab/tails.sh" "$out" >/dev/null 2>&1 || rc=$?
[ "$rc" = 2 ] || fail "a run without probes.txt exits $rc, not 2"
echo "tails: ok"
