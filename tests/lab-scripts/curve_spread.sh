#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# lab/curve.sh's sleepers' bursts, spread and tails, lab/bursts.awk and lab/shares.awk, without a
# VM (docs/real-kernels.md, "The sleepers' spread" and "Where the runner's clock reads fall").
# Expected values by hand:
#  - the model's bursts (CURVE_BURSTS) default to the fork helper's measured 2300 / 2040 / 1290 µs
#    (the 20 shell loops' 2800 / 9250 / 1920); the real run's scenario keeps the workload's own
#    2300 / 1800 / 1000, fixed, without tails;
#  - after each clock read the runner's tail (CURVE_TAIL, default means 940 / 110 / 500 µs; the
#    shell loops' 840 / 120 / 460) runs uniform over [M/2, 3M/2] (in whole µs, (M + 1)/2 and
#    (3M + 1)/2 with the remainder dropped: halves round up), its mean taken off the burst, in a
#    kernel section for the parent's (the fork) and the exit's: 2300 - 940 = 1360, tail [470, 1410]; 2040 - 110 = 1930, tail [55, 165];
#    1290 - 500 = 790, tail [250, 750];
#  - a burst of deviation SD (CURVE_SPREAD, default 490 / 300 / 190) keeps it with its tail: the
#    run before a tail of mean M deviates sqrt(SD^2 - M^2/12) (rounded; 0 when negative), and is
#    uniform over its mean ± round(sqrt(3) of that), the low end kept at 50 µs or more:
#    sqrt(490^2 - 940^2/12) = sqrt(166 466.7) = 408.0 → 408, half-width 706.7 → 707:
#    [653, 2067]; sqrt(300^2 - 110^2/12) = sqrt(88 991.7) = 298.3 → 298, 516.2 → 516:
#    [1414, 2446]; sqrt(190^2 - 500^2/12) = sqrt(15 266.7) = 123.6 → 124, 214.8 → 215: [575, 1005];
#    without tails (CURVE_TAIL=0) the deviations are whole: 2300 ± 849 → [1451, 3149], 2040 ± 520
#    → [1520, 2560], 1290 ± 329 → [961, 1619];
#    CURVE_SPREAD="100 0 2000": 100^2 < 940^2/12 and 0 < 110^2/12 give fixed 1360 and 1930;
#    sqrt(2000^2 - 500^2/12) = sqrt(3 979 166.7) = 1994.8 → 1995, half-width 3455.4 → 3455:
#    790 - 3455 → 50, [50, 4245];
#    CURVE_TAIL="10 0 3" CURVE_SPREAD=0: 2290, tail [5, 15]; 2040; 1287, tail [2, 5];
#    CURVE_BURSTS=0 CURVE_SPREAD=0: the workload's figures less the tails: 1360, 1690, 500;
#    20 shell loops, CURVE_SPREAD=0: 2800 - 840 = 1960, [420, 1260]; 9250 - 120 = 9130,
#    [60, 180]; 1920 - 460 = 1460, [230, 690];
#  - bursts.awk over a hand-made trace: the parent's bursts 2 ms (0-2) and 4 ms (10.5-12.5 and,
#    after sleeper-2's turn, 13.5-15.5): mean 3, sd 1 ms = 1000 µs; the children's first bursts
#    1 ms and 1 ms (sd 0), their last 0.5 and 1.5 ms (sd 500 µs).
#   tests/lab-scripts/curve_spread.sh CLI
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
cli=$(realpath "${1:?usage: curve_spread.sh CLI}")
build=$(dirname "$(dirname "$cli")")
out=$(mktemp -d /tmp/schedlab-curve-spread.XXXXXX)
trap 'rm -rf "$out"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
# runs FILE: the sleepers' run steps, one per line, as written
runs() { tr -d ' \n' < "$1" | grep -o '"run":\({"uniform":\["[0-9]*us","[0-9]*us"\]}\|"[0-9.]*[mu]*s"\)' | sed 's/"run"://'; }
short="CURVE_MODEL_ONLY=1 CURVE_SEEDS=1 CURVE_DURATION=3 CURVE_SWITCH=1 CURVE_SOAK=1 CURVE_START=0 CURVE_RCU=0"
# rcu FILE: the rcu_preempt task's sleep and run bounds, as written ("" when it has none)
rcu() { tr -d ' \n' < "$1" | grep -o '"name":"rcu_preempt"[^]]*\]}},{"run":{"uniform":\["[0-9]*us","[0-9]*us"\]' |
    grep -o '[0-9]*us' | tr '\n' ' '; }

u() { printf '{"uniform":["%sus","%sus"]} ' "$1" "$2"; }
env $short CURVE_POINTS=fork:250ms BUILD="$build" "$here/lab/curve.sh" 6.18.15 "$out/a" >/dev/null
got=$(runs "$out/a/fork-250ms.json" | tr '\n' ' ')
want="$(u 653 2067)$(u 470 1410)$(u 1414 2446)$(u 55 165)$(u 575 1005)$(u 250 750)"
[ "$got" = "$want" ] || fail "default bursts, spread and tails: $got"
# the parent's and the exit's tails are kernel sections, the child's before its sleep is not
steps=$(tr -d ' \n' < "$out/a/fork-250ms.json" | grep -o '"cpu_clock":true},{"[a-z]*"' | sed 's/.*{"//; s/"//' | tr '\n' ' ')
[ "$steps" = "kernel run kernel " ] || fail "the steps after the clock reads: $steps"
env $short CURVE_POINTS=fork:250ms CURVE_TAIL=0 BUILD="$build" "$here/lab/curve.sh" 6.18.15 "$out/a0" >/dev/null
got=$(runs "$out/a0/fork-250ms.json" | tr '\n' ' ')
want="$(u 1451 3149)$(u 1520 2560)$(u 961 1619)"
[ "$got" = "$want" ] || fail "default spread without tails: $got"
env $short CURVE_POINTS=fork:250ms CURVE_TAIL="10 0 3" CURVE_SPREAD=0 BUILD="$build" \
    "$here/lab/curve.sh" 6.18.15 "$out/a1" >/dev/null
got=$(runs "$out/a1/fork-250ms.json" | tr '\n' ' ')
want="\"2290us\" $(u 5 15)\"2040us\" \"1287us\" $(u 2 5)"
[ "$got" = "$want" ] || fail "CURVE_TAIL=\"10 0 3\": $got"
env $short CURVE_POINTS=fork:250ms CURVE_BURSTS=0 CURVE_SPREAD=0 BUILD="$build" \
    "$here/lab/curve.sh" 6.18.15 "$out/a2" >/dev/null
got=$(runs "$out/a2/fork-250ms.json" | tr '\n' ' ')
want="\"1360us\" $(u 470 1410)\"1690us\" $(u 55 165)\"500us\" $(u 250 750)"
[ "$got" = "$want" ] || fail "CURVE_BURSTS=0: $got"
got=$(runs "$out/a/fork-250ms-lab.json" | tr '\n' ' ')
[ "$got" = '"2300us" "1800us" "1000us" ' ] || fail "the real run's scenario: $got"

env $short CURVE_POINTS=fork:100ms CURVE_SPREAD="100 0 2000" BUILD="$build" \
    "$here/lab/curve.sh" 6.18.15 "$out/b" >/dev/null
got=$(runs "$out/b/fork-100ms.json" | tr '\n' ' ')
want="\"1360us\" $(u 470 1410)\"1930us\" $(u 55 165)$(u 50 4245)$(u 250 750)"
[ "$got" = "$want" ] || fail "CURVE_SPREAD=\"100 0 2000\": $got"

env $short CURVE_POINTS=shell:20 CURVE_SPREAD=0 BUILD="$build" "$here/lab/curve.sh" 6.18.15 "$out/c" >/dev/null
got=$(runs "$out/c/shell-20.json" | tr '\n' ' ')
want="\"1960us\" $(u 420 1260)\"9130us\" $(u 60 180)\"1460us\" $(u 230 690)"
[ "$got" = "$want" ] || fail "CURVE_SPREAD=0: $got"

# The guest's rcu_preempt (CURVE_RCU "RATE RUN"): a gap of 1 000 000 / RATE − RUN µs between
# runs, each sleep uniform over [3/4, 5/4] of it, each run over [RUN/2, 3·RUN/2] (rounded up):
# "125 120": 8 000 − 120 = 7 880 → [5 910, 9 850], run [60, 180]. By default the measured points
# interpolated in the forks per second of a sleeper: 300 ms (3.333/s) lies 0.4762 / 1.1429 =
# 0.4167 of the way from 350 ms (2.857/s: 99.5 wake-ups a second, 116 µs) to 250 ms (4/s: 113.0,
# 135 µs): 99.5 + 0.4167 · 13.5 = 105.1 → 105 a second, 116 + 0.4167 · 19 = 123.9 → 124 µs; gap
# 1 000 000 / 105 = 9 523 (integer) − 124 = 9 399 → [7 049, 11 748], run [62, 186]. 40 shell
# loops lie half way from 20 (56 a second, 117 µs) to 60 (103.8, 102 µs): 79.9 → 80 a second,
# 109.5 → 110 µs; gap 12 500 − 110 = 12 390 → [9 292, 15 487], run [55, 165]. 100 loops lie
# beyond 60: its figures, 104 a second and 102 µs, gap 9 615 − 102 = 9 513 → [7 134, 11 891],
# run [51, 153]. The real run's file has none.
env $short CURVE_RCU="125 120" CURVE_POINTS=fork:250ms BUILD="$build" "$here/lab/curve.sh" 6.18.15 "$out/r1" >/dev/null
got=$(rcu "$out/r1/fork-250ms.json")
[ "$got" = "5910us 9850us 60us 180us " ] || fail "CURVE_RCU=\"125 120\": $got"
[ -z "$(rcu "$out/r1/fork-250ms-lab.json")" ] || fail "the real run's scenario has an rcu_preempt"
env $short CURVE_RCU= CURVE_POINTS="fork:300ms shell:40 shell:100" BUILD="$build" "$here/lab/curve.sh" 6.18.15 "$out/r2" >/dev/null
got=$(rcu "$out/r2/fork-300ms.json")
[ "$got" = "7049us 11748us 62us 186us " ] || fail "default rcu_preempt at 300 ms: $got"
got=$(rcu "$out/r2/shell-40.json")
[ "$got" = "9292us 15487us 55us 165us " ] || fail "default rcu_preempt for 40 shell loops: $got"
got=$(rcu "$out/r2/shell-100.json")
[ "$got" = "7134us 11891us 51us 153us " ] || fail "default rcu_preempt for 100 shell loops: $got"
[ -z "$(rcu "$out/a/fork-250ms.json")" ] || fail "CURVE_RCU=0 wrote an rcu_preempt"
# refused VAR=VALUE: curve.sh exits 2 (bad arguments) with it set.
refused() {
    rc=0
    env $short "$1" BUILD="$build" "$here/lab/curve.sh" 6.18.15 "$out/refused" >/dev/null 2>&1 || rc=$?
    [ "$rc" = 2 ] || fail "$1 exits $rc, not 2"
}
refused CURVE_RCU="1 2 3"
refused CURVE_SPREAD="1 2"
refused CURVE_TAIL="1 2"
refused CURVE_BURSTS="1 2"
# a burst no longer than its tail: 900 µs in the parent against the default 940 µs after its read
refused CURVE_BURSTS="900 2040 1290"

# A parent (sleeper-1) and its children, on one CPU; times in ns.
cat > "$out/t.rec" <<'REC'
t=0 cpu0 spawn sleeper-1 -1 0 0
t=0 cpu0 wakeup sleeper-1 0 0 0
t=0 cpu0 switch idle->sleeper-1
t=2000000 cpu0 spawn sleeper-1.1 0 0 0
t=2000000 cpu0 wakeup sleeper-1.1 0 0 0
t=2000000 cpu0 switch sleeper-1->sleeper-1.1
t=3000000 cpu0 switch sleeper-1.1->idle
t=10000000 cpu0 wakeup sleeper-1.1 0 0 0
t=10000000 cpu0 switch idle->sleeper-1.1
t=10500000 cpu0 wakeup sleeper-1 0 0 0
t=10500000 cpu0 exit sleeper-1.1 0 0 0
t=10500000 cpu0 switch sleeper-1.1->sleeper-1
t=12500000 cpu0 switch sleeper-1->sleeper-2
t=13500000 cpu0 switch sleeper-2->sleeper-1
t=15500000 cpu0 spawn sleeper-1.2 0 0 0
t=15500000 cpu0 wakeup sleeper-1.2 0 0 0
t=15500000 cpu0 switch sleeper-1->sleeper-1.2
t=16500000 cpu0 switch sleeper-1.2->idle
t=20000000 cpu0 wakeup sleeper-1.2 0 0 0
t=20000000 cpu0 switch idle->sleeper-1.2
t=21500000 cpu0 wakeup sleeper-1 0 0 0
t=21500000 cpu0 exit sleeper-1.2 0 0 0
t=21500000 cpu0 switch sleeper-1.2->sleeper-1
REC
got=$(awk -v A=0 -f "$here/lab/bursts.awk" "$out/t.rec")
[ "$got" = "1000/0/500" ] || fail "bursts.awk: $got, not 1000/0/500"

# lab/shares.awk over hand-made records (times in ns; windows [0, 10 ms) and [20 ms, 40 ms)):
# root-spin runs 0-2 ms of the first window's 10: 0.2000. In the second it runs 21-22 ms and
# from 30 ms to the end: 11 of 20 ms, 0.5500, and /testgroup@1 is reweighted twice in its 5 ticks
# of 4 ms: 0.400. With CUT the window ends where the first parent falls silent: sleeper-1's last
# record is at 29 ms (sleeper-2's at 35 ms; sleeper-9's, before the window, and a child's do not
# count; a switch names two tasks and counts for neither): root-spin 1 of 9 ms, 0.1111; one
# reweight in 9 / 4 = 2.25 ticks, 0.444; end 0.029 s.
cat > "$out/s.rec" <<'REC'
t=0 cpu1 switch idle->root-spin
t=2000000 cpu1 switch root-spin->test-spin
t=5000000 cpu0 wakeup sleeper-9 0 0 0
t=21000000 cpu1 switch test-spin->root-spin
t=22000000 cpu1 switch root-spin->test-spin
t=24000000 cpu1 reweight /testgroup@1 100 200 0
t=25000000 cpu0 wakeup sleeper-1 0 0 0
t=28000000 cpu0 spawn sleeper-1.3 0 0 0
t=29000000 cpu0 dequeue sleeper-1 1 0 0
t=30000000 cpu1 switch test-spin->root-spin
t=32000000 cpu1 reweight /testgroup@1 200 100 0
t=33000000 cpu0 exit sleeper-1.3 0 0 0
t=35000000 cpu0 wakeup sleeper-2 0 0 0
REC
sh_awk() { awk -v A1=0 -v B1=0.010 -v A2=0.020 -v B2=0.040 "$@"; }
got=$(sh_awk -f "$here/lab/shares.awk" "$out/s.rec")
[ "$got" = "0.2000 0.5500 0.400" ] || fail "shares.awk: $got"
got=$(sh_awk -v CUT=1 -f "$here/lab/shares.awk" "$out/s.rec" "$out/s.rec")
[ "$got" = "0.2000 0.1111 0.444 0.029" ] || fail "shares.awk with CUT: $got"
echo "curve_spread: ok"
