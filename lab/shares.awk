# SPDX-License-Identifier: GPL-2.0-or-later
# lab/shares.awk: root-spin's share of CPU 1's busy time in the windows [A1, B1) and [A2, B2)
# (seconds), and /testgroup@1's reweights per tick of CPU 1 (HZ 250) in the second window ("-"
# when the records have none: a real trace has no reweight events), printed as
# "SHARE1 SHARE2 REWEIGHTS". Input: `--records` text (t=NS cpuN KIND NAME ...; a switch is
# "switch PREV->NEXT"). Used by lab/curve.sh.
# With CUT=1 (and the file given twice) the second window ends at the last record of the
# sleeper (sleeper-N, a parent; a switch names two tasks and does not count) that falls silent
# first, when that is inside it, and the end used (seconds) is printed as a fourth field. For a
# replay (`schedlab-cli import --scenario`): it runs each sleeper's traced iterations once, not
# a loop, so where the model runs them faster than the kernel did, its sleepers stop before the
# run ends and leave root-spin CPU 1 to itself; counted, that time would raise root-spin's share.
#   awk -v A1=10 -v B1=50 -v A2=70 -v B2=120 -f lab/shares.awk run.rec
#   awk -v A1=10 -v B1=50 -v A2=70 -v B2=120 -v CUT=1 -f lab/shares.awk run.rec run.rec

function acc(t, lo, hi) {
    lo = last > a1 ? last : a1; hi = t < b1 ? t : b1
    if (hi > lo) { if (cur != "idle") busy1 += hi - lo; if (cur == "root-spin") mine1 += hi - lo }
    lo = last > a2 ? last : a2; hi = t < b2 ? t : b2
    if (hi > lo) { if (cur != "idle") busy2 += hi - lo; if (cur == "root-spin") mine2 += hi - lo }
}
BEGIN { a1 = A1 * 1e9; b1 = B1 * 1e9; a2 = A2 * 1e9; b2 = B2 * 1e9; cur = "idle"; last = 0 }
# first pass (CUT): each sleeper's last record
CUT && FNR == NR { if ($4 ~ /^sleeper-[0-9]+$/) seen[$4] = substr($1, 3) + 0; next }
CUT && FNR == 1 {
    for (s in seen) if (seen[s] < b2 && seen[s] > a2) b2 = seen[s]
}
$2 == "cpu1" && $3 == "switch" {
    t = substr($1, 3) + 0; acc(t); n = split($4, p, "->"); cur = p[n]; last = t
}
$2 == "cpu1" && $3 == "reweight" && $4 == "/testgroup@1" {
    t = substr($1, 3) + 0; if (t >= a2 && t < b2) rw++
}
END {
    acc(b2)
    s1 = busy1 > 0 ? mine1 / busy1 : -1; s2 = busy2 > 0 ? mine2 / busy2 : -1
    # (no comparison inside printf: awk reads its ">" as an output redirection)
    per = (rw > 0) ? sprintf("%.3f", rw / ((b2 - a2) / 4e6)) : "-"
    if (CUT) printf "%.4f %.4f %s %.3f\n", s1, s2, per, b2 / 1e9
    else printf "%.4f %.4f %s\n", s1, s2, per
}
