#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# CTest "lab" smoke test (not part of `make test`): equal-hogs on Debian's Linux $LAB_KERNEL
# (default 6.18.15) under qemu. Three nice-0 hogs on one CPU must each get a third of it on the
# real kernel too (28-38 %, the rest goes to kernel threads and the runner). Exit 77 (skipped)
# when qemu or busybox-static is not installed.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
command -v qemu-system-x86_64 >/dev/null 2>&1 || { echo "qemu-system-x86_64 missing: skipped"; exit 77; }
[ -x /bin/busybox ] || { echo "busybox-static missing: skipped"; exit 77; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$here/lab.sh" "${LAB_KERNEL:-6.18.15}" "$here/../scenarios/equal-hogs.json" "$out/run" | tee "$out/table"
for hog in hog-1 hog-2 hog-3; do
    share=$(awk -v t="$hog" '$1 == t && $2 == "share" { sub("%", "", $4); print $4 }' "$out/table")
    echo "$hog real share: ${share:-missing}%"
    awk -v s="${share:-0}" 'BEGIN { exit !(s >= 28 && s <= 38) }' || {
        echo "FAIL: $hog got ${share:-no}% of the CPU on the real kernel, expected 28-38%"; exit 1; }
done
