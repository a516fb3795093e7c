#!/bin/sh
# Regenerates the captures of docs/scenarios/*.md with the GUI's plotting code, offscreen:
#   docs/scenarios/make-captures.sh [path/to/schedlab-cli]
set -e
CLI=${1:-build/dev/bin/schedlab-cli}
OUT=docs/scenarios/img
cap() { name=$1; shift; "$CLI" capture "scenarios/$name.json" --size 1400x800 "$@"; }
cap equal-hogs --from 0 --to 20ms --out $OUT/equal-hogs.png
cap sleeper-lag --from 0 --to 20ms --entities sleeper,hog-1 --out $OUT/sleeper-lag.png
cap sleeper-lag --from 9.995s --to 10.015s --entities sleeper,hog-1 --out $OUT/sleeper-lag-no-place-lag.png
cap delayed-dequeue --from 9.980s --to 10.020s --entities worker-1,hog --out $OUT/delayed-dequeue.png
cap nice-levels --from 9.950s --to 10.050s --out $OUT/nice-levels.png
cap two-groups-1cpu --from 0 --to 30ms --out $OUT/two-groups-1cpu.png
cap itmt-packing --from 0 --to 60ms --out $OUT/itmt-packing.png
cap two-groups-4cpu --from 0 --to 30ms --entities hog-a,hog-b0 --out $OUT/two-groups-4cpu.png
cap migration-affinity --from 2.990s --to 3.020s --entities hopper,hog-0,hog-1 --out $OUT/migration-affinity.png
cap short-slice-latency --from 1s --to 1.040s --entities latency,hog-1,hog-2 --out $OUT/short-slice-latency.png
cap yield-loop --from 0 --to 10ms --out $OUT/yield-loop.png
cap cgroup-weight-starvation --from 29.990s --to 30.050s --entities root-spin,test-spin --out $OUT/cgroup-weight-starvation.png
cap throttle-priority-inversion --from 0 --to 120ms --entities reader-limited,reader-unlimited --out $OUT/throttle-priority-inversion.png
cap throttle-priority-inversion --from 7.8ms --to 10.4ms --entities reader-limited,busy-1,busy-2 --out $OUT/throttle-priority-inversion-zoom.png
cap core-sched-yield --from 0 --to 25ms --entities yield_loop.1,busy_loop.1 --out $OUT/core-sched-yield.png
cap core-sched-yield --from 0 --to 10ms --entities yield_loop.1,busy_loop.1 --override yield=forfeit_always --title "core-sched-yield — 7.1, yield=forfeit_always, 0 to 10 ms" --out $OUT/core-sched-yield-forfeit-always.png
cap rt-group-constraints --from 0.99s --to 1.31s --entities stress-ng-fork --out $OUT/rt-group-constraints.png
cap rt-group-constraints --from 1.150s --to 1.152s --entities stress-ng-fork --out $OUT/rt-group-constraints-zoom.png
