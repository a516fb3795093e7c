#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The sleepers' bursts and where the runner's last clock read falls in them, from a lab run probed
# with lab/probes-clock-read.txt (docs/real-kernels.md, "Where the runner's clock reads fall"):
#
#   lab/tails.sh RUNDIR [FROM TO]
#
# RUNDIR holds the run's trace.txt (sched_switch, sched_process_fork) and probes.txt (tsr: every
# task_sched_runtime(), a read of a thread's CPU clock). FROM and TO (seconds from the trace's
# first sched_switch; default 10 and 120) bound the bursts counted, each by the time it ends (its
# fork, or its block). The parents are the tasks named sleeper* that no sleeper's fork in the
# trace created; a child is one a sleeper's fork created (whatever its name: a child preempted
# before it takes its own still has its parent's). A child's first burst ends at its first sleep
# (switched out in state S), its last at its exit (state Z or X); other blocks (D) do not end a
# burst.
#
# Prints one line of means in µs, each with the number of bursts it is over:
#   p_read   the parent's CPU time from its wake-up to its last clock read before fork()
#   p_fork   from that read to the fork's trace point (the runner's return and the fork system
#            call up to the child's wake-up: kernel work)
#   p_wait   from the fork to the block of its wait
#   c1       the child's first burst (to its sleep), c1_tail the part of it after its last read
#   c2       the child's last burst (to its switch-out at exit), c2_tail the part after its last
#            read (the exit system call, which wakes the parent)
# Exit codes: 0 ok, 1 no parent burst with a clock read before its fork in the window (a run
# without the probe's events, or a workload whose parents do not fork), 2 usage (a RUNDIR
# without the two files, FROM or TO not a number, FROM not below TO).
set -eu
usage() { echo "usage: lab/tails.sh RUNDIR [FROM TO]   (RUNDIR with trace.txt and probes.txt; FROM < TO, seconds)" >&2; exit 2; }
{ [ $# -eq 1 ] || [ $# -eq 3 ]; } && [ -f "$1/trace.txt" ] && [ -f "$1/probes.txt" ] || usage
FROM=${2:-10}
TO=${3:-120}
for n in "$FROM" "$TO"; do
    case "$n" in ''|*[!0-9.]*|*.*.*|.) usage ;; esac
done
awk -v a="$FROM" -v b="$TO" 'BEGIN { exit !(a + 0 < b + 0) }' || usage
cat "$1/trace.txt" "$1/probes.txt" | awk '
    /^#/ { next }
    { for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) { print substr($i, 1, length($i) - 1), $0; next } }' |
    sort -s -g -k1,1 | awk -v A="$FROM" -v B="$TO" '
    # the value of the field KEY=VALUE ("" when the line has none)
    function val(key,   i) {
        for (i = 1; i <= NF; i++) if (index($i, key "=") == 1) return substr($i, length(key) + 2)
        return ""
    }
    function add(name, x) { if (t - t0 >= A && t - t0 < B) { sum[name] += x; n[name]++ } }
    $0 ~ / sched_switch: / {
        t = $1; if (t0 == "") t0 = t
        pcomm = val("prev_comm"); prev = val("prev_pid"); state = val("prev_state"); next_pid = val("next_pid")
        if (pcomm ~ /^sleeper/ && !(prev in forked)) parent[prev] = 1
        if (prev in on) { acc[prev] += t - on[prev]; delete on[prev] }
        if (state ~ /^[SZX]/) {
            if ((prev in parent) && phase[prev] == "fork") add("p_wait", acc[prev] * 1e6)
            else if ((prev in forked) && (prev in lastread)) {
                if (state ~ /^S/ && !(prev in slept)) { add("c1", acc[prev] * 1e6); add("c1_tail", (acc[prev] - lastread[prev]) * 1e6) }
                else if (state !~ /^S/) { add("c2", acc[prev] * 1e6); add("c2_tail", (acc[prev] - lastread[prev]) * 1e6) }
            }
            if (state ~ /^S/ && (prev in forked)) slept[prev] = 1
            acc[prev] = 0; phase[prev] = ""; delete lastread[prev]
        }
        on[next_pid] = t
        next
    }
    $0 ~ / tsr: / {
        t = $1; pid = val("pid")
        if (pid in on) lastread[pid] = acc[pid] + t - on[pid]
        next
    }
    $0 ~ / sched_process_fork: / {
        t = $1
        pid = val("pid"); cpid = val("child_pid")
        if (val("comm") ~ /^sleeper/ && cpid != "") forked[cpid] = 1
        if ((pid in parent) && (pid in on) && (pid in lastread)) {
            now = acc[pid] + t - on[pid]
            add("p_read", lastread[pid] * 1e6); add("p_fork", (now - lastread[pid]) * 1e6)
            acc[pid] = 0; on[pid] = t; phase[pid] = "fork"; delete lastread[pid]
        }
        next
    }
    END {
        if (!n["p_read"]) { print "tails: no parent burst with a clock read before its fork in [" A " s, " B " s)" > "/dev/stderr"; exit 1 }
        split("p_read p_fork p_wait c1 c1_tail c2 c2_tail", k, " ")
        for (j = 1; j <= 7; j++) printf "%s%s %.0f (%d)", (j > 1 ? ", " : ""), k[j], n[k[j]] ? sum[k[j]] / n[k[j]] : 0, n[k[j]]
        printf "\n"
    }'
