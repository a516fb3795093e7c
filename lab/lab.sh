#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The real-kernel lab (docs/real-kernels.md): boots a Debian kernel under qemu (TCG), runs a
# scenario there with schedlab-run, collects the trace and /sys/kernel/debug/sched/debug, and
# prints the model beside the real run (schedlab-cli compare --real).
#
#   lab/lab.sh KERNEL SCENARIO [OUTDIR]     e.g. lab/lab.sh 6.18.15 scenarios/equal-hogs.json
#
# Environment: BUILD (default build/dev: bin/schedlab-run, bin/schedlab-cli), LAB_CACHE
# (downloaded kernels, default build/lab-cache), LAB_SUITES (Debian suites searched, default
# "trixie trixie-backports sid experimental"), LAB_MIRROR (default http://deb.debian.org/debian),
# LAB_TIMEOUT (seconds for the whole VM run, default: scenario duration + 300), LAB_COUNT (a
# kernel function, e.g. reweight_entity: a kprobe counts its calls during the run, per CPU and per
# argument pair, written to OUTDIR/counts.txt; docs/real-kernels.md "Counting a kernel function"),
# LAB_MITIGATIONS (off: the guest boots with mitigations=off), LAB_STRICT (1: a disturbed run
# exits 5 instead of only being flagged), LAB_ICOUNT (a shift 0-10: qemu -icount, the guest's
# clocks count instructions, 2^SHIFT ns each, so the host's load cannot reach its timing),
# LAB_LIGHT (1: schedlab-run --light-children, forked children the parent waits for start in
# its memory, clone(CLONE_VM), so they cost what their programs say), LAB_PROBE (a file of probe events, one per
# line as the kernel's dynamic_events takes them but named `f:NAME SYMBOL ARGS`, `p:NAME ...`
# or `t:NAME TRACEPOINT ...`, with BTF field access such as p->se.avg.util_avg: recorded
# during the run in a trace instance of their own, written to OUTDIR/probes.txt), LAB_EXACT (1: schedlab-run --exact-costs,
# each task's run operations absorb what it spent between them: its start, forks, waits and
# wake-ups cost nothing beyond its program's runs but its exit), LAB_MEM (the guest's memory in MiB,
# default 512; the trace is kept in it until the run ends).
# The machine's own apt configuration is not touched: the kernel package is looked up with a
# separate sources list and lists directory under LAB_CACHE.
# Every run measures its own steadiness (OUTDIR/steadiness.txt): the host's CPU time spent on
# other work at normal priority while qemu ran (work at a lower priority, under nice, is shown
# apart), how long qemu's own threads waited for a host CPU (their schedstat run_delay; on a
# quiet 2-core host about 4 % of their CPU time, as its two vCPUs and its main thread share two
# cores), and the guest's speed (schedlab-run --calibrate, the fastest of three) before and after
# the run. A run with more than a quarter of a CPU of other work at normal priority, whose qemu
# waited more than 8 % of its CPU time, or whose guest speed moved by more than 20 %, is flagged
# DISTURBED. Under LAB_ICOUNT the host's load only stretches the wall time; the guest's speed
# per µs of its own CPU time must stay within 1 %.
# Exit codes: 0 ok, 2 bad arguments, 3 a tool or the kernel is missing, 4 the VM run failed,
# 5 the run was disturbed and LAB_STRICT=1, 6 the guest kernel panicked before its trace came back
# whole (under TCG an early-boot "Oops: int3" in patched kernel text happens about once in 20
# boots, and once a double fault after the run: boot again).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
KERNEL=${1:-}
SCENARIO=${2:-}
if [ -z "$KERNEL" ] || [ -z "$SCENARIO" ]; then
    echo "usage: lab/lab.sh KERNEL SCENARIO [OUTDIR]   (e.g. 6.18.15 scenarios/equal-hogs.json)" >&2
    exit 2
fi
[ -f "$SCENARIO" ] || { echo "lab: $SCENARIO: no such scenario" >&2; exit 2; }
SCENARIO=$(cd "$(dirname "$SCENARIO")" && pwd)/$(basename "$SCENARIO")
BUILD=${BUILD:-$root/build/dev}
CACHE=${LAB_CACHE:-$root/build/lab-cache}
SUITES=${LAB_SUITES:-"trixie trixie-backports sid experimental"}
MIRROR=${LAB_MIRROR:-http://deb.debian.org/debian}
name=$(basename "$SCENARIO" .json)
OUT=${3:-$root/build/lab/$name-$KERNEL}

for tool in qemu-system-x86_64 apt-get dpkg-deb gzip; do
    command -v "$tool" >/dev/null 2>&1 || {
        echo "lab: $tool is missing; run 'make lab-deps' as root" >&2; exit 3; }
done
BUSYBOX=${BUSYBOX:-/bin/busybox}
if ! file -L "$BUSYBOX" 2>/dev/null | grep -q "statically linked"; then
    # Without `file`, trust Debian's busybox-static path.
    [ -x "$BUSYBOX" ] || { echo "lab: no static busybox at $BUSYBOX (busybox-static)" >&2; exit 3; }
fi
for bin in schedlab-run schedlab-cli; do
    [ -x "$BUILD/bin/$bin" ] || { echo "lab: $BUILD/bin/$bin is not built" >&2; exit 3; }
done

"$BUILD/bin/schedlab-cli" validate "$SCENARIO" >/dev/null || exit 2
# The machine's CPU count ("machine": { "cpus": N }, default 1), the file joined into one line.
cpus=$(tr -d '\n' < "$SCENARIO" | sed -n 's/.*"machine"[^}]*"cpus"[^0-9}]*\([0-9][0-9]*\).*/\1/p')
cpus=${cpus:-1}
# The topology ("threads_per_core", "cores_per_llc"): qemu's -smp cores/threads, one socket (one
# LLC) per group of cores_per_llc cores, so the guest kernel builds the same SMT/MC/PKG domains.
machine_field() {
    tr -d '\n' < "$SCENARIO" | sed -n "s/.*\"machine\"[^}]*\"$1\"[^0-9}]*\([0-9][0-9]*\).*/\1/p"
}
threads=$(machine_field threads_per_core)
threads=${threads:-1}
cores=$((cpus / threads))
cores_per_llc=$(machine_field cores_per_llc)
cores_per_llc=${cores_per_llc:-$cores}
smp="$cpus,sockets=$((cores / cores_per_llc)),cores=$cores_per_llc,threads=$threads"
duration_s=$(sed -n 's/.*"duration"[^"]*"\([0-9.]*\)\(ms\|s\)".*/\1 \2/p' "$SCENARIO" | head -n 1 |
    awk '{ if ($2 == "ms") print int($1 / 1000) + 1; else print int($1) + 1 }')
duration_s=${duration_s:-11}
TIMEOUT=${LAB_TIMEOUT:-$((duration_s + 300))}
COUNT=${LAB_COUNT:-}
MITIGATIONS=${LAB_MITIGATIONS:-}
case "$MITIGATIONS" in ''|off|auto) ;; *) echo "lab: LAB_MITIGATIONS must be off or auto" >&2; exit 2;; esac
STRICT=${LAB_STRICT:-0}
ICOUNT=${LAB_ICOUNT:-}
PRIO=${LAB_PRIO--20}
case "$PRIO" in ''|-[0-9]|-1[0-9]|-20|[0-9]|1[0-9]) ;; *) echo "lab: LAB_PRIO must be a nice value (-20 to 19) or empty" >&2; exit 2;; esac
LIGHT=${LAB_LIGHT:-}
case "$LIGHT" in ''|1) ;; *) echo "lab: LAB_LIGHT must be 1 or empty" >&2; exit 2;; esac
PROBE=${LAB_PROBE:-}
if [ -n "$PROBE" ] && [ ! -f "$PROBE" ]; then echo "lab: LAB_PROBE: $PROBE is not a file" >&2; exit 2; fi
EXACT=${LAB_EXACT:-}
case "$EXACT" in ''|1) ;; *) echo "lab: LAB_EXACT must be 1 or empty" >&2; exit 2;; esac
case "$ICOUNT" in ''|[0-9]|10) ;; *) echo "lab: LAB_ICOUNT must be a shift of 0-10" >&2; exit 2;; esac
# LAB_MODE=safety (lab/safety.sh): the guest runs lab/safety-guest.sh, the runner's clean-up
# test, seeded by LAB_SEED, instead of one run and the comparison.
MODE=${LAB_MODE:-run}
MEM=${LAB_MEM:-512}
case "$MEM" in ''|*[!0-9]*) echo "lab: LAB_MEM must be a number of MiB" >&2; exit 2;; esac
SEED=${LAB_SEED:-1}
case "$MODE" in run|safety) ;; *) echo "lab: LAB_MODE must be run or safety" >&2; exit 2;; esac
case "$SEED" in ''|*[!0-9]*) echo "lab: LAB_SEED must be a number" >&2; exit 2;; esac
[ "$MODE" = safety ] && TIMEOUT=${LAB_TIMEOUT:-$((duration_s * 6 + 300))}
case "$COUNT" in *[!A-Za-z0-9_]*) echo "lab: LAB_COUNT must be a function name" >&2; exit 2;; esac

# --- 1. the kernel: a Debian package found by version, downloaded once ----------------------
mkdir -p "$CACHE/apt/lists/partial" "$CACHE/apt/archives/partial" "$CACHE/kernels" "$OUT"
kdir="$CACHE/kernels/$KERNEL"
if [ ! -f "$kdir/vmlinuz" ]; then
    : > "$CACHE/apt/sources.list"
    for s in $SUITES; do
        echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $MIRROR $s main" \
            >> "$CACHE/apt/sources.list"
    done
    APT="-o Dir::State::Lists=$CACHE/apt/lists -o Dir::Etc::SourceList=$CACHE/apt/sources.list
         -o Dir::Etc::SourceParts=/dev/null -o Dir::Cache=$CACHE/apt -o Debug::NoLocking=1"
    echo "lab: looking up Linux $KERNEL in $SUITES" >&2
    # shellcheck disable=SC2086
    apt-get -qq $APT update >&2 || { echo "lab: apt-get update failed (mirror $MIRROR)" >&2; exit 3; }
    # linux-image-VERSION+debNN-amd64 (6.x), linux-binary-unsigned-VERSION+debNN-amd64 (7.x,
    # where linux-image-* is a meta package). Not cloud, rt or dbg flavours.
    # shellcheck disable=SC2086
    pkgs=$(apt-cache $APT pkgnames 2>/dev/null | grep -E \
        "^linux-(image|binary-unsigned)-$(echo "$KERNEL" | sed 's/\./\\./g')[+-][^ ]*amd64(-unsigned)?$" |
        grep -v -E "cloud|-rt-|dbg" | sort -r)
    [ -n "$pkgs" ] || {
        echo "lab: no Debian kernel package for $KERNEL in $SUITES; available:" >&2
        # shellcheck disable=SC2086
        apt-cache $APT pkgnames 2>/dev/null | sed -n 's/^linux-image-\([0-9][0-9.]*\)+deb[0-9]*-amd64$/\1/p' |
            sort -uV | tr '\n' ' ' >&2
        echo >&2
        exit 3
    }
    rm -rf "$kdir.tmp" && mkdir -p "$kdir.tmp/x"
    # A fixed order (not `sort -r`, which put linux-image-*-amd64-unsigned before the signed
    # image for 6.12.117): the signed image, then the unsigned image, then 7.x's
    # linux-binary-unsigned-*; each group in version order. The first with a vmlinuz is used.
    ordered=$( (echo "$pkgs" | grep '^linux-image-' | grep -v -- '-unsigned$' | LC_ALL=C sort -V
        echo "$pkgs" | grep '^linux-image-' | grep -- '-unsigned$' | LC_ALL=C sort -V
        echo "$pkgs" | grep '^linux-binary-unsigned-' | LC_ALL=C sort -V) | sed '/^$/d')
    for pkg in $ordered; do
        echo "lab: downloading $pkg" >&2
        rm -f "$kdir.tmp"/*.deb && rm -rf "$kdir.tmp/x" && mkdir -p "$kdir.tmp/x"
        # shellcheck disable=SC2086
        (cd "$kdir.tmp" && apt-get -qq $APT download "$pkg" >&2) || continue
        for deb in "$kdir.tmp"/*.deb; do dpkg-deb -x "$deb" "$kdir.tmp/x"; done
        vmlinuz=$(find "$kdir.tmp/x" \( -name 'vmlinuz*' -o -name vmlinuz \) -type f | LC_ALL=C sort | head -n 1)
        [ -n "$vmlinuz" ] && break
        echo "lab: $pkg has no vmlinuz (a meta package?), trying the next" >&2
    done
    [ -n "${vmlinuz:-}" ] || { echo "lab: no vmlinuz in the packages of $KERNEL" >&2; exit 3; }
    mkdir -p "$kdir"
    cp "$vmlinuz" "$kdir/vmlinuz"
    find "$kdir.tmp/x" -name 'config-*' -type f -exec cp {} "$kdir/config" \;
    ls "$kdir.tmp"/*.deb | xargs -n 1 basename > "$kdir/packages"
    rm -rf "$kdir.tmp"
fi
echo "lab: kernel package used: $(cat "$kdir/packages" | tr '\n' ' ')" >&2
[ -f "$kdir/config" ] && grep -E "^CONFIG_(HZ|PREEMPT_DYNAMIC|PREEMPT_LAZY|PREEMPT_VOLUNTARY|PREEMPT)=" \
    "$kdir/config" | tr '\n' ' ' >&2 && echo >&2

# --- 2. the initramfs: busybox, schedlab-run, the scenario, /init ----------------------------
ird="$OUT/initramfs"
rm -rf "$ird" && mkdir -p "$ird/bin" "$ird/dev" "$ird/proc" "$ird/sys" "$ird/tmp" "$ird/lab"
cp "$BUSYBOX" "$ird/bin/busybox"
cp "$BUILD/bin/schedlab-run" "$ird/bin/schedlab-run"
cp "$SCENARIO" "$ird/lab/scenario.json"
cp "$here/init" "$ird/init"
cp "$here/safety-guest.sh" "$ird/lab/safety.sh"
[ -z "$PROBE" ] || cp "$PROBE" "$ird/lab/probes"
# The kernel's config where a Debian system has it, so that the runner's trace header names HZ
# and the preemption model (a replay of the trace uses them).
release=$(sed -n 's/^linux-image-\([^_]*\)_.*/\1/p' "$kdir/packages" | sed 's/-unsigned$//' | head -n 1)
if [ -f "$kdir/config" ] && [ -n "$release" ]; then
    mkdir -p "$ird/boot" && cp "$kdir/config" "$ird/boot/config-$release"
fi
chmod +x "$ird/init"
(cd "$ird" && find . | "$BUSYBOX" cpio -o -H newc 2>/dev/null | gzip -1) > "$OUT/initramfs.gz"

# --- 3. the VM: console on ttyS0, the bulk output (trace, sched/debug) on ttyS1 --------------
rm -f "$OUT/console.log" "$OUT/bulk.txt"
echo "lab: booting Linux $KERNEL with $cpus CPUs (-smp $smp) under qemu (TCG), scenario $name" >&2
# Steadiness: the host's own speed, its busy CPU time and the children's (qemu's) CPU time
# around the VM run.
hostcal=$("$BUILD/bin/schedlab-run" --calibrate 2>/dev/null || true)
hz=$(getconf CLK_TCK 2>/dev/null || echo 100)
# Busy time at normal priority (user, system, irq, softirq, steal); nice'd work apart (it yields
# to qemu at once: its cost shows in qemu's wait below, if anywhere).
host_busy() { awk '/^cpu / { print $2 + $4 + $7 + $8 + $9; exit }' /proc/stat; }
host_nice() { awk '/^cpu / { print $3; exit }' /proc/stat; }
# `times` in this shell (not a subshell, whose children are not qemu): the children's user and
# system time, second line.
child_cpu() { awk 'NR == 2 { n = split($0, f, " "); s = 0
    for (i = 1; i <= n; i++) { split(f[i], p, "m"); sub("s", "", p[2]); s += p[1] * 60 + p[2] }
    printf "%.2f", s }' "$1"; }
busy0=$(host_busy)
nice0=$(host_nice)
times > "$OUT/times-before.txt"
child0=$(child_cpu "$OUT/times-before.txt")
wall0=$(awk '{ print $1 }' /proc/uptime)
start=$(date +%s)
# LAB_ICOUNT=SHIFT: the guest's clocks count instructions (qemu -icount: 2^SHIFT ns each, one
# TCG thread for all vCPUs, idle time skipped), so its timing no longer follows the host's load.
# One CPU only: the virtual clock counts the instructions of every vCPU, so with two busy ones
# each would run at half the speed of one alone (measured: 61 against 124 steps per µs of CPU).
if [ -n "$ICOUNT" ] && [ "$cpus" -ne 1 ]; then
    echo "lab: LAB_ICOUNT needs a scenario with one CPU (this one has $cpus): under -icount the" \
        "guest's clock counts the instructions of all vCPUs, so each CPU would slow down while" \
        "the others are busy" >&2
    exit 2
fi
if [ -n "$ICOUNT" ]; then
    accel="-accel tcg,thread=single -icount shift=$ICOUNT,align=off,sleep=off"
else
    accel="-accel tcg,thread=multi"
fi
# qemu's own threads' wait for a host CPU (their schedstat run_delay, sampled every second while
# the VM runs; a thread's last sample counts): the direct measure of how much the host's other
# work took from the guest. Work at a lower priority (nice) that yields at once costs it nothing.
rm -f "$OUT/qemu.pid" "$OUT/qemu-schedstat.txt"
sample_qemu() {
    while [ ! -s "$OUT/qemu.pid" ]; do
        kill -0 "$1" 2>/dev/null || return 0
        sleep 0.2
    done
    qpid=$(cat "$OUT/qemu.pid")
    while [ -d "/proc/$qpid/task" ]; do
        for f in /proc/"$qpid"/task/*/schedstat; do
            t=${f#/proc/"$qpid"/task/}
            t=${t%/schedstat}
            # the thread's name (debug-threads: "CPU 0/TCG" for a vCPU), spaces made dashes
            comm=$(tr ' ' '-' < "/proc/$qpid/task/$t/comm" 2>/dev/null)
            read -r qrun qwait _ < "$f" 2>/dev/null && echo "$t $qrun $qwait ${comm:-?}"
        done >> "$OUT/qemu-schedstat.txt"
        sleep 1
    done
}
# LAB_PRIO (default -20, empty to leave it): qemu runs at this nice value, in a session of its own
# so that its autogroup (sched_autogroup_enabled) is its own and gets the same nice: a vCPU that
# waits for a host CPU loses time the guest cannot see (its clock runs on, its timers fire late),
# which on this 2-core host took 3-8 % of each vCPU's time and made 5 % of the sleepers' timers
# fire more than 1 ms late at nice 0 (docs/real-kernels.md "A steady lab"). Only qemu's own
# process and the autogroup of the session it starts are changed; both end with it.
set +e
prio=
# nice -n adds to the caller's nice value: the step from it to PRIO.
[ -n "$PRIO" ] && prio="nice -n $((PRIO - $(nice 2>/dev/null || echo 0)))"
# shellcheck disable=SC2086
setsid $prio timeout "$TIMEOUT" qemu-system-x86_64 $accel -cpu max -smp "$smp" -m "$MEM" \
    -name schedlab-lab,debug-threads=on \
    -display none -monitor none -no-reboot -pidfile "$OUT/qemu.pid" \
    -kernel "$kdir/vmlinuz" -initrd "$OUT/initramfs.gz" \
    -append "console=ttyS0 rdinit=/init quiet panic=-1${MITIGATIONS:+ mitigations=$MITIGATIONS} schedlab.cpus=$cpus${COUNT:+ schedlab.count=$COUNT} schedlab.mode=$MODE schedlab.seed=$SEED${LIGHT:+ schedlab.light=1}${EXACT:+ schedlab.exact=1}" \
    -serial "file:$OUT/console.log" -serial "file:$OUT/bulk.txt" &
vm=$!
if [ -n "$PRIO" ]; then
    # The autogroup of qemu's own session (setsid made the session; its leader is $vm), and
    # qemu's main-loop thread (the process's first thread) at SCHED_FIFO 1: under TCG it is the
    # thread that fires the guest's timers (the local APIC's timer is a qemu timer of its main
    # loop) and kicks the vCPU; at a nice value like the vCPU threads' it waited for a running
    # vCPU thread's host slice to end (measured: its wake-ups waited 8 times its CPU time, and 5 %
    # of the sleepers' timers fired more than 1 ms late, with a vCPU losing only 0.8 %).
    # It runs a few ms per second (2 s of a 200 s run); the host's RT throttling bounds it.
    (
        for _ in $(seq 1 50); do [ -s "$OUT/qemu.pid" ] && break; sleep 0.1; done
        qpid=$(cat "$OUT/qemu.pid" 2>/dev/null)
        if [ -n "$qpid" ] && [ "$(ps -o sid= -p "$qpid" | tr -d ' ')" = "$vm" ]; then
            chrt -f -p 1 "$qpid" 2>/dev/null ||
                echo "lab: could not make qemu's main loop SCHED_FIFO (not root?)" >&2
        fi
        if [ -n "$qpid" ] && [ "$(ps -o sid= -p "$qpid" | tr -d ' ')" = "$vm" ] &&
            [ "$(cat /proc/sys/kernel/sched_autogroup_enabled 2>/dev/null)" = 1 ]; then
            echo "$PRIO" > "/proc/$qpid/autogroup" 2>/dev/null ||
                echo "lab: could not set the nice of qemu's autogroup" >&2
        fi
    ) &
fi
sample_qemu "$vm" &
sampler=$!
trap 'kill "$vm" "$sampler" 2>/dev/null' INT TERM HUP
wait "$vm"
rc=$?
wait "$sampler" 2>/dev/null
trap - INT TERM HUP
set -e
end=$(date +%s)
busy1=$(host_busy)
nice1=$(host_nice)
times > "$OUT/times-after.txt"
child1=$(child_cpu "$OUT/times-after.txt")
wall1=$(awk '{ print $1 }' /proc/uptime)
[ $rc -eq 0 ] || { echo "lab: qemu failed or timed out (exit $rc); see $OUT/console.log" >&2; exit 4; }
if [ "$MODE" = safety ]; then
    echo "lab: VM ran $((end - start)) s in all" >&2
    tr -d '\r' < "$OUT/console.log" | sed -n '/^schedlab-safety:/,$p' | grep -v '^\[ *[0-9]' |
        grep -v -E '^(reboot|Power down|sd |ACPI)' 
    tr -d '\r' < "$OUT/console.log" | grep -q '^schedlab-safety: PASS$' && exit 0
    echo "lab: the safety test failed; see $OUT/console.log" >&2
    exit 1
fi
sed -n '/^=== schedlab trace ===/,/^=== end trace ===/p' "$OUT/bulk.txt" | sed '1d;$d' |
    tr -d '\r' > "$OUT/trace.txt"
sed -n '/^=== sched debug ===/,/^=== end sched debug ===/p' "$OUT/bulk.txt" | sed '1d;$d' |
    tr -d '\r' > "$OUT/sched-debug.txt"
sed -n '/^=== proc stat ===/,/^=== end proc stat ===/p' "$OUT/bulk.txt" | sed '1d;$d' |
    tr -d '\r' > "$OUT/proc-stat.txt"
if [ -n "$COUNT" ]; then
    sed -n '/^=== kprobe counts ===/,/^=== end kprobe counts ===/p' "$OUT/bulk.txt" | sed '1d;$d' |
        tr -d '\r' > "$OUT/counts.txt"
    sed -n '/^=== kprobe calls ===/,/^=== end kprobe calls ===/p' "$OUT/bulk.txt" | sed '1d;$d' |
        tr -d '\r' > "$OUT/calls.txt"
    echo "lab: calls of $COUNT (count cpu arg1 arg2 last-arg3), $OUT/counts.txt:" >&2
    sort -rn "$OUT/counts.txt" | head -n 8 >&2
fi
if [ -n "$PROBE" ]; then
    sed -n '/^=== probe trace ===/,/^=== end probe trace ===/p' "$OUT/bulk.txt" | sed '1d;$d' |
        tr -d '\r' > "$OUT/probes.txt"
    echo "lab: probe events: $(grep -c . "$OUT/probes.txt") lines in $OUT/probes.txt" >&2
fi
boot=$(sed -n 's/^schedlab-lab: boot done at \([0-9.]*\).*/\1/p' "$OUT/console.log" | tr -d '\r' | head -n 1)
echo "lab: VM ran $((end - start)) s in all; guest boot to /init: ${boot:-?} s (uptime)" >&2
grep -E "^(schedlab-run|not reproduced|cannot run|schedlab-lab: sched features)" "$OUT/console.log" | tr -d '\r' >&2 || true
# A guest kernel that panicked before its trace came back whole: before /init (nothing ran), or
# after the run while the trace was written out (a TCG glitch: a double fault in the slab
# allocator, the guest's speed halved). Nothing was measured either way: exit 6, boot again.
if tr -d '\r' < "$OUT/console.log" | grep -q 'Kernel panic' &&
    ! grep -q '^=== end trace ===' "$OUT/bulk.txt" 2>/dev/null; then
    when="before /init; nothing ran"
    [ -n "$boot" ] && when="before its trace came back whole; nothing was measured"
    echo "lab: the guest kernel panicked $when ($(tr -d '\r' < "$OUT/console.log" | grep -m 1 -E 'Oops|BUG|Kernel panic' | sed 's/^\[ *[0-9.]*\] //')); see $OUT/console.log" >&2
    exit 6
fi
[ -s "$OUT/trace.txt" ] || { echo "lab: no trace came back; see $OUT/console.log" >&2; exit 4; }

# --- steadiness: other work on the host while qemu ran, the guest's speed before and after ---
# The fastest of the guest's calibrations before (after) the run (lab/init runs three each).
rate() { sed -n "s/.*$1.*: \([0-9]*\) steps\/us.*/\1/p" | sort -n | tail -n 1; }
guest0=$(tr -d '\r' < "$OUT/console.log" | rate "before the run")
guest1=$(tr -d '\r' < "$OUT/console.log" | rate "after the run")
host=$(echo "$hostcal" | rate "schedlab-calibrate")
# qemu's threads: CPU time and wait for a CPU (ns), each thread's last sample, summed; and the
# longest wait of one vCPU thread ("CPU N/TCG"): the time that guest CPU's clock ran on while the
# host ran something else in its place (the guest cannot see it: no steal clock under TCG).
qstat=$(awk '{ run[$1] = $2; wait[$1] = $3; name[$1] = $4 } END { for (t in run) { r += run[t]; w += wait[t]
        if (name[t] ~ /^CPU-[0-9]*\/TCG$/ && wait[t] > v) v = wait[t] }
    printf "%.0f %.0f %.0f", r, w, v }' "$OUT/qemu-schedstat.txt" 2>/dev/null)
# The guest's timers (lab/init): the sleepers' (hrtimer_wakeup) lateness line.
timers=$(tr -d '\r' < "$OUT/console.log" | sed -n 's/^schedlab-lab: timers: sleep: \([0-9]*\) fired, late p50 \([0-9]*\) us, p99 \([0-9]*\) us, p99.9 [0-9]* us, max \([0-9]*\) us, \([0-9]*\) over 1 ms$/\1 \2 \3 \4 \5/p' | head -n 1)
mynice=$(nice 2>/dev/null || echo 0)
[ -n "$PRIO" ] && mynice=$PRIO
steady=$(awk -v b0="$busy0" -v b1="$busy1" -v n0="$nice0" -v n1="$nice1" -v c0="$child0" \
    -v c1="$child1" -v w0="$wall0" -v w1="$wall1" -v hz="$hz" -v g0="${guest0:-0}" \
    -v g1="${guest1:-0}" -v h="${host:-0}" -v q="${qstat:-0 0 0}" -v mynice="$mynice" \
    -v tm="${timers:-}" 'BEGIN {
    wall = w1 - w0; if (wall <= 0) wall = 1
    STEAL = 0.03; LATE = 0.02   # a vCPU losing 3 % of the run, 2 % of the sleepers timers over 1 ms late
    qemu = c1 - c0
    normal = (b1 - b0) / hz; niced = (n1 - n0) / hz
    # qemu counts where its own priority puts it.
    if (mynice > 0) niced -= qemu; else normal -= qemu
    other = normal / wall; if (other < 0) other = 0
    nicework = niced / wall; if (nicework < 0) nicework = 0
    split(q, qs, " "); qrun = qs[1] / 1e9; qwait = qs[2] / 1e9; steal = qs[3] / 1e9 / wall
    waited = (qrun > 0) ? qwait / qrun : -1
    drift = (g0 > 0 && g1 > 0) ? (g1 > g0 ? g1 / g0 - 1 : g0 / g1 - 1) : -1
    # the sleepers timers: fired, p50, p99, max (us), over 1 ms
    # (judged on 200 timers or more: a scenario without sleepers fires a handful)
    nt = split(tm, ts, " "); late = (nt == 5 && ts[1] > 0) ? ts[5] / ts[1] : -1
    judged = (late >= 0 && ts[1] >= 200) ? late : 0
    verdict = (other > 0.25 || drift > 0.20 || drift < 0 || waited > 0.08 || steal > STEAL || judged > LATE) ? "DISTURBED" : "steady"
    # (no comparison inside printf: awk reads its ">" as an output redirection)
    moved = (drift < 0) ? "not measured" : sprintf("moved %.0f %%", drift * 100)
    qw = (waited < 0) ? "qemu wait not measured" : sprintf("qemu waited %.1f %% of its %.0f CPU-s for a host CPU", waited * 100, qrun)
    ratio = (h > 0) ? g0 / h : 0
    st = (qs[3] == "" || qs[3] == 0) ? "" : sprintf("; a vCPU lost %.1f %% of the run to the host", steal * 100)
    tl = (late < 0) ? "; timers not measured" : sprintf("; sleepers timers late p50 %d us, p99 %d us, max %d us, %.2f %% over 1 ms (%d)", ts[2], ts[3], ts[4], late * 100, ts[1])
    printf "%s: other work on the host %.2f CPUs beside qemu, %.2f at low priority (%.0f s); %s%s; guest speed %d steps/us before, %d after (%s); host %d steps/us, guest/host %.2f%s\n",
        verdict, other, nicework, wall, qw, st, g0, g1, moved, h, ratio, tl }')
if [ -n "$ICOUNT" ]; then
    # Under -icount the guest's clocks count its instructions: the host's load stretches the
    # wall time only. What is checked is that the guest's own speed, its calibration loop's
    # steps per µs of its CPU time (per instruction, so constant by construction), stayed put.
    cpurate() { sed -n "s/.*$1.*: \([0-9]*\) steps in [0-9]* ns wall, \([0-9]*\) ns CPU.*/\1 \2/p" |
        sort -k2,2n | head -n 1; }
    c0=$(tr -d '\r' < "$OUT/console.log" | cpurate "before the run")
    c1=$(tr -d '\r' < "$OUT/console.log" | cpurate "after the run")
    steady=$(echo "$c0 $c1" | awk -v shift="$ICOUNT" -v other="$steady" '{
        r0 = ($2 > 0) ? $1 * 1000 / $2 : 0; r1 = ($4 > 0) ? $3 * 1000 / $4 : 0
        drift = (r0 > 0 && r1 > 0) ? (r1 > r0 ? r1 / r0 - 1 : r0 / r1 - 1) : -1
        verdict = (drift < 0 || drift > 0.01) ? "DISTURBED" : "steady"
        moved = (drift < 0) ? "not measured" : sprintf("moved %.2f %%", drift * 100)
        sub(/^[A-Za-z]*: /, "", other)
        printf "%s (icount shift %d: guest time counts instructions): guest speed %.1f steps per us of CPU before, %.1f after (%s); not counted against it: %s\n",
            verdict, shift, r0, r1, moved, other }')
fi
echo "$steady" > "$OUT/steadiness.txt"
echo "lab: $steady" >&2
case "$steady" in
DISTURBED*)
    echo "lab: this run's timing is not to be trusted: repeat it on a quiet host" >&2
    [ "$STRICT" = 1 ] && exit 5 ;;
esac

# --- 4. model vs real -------------------------------------------------------------------------
# Three columns: the scenario as written, the trace replayed (the workload with each task's CPU
# bursts and sleeps as this run measured them: the model at the measured costs; docs/
# real-kernels.md, "Replay your own trace") and the real run; then the replay's fidelity line.
"$BUILD/bin/schedlab-cli" import "$OUT/trace.txt" --metrics "$OUT/real-metrics.json" --quiet
# compare_run ARGS…: the comparison, with the replay's column when the import made one.
compare_run() {
    if [ -s "$OUT/replay.json" ]; then
        "$BUILD/bin/schedlab-cli" compare "$SCENARIO" --real "$OUT/trace.txt" \
            --replay "$OUT/replay.json" "$@"
    else
        "$BUILD/bin/schedlab-cli" compare "$SCENARIO" --real "$OUT/trace.txt" "$@"
    fi
}
rm -f "$OUT/replay.json"
"$BUILD/bin/schedlab-cli" import "$OUT/trace.txt" --scenario "$OUT/replay.json" --quiet \
    2>"$OUT/replay-unknowns.txt" || rm -f "$OUT/replay.json"
echo "== model vs real: $name on Linux $KERNEL (outputs in $OUT) =="
compare_run --metrics "$OUT/compare.json" >/dev/null
compare_run
