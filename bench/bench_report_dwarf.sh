#!/bin/sh
# SPDX-License-Identifier: MIT
#
# bench_report_dwarf.sh - `perfev report --stdio` against `perf report
# --stdio` on the same `--call-graph dwarf` recording, where both unwind
# every sample from its registers and stack copy: wall time and peak
# memory, medians of RUNS runs of each, side by side (the two alternate run
# by run), and the ratios perfev / perf against the target of
# docs/BENCHMARKS.md (wall <= 0.5x).
#
#   usage: bench/bench_report_dwarf.sh [BUILD_DIR [RUNS [FILE]]]   (defaults: build, 5)
#
# Without FILE it records one: `perf record --call-graph dwarf -F 2000` on
# the test workload BUILD_DIR/tests/dwarf_work (main -> a -> b -> c, built
# -O2 without frame pointers) for about 3.5 s of CPU time, into a temporary
# directory removed at the end. The runner is bench_stat (bench/bench_stat.c).
set -eu

build=${1:-build}
runs=${2:-5}
file=${3:-}
runner=$build/bench/bench_stat
perfev=$build/perfev
work=$build/tests/dwarf_work

for f in "$runner" "$perfev"; do
	if [ ! -x "$f" ]; then
		echo "bench_report_dwarf.sh: $f is missing: build first (ninja -C $build)" >&2
		exit 1
	fi
done
if ! perf=$(command -v perf); then
	echo "bench_report_dwarf.sh: perf is not installed (Debian: linux-perf): nothing to compare with" >&2
	exit 77
fi

tmp=
if [ -z "$file" ]; then
	if [ ! -x "$work" ]; then
		echo "bench_report_dwarf.sh: $work is missing: build the tests (ninja -C $build)" >&2
		exit 1
	fi
	tmp=$(mktemp -d /tmp/perfev-bench-dwarf.XXXXXX)
	trap 'rm -rf "$tmp"' EXIT
	file=$tmp/perf.data
	"$perf" record -q --call-graph dwarf -F 2000 -o "$file" "$work" 3000 >/dev/null 2>&1
fi
samples=$("$perfev" report -i "$file" --no-children -g none --sort comm | awk '/^# Samples:/ { v = $3; if (v ~ /K$/) { sub("K", "", v); v *= 1000 } n += v } END { print n }')

echo "bench_report_dwarf.sh: $(uname -srm), $(getconf _NPROCESSORS_ONLN) CPUs online, about $samples samples, $(wc -c < "$file") bytes"
out=$("$runner" "$runs" -- "$perfev" report -i "$file" --stdio -- "$perf" report -i "$file" --stdio)
printf '%s\n' "$out"
printf '%s\n' "$out" | awk '
	$1 == "wall" { w = $NF; sub("x", "", w) }
	$1 == "peak" { m = $NF; sub("x", "", m) }
	END {
		printf "target: wall <= 0.5x %s (%.3fx); peak RSS %.3fx\n",
		       (w + 0 <= 0.5 ? "met" : "MISSED"), w, m
	}'
