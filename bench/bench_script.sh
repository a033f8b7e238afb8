#!/bin/sh
# SPDX-License-Identifier: MIT
#
# bench_script.sh - `perfev script` against `perf script` on the same
# perf.data of about 200,000 samples with call chains: wall time and peak
# memory, medians of RUNS runs of each, side by side (the two alternate run
# by run), and the ratio perfev / perf against the target of
# docs/BENCHMARKS.md (wall <= 0.25x).
#
#   usage: bench/bench_script.sh [BUILD_DIR [RUNS [FILE]]]   (defaults: build, 11)
#
# Without FILE it records one: `perf record -F 20000 -g` on the test
# workload (BUILD_DIR/tests/report_work) for 12 s of CPU time (about 200,000 samples:
# the kernel throttles 20 kHz a little), into a
# temporary directory removed at the end. The runner is bench_stat
# (bench/bench_stat.c): fork + exec + wait4, stdout on /dev/null,
# CLOCK_MONOTONIC wall time and wait4's ru_maxrss.
set -eu

build=${1:-build}
runs=${2:-11}
file=${3:-}
runner=$build/bench/bench_stat
perfev=$build/perfev
work=$build/tests/report_work

for f in "$runner" "$perfev"; do
	if [ ! -x "$f" ]; then
		echo "bench_script.sh: $f is missing: build first (ninja -C $build)" >&2
		exit 1
	fi
done
if ! perf=$(command -v perf); then
	echo "bench_script.sh: perf is not installed (Debian: linux-perf): nothing to compare with" >&2
	exit 77
fi

tmp=
if [ -z "$file" ]; then
	if [ ! -x "$work" ]; then
		echo "bench_script.sh: $work is missing: build the tests (ninja -C $build)" >&2
		exit 1
	fi
	tmp=$(mktemp -d /tmp/perfev-bench-script.XXXXXX)
	trap 'rm -rf "$tmp"' EXIT
	file=$tmp/perf.data
	"$perf" record -q -F 20000 -g -o "$file" "$work" 12000 >/dev/null 2>&1
fi
samples=$("$perfev" script -i "$file" -F comm | wc -l)
lines=$("$perfev" script -i "$file" | wc -l)

echo "bench_script.sh: $(uname -srm), $(getconf _NPROCESSORS_ONLN) CPUs online, $samples samples ($lines lines of script), $(wc -c < "$file") bytes"
out=$("$runner" "$runs" -- "$perfev" script -i "$file" -- "$perf" script -i "$file")
printf '%s\n' "$out"
printf '%s\n' "$out" | awk '
	$1 == "wall" { w = $NF; sub("x", "", w) }
	$1 == "peak" { m = $NF; sub("x", "", m) }
	END {
		printf "target: wall <= 0.25x %s (%.3fx); peak RSS %.3fx\n",
		       (w + 0 <= 0.25 ? "met" : "MISSED"), w, m
	}'
