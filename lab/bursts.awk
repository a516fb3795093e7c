# SPDX-License-Identifier: GPL-2.0-or-later
# lab/bursts.awk: the standard deviations (µs, rounded) of the sleepers' CPU bursts from A
# seconds on, printed as "P/C1/C2": the parent's (from a wake-up to its next), the child's first
# (to its first wake-up after the one that starts it) and its last (to its exit); "-" where there
# is none. Input: `schedlab-cli import --records` text (t=NS cpuN KIND NAME ...; a switch is
# "switch PREV->NEXT"). A sleeper is sleeper-N, its children sleeper-N.K. A task's burst is its
# time on a CPU between two of its wake-ups (it blocks before each). Used by lab/curve.sh.
#   awk -v A=10 -f lab/bursts.awk real.rec

BEGIN { A *= 1e9 }
$3 == "switch" {
    t = substr($1, 3) + 0; n = split($4, p, "->")
    if (($2 in on) && on[$2] == p[1] && (p[1] in since)) { acc[p[1]] += t - since[p[1]]; delete since[p[1]] }
    on[$2] = p[n]; since[p[n]] = t
}
($3 == "wakeup" || $3 == "exit") && $4 ~ /^sleeper-[0-9]+(\.[0-9]+)?$/ {
    t = substr($1, 3) + 0; name = $4
    if ($3 == "exit" && (name in since)) { acc[name] += t - since[name]; delete since[name] }
    if (name ~ /\./) { nw[name]++; r = $3 == "exit" ? 3 : nw[name] == 2 ? 2 : 0 }
    else r = $3 == "wakeup" ? 1 : 0
    if (t >= A && r && (name in began)) { v = acc[name] / 1e3; s[r] += v; q[r] += v * v; k[r]++ }
    acc[name] = 0; began[name] = 1
}
END {
    for (r = 1; r <= 3; r++) {
        d = k[r] ? q[r] / k[r] - (s[r] / k[r]) ^ 2 : -1
        if (k[r] && d < 0)
            d = 0 # rounding: equal bursts
        out = out (r > 1 ? "/" : "") (d < 0 ? "-" : sprintf("%d", sqrt(d) + 0.5))
    }
    print out
}
