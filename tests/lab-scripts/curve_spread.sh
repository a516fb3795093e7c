#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# lab/curve.sh's sleepers' spread and lab/bursts.awk, without a VM (docs/real-kernels.md, "The
# sleepers' spread"). Expected values by hand:
#  - a run step of NOMINAL µs with deviation SD is uniform over NOMINAL ± round(sqrt(3) SD), the
#    low end kept at 50 µs or more: the fork helper's defaults 490 / 300 / 190 µs give half-widths
#    sqrt(3)·490 = 848.7 → 849, sqrt(3)·300 = 519.6 → 520, sqrt(3)·190 = 329.1 → 329, so
#    2300 → [1451, 3149], 1800 → [1280, 2320], 1000 → [671, 1329]; CURVE_SPREAD="100 0 2000":
#    2300 ± 173 → [2127, 2473], 1800 fixed, 1000 ± 3464 → [50, 4464];
#  - the real run's scenario keeps every burst fixed;
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
short="CURVE_MODEL_ONLY=1 CURVE_SEEDS=1 CURVE_DURATION=3 CURVE_SWITCH=1 CURVE_SOAK=1 CURVE_START=0"

env $short CURVE_POINTS=fork:250ms BUILD="$build" "$here/lab/curve.sh" 6.18.15 "$out/a" >/dev/null
got=$(runs "$out/a/fork-250ms.json" | tr '\n' ' ')
want='{"uniform":["1451us","3149us"]} {"uniform":["1280us","2320us"]} {"uniform":["671us","1329us"]} '
[ "$got" = "$want" ] || fail "default spread: $got"
got=$(runs "$out/a/fork-250ms-lab.json" | tr '\n' ' ')
[ "$got" = '"2300us" "1800us" "1000us" ' ] || fail "the real run's scenario: $got"

env $short CURVE_POINTS=fork:100ms CURVE_SPREAD="100 0 2000" BUILD="$build" \
    "$here/lab/curve.sh" 6.18.15 "$out/b" >/dev/null
got=$(runs "$out/b/fork-100ms.json" | tr '\n' ' ')
want='{"uniform":["2127us","2473us"]} "1800us" {"uniform":["50us","4464us"]} '
[ "$got" = "$want" ] || fail "CURVE_SPREAD=\"100 0 2000\": $got"

env $short CURVE_POINTS=shell:20 CURVE_SPREAD=0 BUILD="$build" "$here/lab/curve.sh" 6.18.15 "$out/c" >/dev/null
got=$(runs "$out/c/shell-20.json" | tr '\n' ' ')
[ "$got" = '"2800us" "8600us" "2000us" ' ] || fail "CURVE_SPREAD=0: $got"

rc=0
env $short CURVE_SPREAD="1 2" BUILD="$build" "$here/lab/curve.sh" 6.18.15 "$out/d" >/dev/null 2>&1 || rc=$?
[ "$rc" = 2 ] || fail "CURVE_SPREAD=\"1 2\" exits $rc, not 2"

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
echo "curve_spread: ok"
