#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The seed family's dose–response on a real kernel beside the model (docs/real-kernels.md, "The
# curve"): the cgroup-weight-starvation setup of the lab mirrors (kernel-model.md §12.7) with its
# 20 sleepers forking at several rates, each run once per boot with PLACE_LAG switched on at run
# time, and root-spin's share of CPU 1 measured in a window before and after the switch.
#
#   lab/curve.sh KERNEL [OUTDIR]          e.g. lab/curve.sh 6.18.15
#
# One boot per point and run: NO_PLACE_LAG from the start, PLACE_LAG written to
# /sys/kernel/debug/sched/features at SWITCH s (a scenario action, as `schedlab-run` does it);
# the NO_PLACE_LAG window is [START, SWITCH), the PLACE_LAG window [SWITCH + SOAK, DURATION).
# The ratio is root-spin's share of CPU 1's busy time in the second window over the first. The
# model runs the same scenario (one switch, same windows) at CURVE_SEEDS seeds; its ratio is the
# median, with the lowest and highest seed's beside it.
#
# Environment: CURVE_POINTS (default "fork:1s fork:500ms fork:250ms fork:100ms fork:50ms
# shell:20 shell:60": the fork helper's child sleeping that long, or that many busybox shell
# loops sleeping 1 s), CURVE_RUNS (real runs per point, default 2), CURVE_SEEDS (model seeds,
# default 5), CURVE_DURATION / CURVE_SWITCH / CURVE_SOAK / CURVE_START (seconds, default
# 120 / 50 / 20 / 10), CURVE_PROFILE (the model's profile, default the point release KERNEL,
# e.g. 6.18.15: its series' profile with the fix catalogue),
# CURVE_SPREAD (the standard deviations of the sleepers' bursts in µs, "P C1 C2": the parent's,
# the child's first and its last; default the lab's measured ones, 0 for fixed costs: see
# spread_default below), CURVE_RCU (the guest's rcu_preempt kthread in the model's scenario,
# "RATE RUN": wake-ups per second and µs per run; default the lab's measured ones, 0 for none: see
# rcu_default below), CURVE_NEWIDLE (the new-idle balance's cost in the guest, µs, for the
# model's cost gate; default 0, none: see NEWIDLE below), CURVE_BURSTS (the sleepers' bursts' CPU
# times in the model's scenario, µs, "P C1 C2": the parent's per iteration, the child's first and
# its last; default the lab's measured ones, 0 for the workload's own: see bursts_default below),
# CURVE_TAIL (the runner's CPU time after its last clock read in each burst, in µs, "P C1 C2": to
# the parent's wait, the child's sleep and the end of its exit; default the lab's measured ones,
# 0 for none: see tail_default below), CURVE_MODEL_ONLY (1: no VM, the model's column only), CURVE_CLOCK (default 1: the model's
# scenario reads the CPU clock after every run, as schedlab-run does on the real kernel; 0: plain runs), CURVE_COUNT (1: each real run also counts
# the kernel's reweight_entity() calls, LAB_COUNT, for /testgroup's entity on CPU 1's reweights
# per tick in the PLACE_LAG window; the probe costs the guest a little time per call). With
# LAB_PROBE=lab/probes-clock-read.txt each real run also measures its own bursts and where the
# runner's last clock reads fell in them (lab/tails.sh), prints them and runs the model's scenario
# at those figures and the run's own spread (CURVE_SEEDS seeds) beside the run. Every lab.sh variable (LAB_LIGHT,
# LAB_STRICT, LAB_MITIGATIONS, ...) passes through; LAB_LIGHT and LAB_EXACT default to 1 here (the children
# cost what their programs say, as in the model). A disturbed run is flagged in the table and
# left out of the point's real ratio.
# Exit codes: 0 ok, 2 bad arguments (or a scenario the model refuses), 3 a tool is missing, 4 a VM
# run failed.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
KERNEL=${1:-}
[ -n "$KERNEL" ] || { echo "usage: lab/curve.sh KERNEL [OUTDIR]   (e.g. 6.18.15)" >&2; exit 2; }
OUT=${2:-$root/build/curve/$KERNEL}
BUILD=${BUILD:-$root/build/dev}
POINTS=${CURVE_POINTS:-"fork:1s fork:500ms fork:250ms fork:100ms fork:50ms shell:20 shell:60"}
RUNS=${CURVE_RUNS:-2}
SEEDS=${CURVE_SEEDS:-5}
DURATION=${CURVE_DURATION:-120}
SWITCH=${CURVE_SWITCH:-50}
SOAK=${CURVE_SOAK:-20}
START=${CURVE_START:-10}
PROFILE=${CURVE_PROFILE:-}
MODEL_ONLY=${CURVE_MODEL_ONLY:-0}
for n in "$RUNS" "$SEEDS" "$DURATION" "$SWITCH" "$SOAK" "$START"; do
    case "$n" in ''|*[!0-9]*) echo "curve: CURVE_* counts and times are whole numbers" >&2; exit 2;; esac
done
# check_numbers NAME COUNT FORM VALUE: VALUE is unset, 0 or COUNT whole numbers (FORM says which).
check_numbers() {
    [ -n "$4" ] && [ "$4" != 0 ] || return 0
    name=$1 count=$2 form=$3
    set -- $4
    ok=1
    [ $# -eq "$count" ] || ok=0
    for n in "$@"; do
        case "$n" in *[!0-9]*) ok=0 ;; esac
    done
    [ "$ok" = 1 ] || { echo "curve: $name is 0 or $form" >&2; exit 2; }
}
check_numbers CURVE_SPREAD 3 'three deviations in whole µs ("P C1 C2")' "${CURVE_SPREAD:-}"
check_numbers CURVE_TAIL 3 'three means in whole µs ("P C1 C2")' "${CURVE_TAIL:-}"
check_numbers CURVE_BURSTS 3 'three means in whole µs ("P C1 C2")' "${CURVE_BURSTS:-}"
check_numbers CURVE_RCU 2 '"RATE RUN" (whole wake-ups per second, µs per run)' "${CURVE_RCU:-}"
if [ "$START" -ge "$SWITCH" ] || [ $((SWITCH + SOAK)) -ge "$DURATION" ]; then
    echo "curve: the windows [START, SWITCH) and [SWITCH + SOAK, DURATION) must not be empty" >&2
    exit 2
fi
CLI=$BUILD/bin/schedlab-cli
[ -x "$CLI" ] || { echo "curve: $CLI is not built" >&2; exit 3; }
mkdir -p "$OUT"
# The model's profile: the kernel's own point release (kernel-model.md §1.4) unless given.
case "$KERNEL" in
*.*.*) PROFILE=${PROFILE:-$KERNEL} ;;
*) PROFILE=${PROFILE:-6.18.15} ;;
esac
# The preemption model: lazy where the kernel has it (6.13+; Debian builds it in), else the
# voluntary preemption Debian's 6.12 and older kernels run (they refuse "lazy" and run on in
# their own, so the model must run that too).
major=$(echo "$KERNEL" | cut -d. -f1)
minor=$(echo "$KERNEL" | cut -d. -f2)
case "$major$minor" in *[!0-9]*|'') major=6 minor=18 ;; esac
PREEMPT=lazy
[ "$major" -lt 6 ] || { [ "$major" -eq 6 ] && [ "$minor" -lt 13 ]; } && PREEMPT=voluntary
kernel_json="\"profile\": \"$PROFILE\", \"hz\": 250, \"preempt\": \"$PREEMPT\""
# The new-idle balance's cost (CURVE_NEWIDLE, µs): what the guest's sched_clock measures over
# one new-idle balance of its domain, which the kernel's cost gate compares with the CPU's mean
# idle time (kernel-model.md §8.3, "The new-idle cost gate"). Under TCG it is far above a native
# machine's few µs, but measured there the gate closed at too few balances to matter (constant
# costs of 460 and 860 µs change no ratio: docs/real-kernels.md, "The guest's kernel threads"),
# so the default is 0, which writes none (every gate passes).
NEWIDLE=${CURVE_NEWIDLE:-0}
case "$NEWIDLE" in ''|*[!0-9]*) echo "curve: CURVE_NEWIDLE is whole µs" >&2; exit 2;; esac
[ "$NEWIDLE" -gt 0 ] &&
    kernel_json="$kernel_json, \"costs\": { \"newidle_balance\": \"${NEWIDLE}us\" }"

# The sleepers' spread (CURVE_SPREAD). On the lab the runner keeps each task's CPU account exact
# over its life (--exact-costs), but not each burst: what a fork, a wait, a wake-up or an exit
# costs lands in one burst and is taken off the next, so a burst's CPU time scatters about the
# scenario's figure. Measured in the traces of 18 runs on 6.18.15 and 6.12.117
# (docs/real-kernels.md, "The sleepers' spread"; each run's own is in the table, see bursts
# below): the standard deviation of the parent's burst, of the child's first and of its last, in
# µs, 490 / 300 / 190 for the fork helper (the mean of 14 runs) and 410 / 680 / 420 for the shell
# loops (4 runs). With every burst exactly as written the model's sleepers fall into a train that
# never meets on CPU 0 (a fixed period with fixed costs); the real ones keep meeting.
# CURVE_SPREAD="P C1 C2" (µs) sets the deviations; 0 writes every run as a fixed duration. A run
# step with spread is uniform about its figure with the same standard deviation (half-width
# sqrt(3) sd, kept above 50 µs).
spread_default() {
    case "$1" in
    fork) echo "490 300 190" ;;
    shell) echo "410 680 420" ;;
    esac
}
# The sleepers' bursts (CURVE_BURSTS) and where the runner's last clock read falls in them
# (CURVE_TAIL). The real run is given the workload's own figures (the fork helper: 2.3 ms in the
# parent, 1.8 ms in the child, then 1 ms at its exit); what its bursts cost on the guest, and where
# in each the runner's last read of the CPU clock falls, are measured with lab/tails.sh on a run
# probed with lab/probes-clock-read.txt (docs/real-kernels.md, "Where the runner's clock reads
# fall"), and the model's scenario runs those. A read of the CPU clock runs update_curr() and, when
# the return to user mode finds a reschedule pending, switches the task out runnable
# (kernel-model.md §7.2, "Between ticks"), so where it falls decides whether the task's slice is
# over there. CURVE_BURSTS="P C1 C2" (µs): the parent's CPU time per iteration (from its wake-up
# to its wait's block), the child's first burst (to its sleep) and its last (to its exit);
# 0 writes the workload's figures. CURVE_TAIL="P C1 C2" (µs): the mean CPU time after the last
# read: the parent's to its wait (the return, the fork system call up to the child's wake-up and,
# after it, the way into wait4(): the scenario has no step between a fork and its wait, so all of
# it runs before the fork), the child's to its sleep, and to the end of its exit (the exit system
# call, which wakes the parent). The parent's and the exit's tails are system calls, written as
# kernel sections; a tail of mean M is uniform over [M/2, 3M/2], its mean taken off the burst.
# 0 (or CURVE_CLOCK=0, no clock read to follow) writes none. The defaults are 6.18.15's, measured
# over [10 s, 120 s) of one run each (lab/tails.sh): the fork helper at 250 ms, the parent
# 1 365 + 726 + 214 µs, the child's first burst 2 039 with a tail of 110, its last 1 292 with 495
# (the bursts of the 1 s to 100 ms traces are the same within a few per cent at every rate); 20
# shell loops, the parent 1 968 + 653 + 182, the child 9 247 with 124, then 1 920 with 460.
bursts_default() {
    case "$1" in
    fork) echo "2300 2040 1290" ;;
    shell) echo "2800 9250 1920" ;;
    esac
}
tail_default() {
    case "$1" in
    fork) echo "940 110 500" ;;
    shell) echo "840 120 460" ;;
    esac
}
# tail_step MEAN_US [kernel]: the tail's run step after a clock read (nothing for 0), in a kernel
# section with "kernel" (a system call: fork(), exit()).
tail_step() {
    [ "$1" -gt 0 ] || return 0
    step=$(printf '{ "run": { "uniform": ["%dus", "%dus"] } }' $(( ($1 + 1) / 2 )) $(( (3 * $1 + 1) / 2 )))
    if [ "${2:-}" = kernel ]; then printf ', { "kernel": [ %s ] }' "$step"; else printf ', %s' "$step"; fi
}
# burst_sds "SD SD SD" "TAIL TAIL TAIL" (µs, P C1 C2): for each burst the deviation left for the
# run before a tail of mean TAIL (uniform over [TAIL/2, 3 TAIL/2], deviation TAIL/sqrt(12)) for the
# whole burst to keep deviation SD: sqrt(SD^2 - TAIL^2/12), rounded, 0 when the tail alone
# deviates as much.
burst_sds() {
    echo "$1 $2" | awk '{ for (i = 1; i <= 3; i++) { v = $i * $i - $(i + 3) * $(i + 3) / 12
        printf "%d%s", (v > 0 ? int(sqrt(v) + 0.5) : 0), (i < 3 ? " " : "\n") } }'
}
# run_step NOMINAL_US SD_US: the JSON value of a run step of NOMINAL µs with that deviation.
run_step() {
    awk -v m="$1" -v sd="$2" 'BEGIN {
        if (sd <= 0) { printf "\"%dus\"", m; exit }
        h = int(sqrt(3) * sd + 0.5); lo = m - h; if (lo < 50) lo = 50
        printf "{ \"uniform\": [\"%dus\", \"%dus\"] }", lo, m + h }'
}

# The guest's RCU grace-period thread (CURVE_RCU, "RATE RUN": its wake-ups per second and the
# CPU time of each in µs). The real sleepers' exits free their task structures after an RCU grace
# period, so the guest's rcu_preempt kthread (a fair task of the root cgroup, unpinned) runs while
# grace periods are pending: every 2 jiffies (7.8 ms at HZ 250) for about 120 µs under TCG, in
# bursts whose share of the time grows with the exit rate. It is the only kernel thread that runs
# often beside the sleepers, and each of its runs on CPU 0 is one more time CPU 0 goes idle and
# balances (docs/real-kernels.md, "The guest's kernel threads"). Measured in the traces of
# 6.18.15 runs (curve.sh's replays): see rcu_default below, where a point between two measured
# ones is interpolated linearly in its fork (or loop) rate, and one outside them takes the nearest
# one's figure. The scenario runs
# it as a task of the root cgroup waking RATE times a second (each sleep uniform over 3/4 to 5/4
# of the mean gap) and running uniform [RUN/2, 3·RUN/2]. 0 writes none (the real run's file never
# has it: the guest has its own).
rcu_default() {
    # The measured points, "kind:period_ms_or_loops:wakeups_per_s:run_us" (the replays of one
    # steady 6.18.15 run each, 7 December 2026), each kind in increasing rate of forks per sleeper
    # (fork: 1000 / period; shell: the loops), interpolated linearly, the nearest one outside them.
    awk -v kind="$1" -v arg="$2" 'BEGIN {
        n = split("fork:1000:36.5:128 fork:500:78.4:118 fork:350:99.5:116 fork:250:113.0:135 fork:150:121.3:123 fork:100:113.9:104 shell:20:56.0:117 shell:60:103.8:102", m, " ")
        x = (kind == "fork") ? 1000.0 / arg : arg
        for (i = 1; i <= n; i++) {
            split(m[i], f, ":"); if (f[1] != kind) continue
            k++; px[k] = (kind == "fork") ? 1000.0 / f[2] : f[2]; pr[k] = f[3]; pu[k] = f[4]
        }
        if (k == 0) { print 0; exit }
        if (x <= px[1]) { printf "%d %d\n", pr[1] + 0.5, pu[1]; exit }
        if (x >= px[k]) { printf "%d %d\n", pr[k] + 0.5, pu[k]; exit }
        for (i = 1; i < k; i++) if (x >= px[i] && x <= px[i + 1]) {
            a = (x - px[i]) / (px[i + 1] - px[i])
            printf "%d %d\n", pr[i] + a * (pr[i + 1] - pr[i]) + 0.5, pu[i] + a * (pu[i + 1] - pu[i]) + 0.5
            exit }
    }'
}
# rcu_task RATE RUN: the thread's task object (with a leading comma), nothing for 0.
rcu_task() {
    [ "${1:-0}" -gt 0 ] 2>/dev/null || return 0
    gap=$((1000000 / $1 - $2))
    [ "$gap" -gt 100 ] || gap=100
    printf ',\n    { "name": "rcu_preempt", "cgroup": "/", "program": [ { "loop": [ { "sleep": { "uniform": ["%dus", "%dus"] } }, { "run": { "uniform": ["%dus", "%dus"] } } ] } ] }' \
        $((gap * 3 / 4)) $((gap * 5 / 4)) $((($2 + 1) / 2)) $(((3 * $2 + 1) / 2))
}

# scenario POINT FILE [SPREAD [TAIL [RCU [BURSTS]]]]: the setup at one point, NO_PLACE_LAG until
# SWITCH; SPREAD, TAIL, RCU and BURSTS as CURVE_SPREAD, CURVE_TAIL, CURVE_RCU and CURVE_BURSTS
# (0 0 0 0: the workload's fixed costs, which the real run is given: its own costs, spread, tails
# and kernel threads are the machine's).
# CURVE_CLOCK=1 (the default): every run ends with a read of the CPU clock, as schedlab-run's do
# (kernel-model.md §7.2, "Between ticks"; docs/real-kernels.md, "The runner's clock reads").
clock=
[ "${CURVE_CLOCK:-1}" = 1 ] && clock=', { "cpu_clock": true }'
scenario() {
    kind=${1%%:*}
    arg=${1#*:}
    case "$kind" in
    fork|shell) ;;
    *) echo "curve: unknown point $1 (fork:PERIOD or shell:LOOPS)" >&2; exit 2 ;;
    esac
    sd=${3:-${CURVE_SPREAD:-$(spread_default "$kind")}}
    [ "$sd" = 0 ] && sd="0 0 0"
    tl=${4:-${CURVE_TAIL:-$(tail_default "$kind")}}
    { [ "$tl" = 0 ] || [ -z "$clock" ]; } && tl="0 0 0"
    # the period in ms (fork:1s, fork:1.5s, fork:250ms, fork:500000us) or the loops
    rate_arg=$(echo "$arg" | awk '{ v = $0 + 0; if (/us$/) v /= 1000; else if (!/ms$/ && /s$/) v *= 1000; print v }')
    rcu=${5:-${CURVE_RCU:-$(rcu_default "$kind" "$rate_arg")}}
    [ "$rcu" = 0 ] && rcu="0 0"
    rcu_json=$(rcu_task $rcu)
    bu=${6:-${CURVE_BURSTS:-$(bursts_default "$kind")}}
    case "$kind" in
    fork)
        # The fork helper (scenarios/lab-mirror-fork.json): 2.3 ms in the parent, a child of
        # 1.8 ms, a sleep of ARG and 1 ms at its exit, waited for.
        sleepers=20 nominal="2300 1800 1000" sleep=$arg ;;
    shell)
        # ARG busybox loops `while true; do sleep 1; done` (scenarios/lab-mirror-shell.json).
        sleepers=$arg nominal="2800 8600 2000" sleep=1s ;;
    esac
    [ "$bu" = 0 ] && bu=$nominal
    # each burst must outlast the tail taken off it
    echo "$bu $tl" | awk '{ split("P C1 C2", n, " "); for (i = 1; i <= 3; i++) if ($(i + 3) > 0 && $(i + 3) >= $i) {
        printf "curve: the %s burst (CURVE_BURSTS, %d µs) must be longer than its tail (CURVE_TAIL, %d µs)\n", n[i], $i, $(i + 3) > "/dev/stderr"; exit 1 } }' || exit 2
    set -- "$1" "$2" $(burst_sds "$sd" "$tl") $tl $bu
    program="{ \"run\": $(run_step $(($9 - $6)) "$3") }$clock$(tail_step "$6" kernel),
        { \"fork\": { \"program\": [ { \"run\": $(run_step $((${10} - $7)) "$4") }$clock$(tail_step "$7"), { \"sleep\": \"$sleep\" }, { \"run\": $(run_step $((${11} - $8)) "$5") }$clock$(tail_step "$8" kernel) ] }, \"wait\": true }"
    cat > "$2" <<EOF
{
  "schedlab": 1,
  "name": "curve-$kind-$arg",
  "title": "Seed-family curve point $1: root-spin against /testgroup, PLACE_LAG switched on at ${SWITCH} s",
  "description": "Written by lab/curve.sh. CPU 1 runs root-spin (root cgroup) and test-spin (/testgroup, cpu.weight 2000), both pinned; $sleepers unpinned sleepers of /testgroup fork and wait ($1). NO_PLACE_LAG from the start, PLACE_LAG from ${SWITCH} s; windows [${START} s, ${SWITCH} s) and [$((SWITCH + SOAK)) s, ${DURATION} s).",
  "seed": 1,
  "duration": "${DURATION}s",
  "kernel": { $kernel_json,
              "features": { "PLACE_LAG": false } },
  "machine": { "cpus": 2 },
  "cgroups": [ { "path": "/testgroup", "cpu.weight": 2000 } ],
  "tasks": [
    { "name": "root-spin", "cgroup": "/", "cpus": "1", "program": [ { "run": "forever" } ] },
    { "name": "test-spin", "cgroup": "/testgroup", "cpus": "1", "program": [ { "run": "forever" } ] },
    { "name": "sleeper", "count": $sleepers, "cgroup": "/testgroup",
      "start": { "uniform": ["0ms", "100ms"] },
      "program": [ { "loop": [
        $program
      ] } ] }$rcu_json
  ],
  "actions": [ { "at": "${SWITCH}s", "feature": { "PLACE_LAG": true } } ]
}
EOF
}

# shares RECORDS [cut]: root-spin's share of CPU 1's busy time in the two windows, and
# /testgroup@1's reweights per tick of CPU 1 (HZ 250) in the second window ("-" for a real
# trace), from `--records` text (lab/shares.awk). With "cut" (a replay) the second window ends
# where the replay's first sleeper falls silent, printed as a fourth field.
shares() {
    if [ "${2:-}" = cut ]; then
        awk -v A1="$START" -v B1="$SWITCH" -v A2=$((SWITCH + SOAK)) -v B2="$DURATION" -v CUT=1 \
            -f "$here/shares.awk" "$1" "$1"
    else
        awk -v A1="$START" -v B1="$SWITCH" -v A2=$((SWITCH + SOAK)) -v B2="$DURATION" \
            -f "$here/shares.awk" "$1"
    fi
}

# reweights DIR: /testgroup's entity on CPU 1, reweights per tick of CPU 1 in the PLACE_LAG
# window, from the kernel's reweight_entity(cfs_rq, se, weight) calls (DIR/calls.txt: seconds cpu
# cfs_rq se weight, in the trace's clock). The group's entities are the se's reweighted to more
# than two weights (a task's weight changes only with its nice); the one reweighted most often on
# CPU 1 is CPU 1's. The run's time 0 is the trace's first event.
reweights() {
    t0=$(grep -v '^#' "$1/trace.txt" | head -n 1 | sed -n 's/.* \([0-9][0-9]*\.[0-9]*\): .*/\1/p')
    awk -v t0="${t0:-0}" -v a2=$((SWITCH + SOAK)) -v b2="$DURATION" '
    { n[$4]++; if (!(($4, $5) in seen)) { seen[$4, $5] = 1; w[$4]++ }
      if ($2 == 1) on1[$4]++
      t = $1 - t0; if (t >= a2 && t < b2) win[$4]++ }
    END {
        best = ""; for (se in n) if (w[se] > 2 && on1[se] > on1[best]) best = se
        if (best == "") print "-"; else printf "%.3f\n", win[best] / ((b2 - a2) * 250)
    }' "$1/calls.txt"
}

# bursts RECORDS: the standard deviations (µs) of the sleepers' CPU bursts from START on, as
# "P/C1/C2" (lab/bursts.awk).
bursts() { awk -v A="$START" -f "$here/bursts.awk" "$1"; }

# run_model SCENARIO FILE: the model at CURVE_SEEDS seeds, one line "SEED NPL PL RW" per seed
# in FILE (shares above).
run_model() {
    : > "$2"
    s=1
    while [ "$s" -le "$SEEDS" ]; do
        "$CLI" run "$1" --seed "$s" --no-samples --quiet --records "$2.rec" ||
            { echo "curve: the model failed on $1 at seed $s" >&2; exit 2; }
        echo "$s $(shares "$2.rec")" >> "$2"
        rm -f "$2.rec"
        s=$((s + 1))
    done
}
# model_ratios FILE: the median, lowest and highest of a run_model file's ratios; only "-" when no
# seed has a share before the switch (callers pad with two empty words).
model_ratios() {
    ratios=$(awk '$2 > 0 { printf "%.4f\n", $3 / $2 }' "$1" | sort -g)
    [ -n "$ratios" ] || { echo "-"; return; }
    echo "$(echo "$ratios" | median)" "$(echo "$ratios" | head -n 1)" "$(echo "$ratios" | tail -n 1)"
}
# median of the numbers on stdin
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "-"; else if (NR % 2) print v[(NR + 1) / 2]; else printf "%.4f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

table="$OUT/curve.txt"
{
    echo "# lab/curve.sh $KERNEL: root-spin's share of CPU 1, NO_PLACE_LAG in [$START s, $SWITCH s), PLACE_LAG in [$((SWITCH + SOAK)) s, $DURATION s); model profile $PROFILE, $SEEDS seeds"
    printf "%-12s %-28s %-22s %-8s %s\n" point "model ratio (min-max)" "model NPL/PL share" \
        "model rw" "real ratio per run (NPL/PL share, with CURVE_COUNT the reweights per tick, the run replayed by the model (to T s: where its sleepers ran out), with LAB_PROBE=lab/probes-clock-read.txt the model at the run's own bursts and clock reads, the sleepers' bursts' standard deviations P/C1/C2, their timers over 1 ms late, steadiness)"
} > "$table"
for point in $POINTS; do
    tag=$(echo "$point" | tr ':' '-')
    scen="$OUT/$tag.json"
    scenario "$point" "$scen"
    "$CLI" validate "$scen" >/dev/null || { echo "curve: $scen does not validate" >&2; exit 2; }
    # The real run is given every burst as written: the machine adds its own spread.
    lscen="$OUT/$tag-lab.json"
    scenario "$point" "$lscen" 0 0 0 0
    "$CLI" validate "$lscen" >/dev/null || { echo "curve: $lscen does not validate" >&2; exit 2; }
    # The model, CURVE_SEEDS seeds.
    run_model "$scen" "$OUT/$tag.model"
    set -- $(model_ratios "$OUT/$tag.model") "" ""
    mratio=$1 mmin=$2 mmax=$3
    mnpl=$(awk '{ print $2 }' "$OUT/$tag.model" | median)
    mpl=$(awk '{ print $3 }' "$OUT/$tag.model" | median)
    mrw=$(awk '{ print $4 }' "$OUT/$tag.model" | median)
    real=""
    if [ "$MODEL_ONLY" != 1 ]; then
        r=1
        while [ "$r" -le "$RUNS" ]; do
            dir="$OUT/$tag-run$r"
            echo "curve: $point run $r of $RUNS on $KERNEL" >&2
            count=
            [ "${CURVE_COUNT:-0}" = 1 ] && count=reweight_entity
            # A guest that panicked while booting (lab.sh exit 6: nothing ran) boots again, up
            # to three boots in all; each failed boot's log is kept as DIR.bootN.log.
            boot=1
            while :; do
                if LAB_COUNT=$count LAB_LIGHT=${LAB_LIGHT:-1} LAB_EXACT=${LAB_EXACT:-1} LAB_MEM=${LAB_MEM:-1024} LAB_SEED=$r BUILD="$BUILD" \
                    "$here/lab.sh" "$KERNEL" "$lscen" "$dir" > "$dir.log" 2>&1; then rc=0; else rc=$?; fi
                [ "$rc" -eq 6 ] && [ "$boot" -lt 3 ] || break
                cp "$dir.log" "$dir.boot$boot.log"
                echo "curve: the guest did not boot (boot $boot, see $dir.boot$boot.log); booting again" >&2
                boot=$((boot + 1))
            done
            if [ "$rc" -ne 0 ]; then
                echo "curve: lab.sh failed (exit $rc), see $dir.log" >&2
                [ "$rc" -eq 5 ] || exit 4
            fi
            "$CLI" import "$dir/trace.txt" --records "$dir/real.rec" --quiet
            spread=$(bursts "$dir/real.rec")
            set -- $(shares "$dir/real.rec")
            rw=""
            [ "${CURVE_COUNT:-0}" = 1 ] && rw=", $(reweights "$dir") reweights per tick"
            verdict=$(cut -d: -f1 "$dir/steadiness.txt" | cut -d' ' -f1)
            # how late the sleepers' timers fired (lab/init): the share over 1 ms
            late=$(sed -n 's/.*, \([0-9.]*\) % over 1 ms.*/\1 %/p' "$dir/steadiness.txt")
            rr=$(awk -v a="$1" -v b="$2" 'BEGIN { if (a > 0) printf "%.3f", b / a; else print "-" }')
            # The model at this run's own timing: its trace replayed (each burst, sleep and
            # wake-up as measured, the PLACE_LAG switch where the runner marked it).
            rp="-"
            if [ -s "$dir/replay.json" ] &&
                "$CLI" run "$dir/replay.json" --no-samples --quiet --records "$dir/replay.rec" 2>/dev/null; then
                # (its sleepers run the traced iterations once: the window ends where the
                # first of them falls silent, said when that is over a second early)
                rp=$(shares "$dir/replay.rec" cut | awk -v d="$DURATION" '$1 > 0 {
                    printf "%.3f", $2 / $1; if ($4 + 1 < d) printf " to %.0f s", $4 }')
            fi
            rm -f "$dir/replay.rec"
            # With LAB_PROBE=lab/probes-clock-read.txt: the run's own bursts and where its last
            # clock reads fell (lab/tails.sh), and the model's scenario at those, CURVE_SEEDS seeds.
            # (With CURVE_CLOCK=0 the model's scenario has no clock reads, so no tails to place.)
            at=""
            if [ -n "$clock" ] && [ -s "$dir/probes.txt" ] && grep -q ' tsr: ' "$dir/probes.txt"; then
                if m=$("$here/tails.sh" "$dir" "$START" "$DURATION" 2>&1); then
                    set -- $(echo "$m" | tr -d '(),' | awk '{ for (i = 1; i < NF; i++) v[$i] = int($(i + 1) + 0.5)
                        print v["p_read"] + v["p_fork"] + v["p_wait"], v["c1"], v["c2"], v["p_fork"] + v["p_wait"], v["c1_tail"], v["c2_tail"] }')
                    # the run's own spread (bursts.awk's P/C1/C2) with its own bursts and tails
                    scenario "$point" "$dir/measured.json" "$(echo "$spread" | tr '/' ' ')" "$4 $5 $6" "" "$1 $2 $3"
                    "$CLI" validate "$dir/measured.json" >/dev/null ||
                        { echo "curve: $dir/measured.json does not validate" >&2; exit 2; }
                    run_model "$dir/measured.json" "$dir/measured.model"
                    set -- "$@" $(model_ratios "$dir/measured.model") "" ""
                    at=", at its bursts $1/$2/$3 µs with tails $4/$5/$6 and its spread the model gives $7 ($8-$9)"
                else
                    at=", its bursts not measured ($(echo "$m" | head -n 1))"
                fi
            fi
            set -- $(shares "$dir/real.rec")
            real="$real $rr ($1/$2$rw, replayed ${rp:--}$at, bursts' sd $spread µs, timers ${late:-?} late, $verdict)"
            rm -f "$dir/real.rec"
            r=$((r + 1))
        done
    fi
    printf "%-12s %-28s %-22s %-8s %s\n" "$point" "$mratio ($mmin-$mmax)" "$mnpl/$mpl" "$mrw" \
        "${real:- (model only)}" >> "$table"
done
cat "$table"
