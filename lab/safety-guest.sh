#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=dash
# The guest side of lab/safety.sh (run by lab/init with schedlab.mode=safety): schedlab-run must
# leave the machine as it found it. The state (mounts, sched features, preempt, base_slice_ns,
# the top-level tracing files and buffer, trace instances, the cgroup tree with subtree_control
# and cpu.* files) is recorded, the scenario runs and is stopped
#   1. with SIGTERM at a seeded moment            (the runner undoes its journal itself);
#   2. with SIGKILL at a seeded moment, then `schedlab-run --restore JOURNAL` (twice: idempotent);
#   3. not at all (a whole run, exit 0);
#   4. below the real root with an existing group /A: refused without --adopt (exit 3, named by
#      --check too); with --adopt, SIGKILL and --restore, /A's cpu.* files are back;
#   6. with --limit tasks=10: the guard refuses c's 8th fork and stops the run (exit 3);
# and after each the state must be the same. Prints "schedlab-safety: PASS" or "... FAIL: why".
export PATH=/bin
T=/sys/kernel/tracing
D=/sys/kernel/debug
C=/sys/fs/cgroup
S=/lab/scenario.json
seed=$(tr ' ' '\n' < /proc/cmdline | sed -n 's/^schedlab\.seed=//p')
seed=${seed:-1}
failed=0
say() { echo "schedlab-safety: $*"; }
fail() { say "FAIL: $*"; failed=1; }

state() {
    awk '$3 == "debugfs" || $3 == "tracefs" || $3 == "cgroup2" { print "mount", $2, $3 }' /proc/mounts
    if mount -t debugfs debugfs $D; then
        echo "features: $(cat $D/sched/features)"
        echo "preempt: $(cat $D/sched/preempt)"
        echo "base_slice_ns: $(cat $D/sched/base_slice_ns)"
        umount $D
    fi
    for f in current_tracer buffer_size_kb set_event tracing_on trace_clock; do
        echo "$f: $(cat $T/$f | tr '\n' ' ')"
    done
    echo "instances: $(ls $T/instances | tr '\n' ' ')"
    echo "buffer: $(grep -v '^#' $T/trace | md5sum)"
    echo "cgroup $C: subtree=[$(cat $C/cgroup.subtree_control)]"
    for d in $(find $C -mindepth 1 -type d | sort); do
        echo "cgroup $d: subtree=[$(cat $d/cgroup.subtree_control)]" \
            "weight=$(cat $d/cpu.weight 2>/dev/null) max=$(cat $d/cpu.max 2>/dev/null)" \
            "idle=$(cat $d/cpu.idle 2>/dev/null) procs=$(wc -l < $d/cgroup.procs)"
    done
}

same() { # NAME: compares the state with the one before
    state > /tmp/after-$1
    if cmp -s /tmp/before /tmp/after-$1; then
        say "$1: state identical to before ($(wc -l < /tmp/before) lines)"
    else
        fail "$1: state differs from before:"
        diff /tmp/before /tmp/after-$1
    fi
}

# A delay in ms from the seed, 500 ... 3999: the set-up takes about 1-1.5 s under TCG and the run
# 3 s, so a kill lands in the set-up or in the run, after some or all of the actions.
delay_ms() { echo $(( 500 + ($seed * $1 + 12345) % 3500 )); }

# A starting state the runner must not disturb: debugfs not mounted (the runner mounts it and
# must unmount it), no cpu controller in the root's subtree_control, a buffer size,
# an event and a line in the top-level buffer (the tracer stays nop: a function tracer would
# slow the TCG guest several times over).
umount $D 2>/dev/null
echo 777 > $T/buffer_size_kb
echo sched:sched_process_exec > $T/set_event
echo 1 > $T/tracing_on
echo schedlab-safety-marker > $T/trace_marker
echo 0 > $T/tracing_on
state > /tmp/before
say "seed $seed; state before:"
sed 's/^/  /' /tmp/before

# 1. SIGTERM
d=$(delay_ms 7919)
/bin/schedlab-run $S --trace /tmp/t1.txt > /tmp/log1 2>&1 &
pid=$!
usleep $((d * 1000))
kill -TERM $pid
wait $pid
rc=$?
say "1. SIGTERM after $d ms: exit $rc"
sed 's/^/  | /' /tmp/log1 | grep -v 'not reproduced'
[ $rc -eq 143 ] || [ $rc -eq 0 ] || fail "1. exit $rc, expected 143 (or 0 if it ended first)"
ls /tmp/schedlab-run-*.journal > /dev/null 2>&1 && fail "1. the journal was left behind"
same sigterm

# 2. SIGKILL, then --restore
d=$(delay_ms 104729)
/bin/schedlab-run $S --trace /tmp/t2.txt --journal /tmp/j2 > /tmp/log2 2>&1 &
pid=$!
usleep $((d * 1000))
kill -KILL $pid
wait $pid
say "2. SIGKILL after $d ms: exit $?; the journal:"
sed 's/^/  | /' /tmp/j2
usleep 200000 # the tasks die of their death signal
/bin/schedlab-run --restore /tmp/j2 2>&1 | sed 's/^/  | /'
/bin/schedlab-run --restore /tmp/j2 > /tmp/log2b 2>&1
rc=$?
sed 's/^/  | /' /tmp/log2b
[ $rc -eq 0 ] && grep -q 'restored already' /tmp/log2b || fail "2. a second --restore was not a no-op (exit $rc)"
same sigkill-restore

# 3. A whole run
/bin/schedlab-run $S --trace /tmp/t3.txt > /tmp/log3 2>&1
rc=$?
say "3. whole run: exit $rc, $(grep -c sched_switch /tmp/t3.txt) switches traced"
sed 's/^/  | /' /tmp/log3 | grep -v 'not reproduced'
[ $rc -eq 0 ] || fail "3. exit $rc"
grep -q 'schedlab-task: [0-9]* c /B/C' /tmp/t3.txt || fail "3. the trace header lacks task c in /B/C"
same whole-run

# 4. An existing group: refused, then adopted and put back after SIGKILL + --restore
echo +cpu > $C/cgroup.subtree_control
mkdir $C/A
echo 50 > $C/A/cpu.weight
echo "50000 100000" > $C/A/cpu.max
state > /tmp/before
/bin/schedlab-run $S --cgroup-base $C --check > /tmp/log4 2>&1
rc=$?
grep -q "existing cgroup /A ($C/A): refused" /tmp/log4 || fail "4. --check does not name /A"
[ $rc -eq 3 ] || fail "4. --check exit $rc, expected 3"
/bin/schedlab-run $S --cgroup-base $C --trace /tmp/t4.txt > /tmp/log4 2>&1
rc=$?
say "4. existing /A without --adopt: exit $rc"
sed 's/^/  | /' /tmp/log4 | grep -v 'not reproduced'
[ $rc -eq 3 ] && grep -q "cgroup /A: $C/A exists" /tmp/log4 || fail "4. /A was not refused"
same refused
d=$(delay_ms 1299709)
/bin/schedlab-run $S --cgroup-base $C --adopt --trace /tmp/t5.txt --journal /tmp/j5 > /tmp/log5 2>&1 &
pid=$!
usleep $((d * 1000))
kill -KILL $pid
wait $pid
say "5. --adopt, SIGKILL after $d ms; the journal:"
sed 's/^/  | /' /tmp/j5
usleep 200000
/bin/schedlab-run --restore /tmp/j5 2>&1 | sed 's/^/  | /'
same adopt-sigkill-restore

# 6. The task guard: the 11th task process (3 tasks, then c's forks) is refused, the run stops.
/bin/schedlab-run $S --limit tasks=10 --trace /tmp/t6.txt > /tmp/log6 2>&1
rc=$?
say "6. --limit tasks=10: exit $rc"
sed 's/^/  | /' /tmp/log6 | grep -v 'not reproduced'
[ $rc -eq 3 ] && grep -q 'guard: task c: fork refused' /tmp/log6 || fail "6. the guard did not stop the run"
[ "$(grep -c 'schedlab-task:' /tmp/t6.txt)" -eq 10 ] || fail "6. the trace does not name 10 tasks"
same guard

if [ $failed -eq 0 ]; then say "PASS"; else say "FAIL"; fi
