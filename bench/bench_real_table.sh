#!/bin/sh
# SPDX-License-Identifier: MIT
#
# bench_real_table.sh - the table of bench_real.sh: from its results file
# (one line per comparison: WORKLOAD MODE COMMAND, then wall ms, peak KiB, CPU
# ms and runs of perfev, of perf 7.2 and of perf 6.1, "-" where a tool did
# not run), prints every figure with the ratios perfev / perf 7.2 and perfev /
# perf 6.1 and the verdict on the targets (wall time and peak RSS at most
# LIMIT times the newest perf's; default 0.5), and writes the same table in
# Markdown to MD_FILE when one is given.
#
#   usage: bench/bench_real_table.sh RESULTS [MD_FILE [LIMIT]]
set -eu

results=$1
md=${2:-/dev/null}
limit=${3:-0.5}

awk -v md="$md" -v limit="$limit" '
function t(ms) {
	if (ms == "-") return "-"
	return ms >= 1000 ? sprintf("%.2f s", ms / 1000) : sprintf("%.0f ms", ms)
}
function mb(kb) { return kb == "-" ? "-" : sprintf("%.0f MB", kb / 1024) }
function r(a, b) { return (a == "-" || b == "-" || b == 0) ? "-" : sprintf("%.2fx", a / b) }
function runs(n) { return n == 0 ? "" : " (" n ")" }
BEGIN {
	printf "%-7s %-6s %-10s %22s %22s %22s %8s %6s %8s %6s  %s\n", "program", "mode", "command",
	       "perfev", "perf 7.2", "perf 6.1", "wall/7.2", "RSS", "wall/6.1", "RSS",
	       "target: wall and RSS <= " limit "x perf 7.2"
	print "| program | call chains | command | perfev | perf 7.2 | perf 6.1 | perfev / 7.2: wall | RSS | perfev / 6.1: wall | RSS | target: <= " limit "x of 7.2 |" > md
	print "|---|---|---|---|---|---|---|---|---|---|---|" > md
}
$4 == "FAILED" {
	printf "%-7s %-6s %-10s FAILED: a tool failed or printed nothing\n", $1, $2, $3
	printf "| %s | %s | `%s` | FAILED: a tool failed or printed nothing | | | | | | | |\n", $1, $2, $3 > md
	next
}
{
	wl = $1; mode = $2; c = $3
	aw = $4; ar = $5; an = $7
	bw = $8; br = $9; bn = $11
	pw = $12; pr = $13; pn = $15
	if (bw == "-") v = "no perf 7.2"
	else {
		ws = aw / bw <= limit; ms = ar / br <= limit
		v = (ws && ms) ? "met" : (ws ? "MISSED (RSS)" : (ms ? "MISSED (wall)" : "MISSED (wall, RSS)"))
	}
	cm = c == "report-nc" ? "report --no-children" : c
	printf "%-7s %-6s %-10s %22s %22s %22s %8s %6s %8s %6s  %s\n", wl, mode, c,
	       t(aw) " " mb(ar) runs(an), t(bw) " " mb(br) runs(bn), (pw == "-" ? "-" : t(pw) " " mb(pr) runs(pn)),
	       r(aw, bw), r(ar, br), r(aw, pw), r(ar, pr), v
	printf "| %s | %s | `%s` | %s, %s | %s, %s | %s | %s | %s | %s | %s | %s |\n", wl,
	       mode == "fp" ? "frame pointers" : "dwarf", cm, t(aw), mb(ar), t(bw), mb(br),
	       pw == "-" ? "-" : t(pw) ", " mb(pr), r(aw, bw), r(ar, br), r(aw, pw), r(ar, pr), v > md
}
END { print "(wall time and peak RSS: medians; (N): timed runs)" }' "$results"
