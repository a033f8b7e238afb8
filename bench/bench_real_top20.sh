#!/bin/sh
# SPDX-License-Identifier: MIT
#
# bench_real_top20.sh - compares the first N rows (default 20) of two outputs of
# `report --stdio --no-children` (perfev's and a perf's): how many rows are the
# same at the same place (share, command, shared object, symbol), how many
# are when C++ parameter lists are left out of the names (perf 7.2 prints them,
# perf 6.1 and perfev do not), which symbols only one of the two has in its top
# N, and every row that differs, side by side.
#
#   usage: bench/bench_real_top20.sh PERFEV_OUTPUT PERF_OUTPUT [N]
#
# Prints "rows: ..." first (bench_real.sh collects those lines). Exits 1 when
# either output has no rows.
set -eu

[ $# -ge 2 ] || { echo "usage: bench_real_top20.sh PERFEV_OUTPUT PERF_OUTPUT [N]" >&2; exit 2; }

awk -v n="${3:-20}" '
# The row of a table line: "SHARE COMM DSO SYMBOL" with single spaces.
function row(line,    sym, head) {
	if (!match(line, / \[[.kgu]\] /))
		return ""
	sym = substr(line, RSTART + 1)
	head = substr(line, 1, RSTART - 1)
	gsub(/^ +| +$/, "", head)
	gsub(/ +/, " ", head)
	sub(/ +$/, "", sym)
	return head " " sym
}
# A symbol without its trailing C++ parameter list (and const).
function bare(s,    i, depth, ch) {
	sub(/ const$/, "", s)
	if (substr(s, length(s)) != ")")
		return s
	depth = 0
	for (i = length(s); i > 0; i--) {
		ch = substr(s, i, 1)
		if (ch == ")") depth++
		else if (ch == "(" && --depth == 0) return substr(s, 1, i - 1)
	}
	return s
}
function symbol_of(r) { return bare(substr(r, index(r, "] ") + 2)) }
function loose(r,    p) {
	p = index(r, "] ")
	return substr(r, 1, p + 1) bare(substr(r, p + 2))
}
{ file = FILENAME == ARGV[1] ? 1 : 2 }
/^ +[0-9.]+%  / {
	if (cnt[file] >= n) next
	r = row($0)
	if (r == "") next
	rows[file, ++cnt[file]] = r
	top[file, symbol_of(r)] = 1
}
END {
	if (cnt[1] == 0 || cnt[2] == 0) {
		printf "rows: none in %s\n", cnt[1] == 0 ? "the first output" : "the second output"
		exit 1
	}
	m = cnt[1] < cnt[2] ? cnt[1] : cnt[2]
	same = 0; lsame = 0
	for (i = 1; i <= m; i++) {
		same += rows[1, i] == rows[2, i]
		lsame += loose(rows[1, i]) == loose(rows[2, i])
	}
	only1 = ""; only2 = ""; k1 = 0; k2 = 0
	for (i = 1; i <= cnt[1]; i++) {
		s = symbol_of(rows[1, i])
		if (!((2, s) in top)) { only1 = only1 "    " s "\n"; k1++ }
	}
	for (i = 1; i <= cnt[2]; i++) {
		s = symbol_of(rows[2, i])
		if (!((1, s) in top)) { only2 = only2 "    " s "\n"; k2++ }
	}
	printf "rows: %d of %d the same, %d without C++ parameter lists; symbols only in perfev'"'"'s top %d: %d, only in perf'"'"'s: %d\n",
	       same, m, lsame, n, k1, k2
	if (k1) printf "  only in perfev'"'"'s top %d:\n%s", n, only1
	if (k2) printf "  only in perf'"'"'s top %d:\n%s", n, only2
	for (i = 1; i <= m; i++)
		if (loose(rows[1, i]) != loose(rows[2, i]))
			printf "  row %2d  perfev: %s\n          perf:   %s\n", i, rows[1, i], rows[2, i]
}' "$1" "$2"
