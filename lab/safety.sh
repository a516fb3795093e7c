#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# CTest "lab" test lab_safety (not part of `make test`): schedlab-run leaves a Debian Linux
# $LAB_KERNEL (default 6.18.15) under qemu as it found it, after SIGTERM, after SIGKILL and
# `--restore`, after a whole run, and with an adopted cgroup (lab/safety-guest.sh; the kill
# moments come from LAB_SEED, default 1). Exit 77 (skipped) when qemu or busybox-static is not
# installed.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
command -v qemu-system-x86_64 >/dev/null 2>&1 || { echo "qemu-system-x86_64 missing: skipped"; exit 77; }
[ -x /bin/busybox ] || { echo "busybox-static missing: skipped"; exit 77; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "lab_safety: seed ${LAB_SEED:-1}"
LAB_MODE=safety LAB_SEED=${LAB_SEED:-1} "$here/lab.sh" "${LAB_KERNEL:-6.18.15}" \
    "$here/scenarios/safety-restore.json" "$out/run"
