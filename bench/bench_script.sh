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
work=$build/tests/report_work
. "$(dirname "$0")/bench_common.sh"

bench_need_built "$runner" "$perfev"
bench_need_perf

bench_record_file script 12000 -F 20000 -g
samples=$("$perfev" script -i "$file" -F comm | wc -l)
lines=$("$perfev" script -i "$file" | wc -l)

echo "bench_script.sh: $(uname -srm), $(getconf _NPROCESSORS_ONLN) CPUs online, $samples samples ($lines lines of script), $(wc -c < "$file") bytes"
bench_side_by_side '
		printf "target: wall <= 0.25x %s (%.3fx); peak RSS %.3fx\n",
		       (w + 0 <= 0.25 ? "met" : "MISSED"), w, m' \
	-- "$perfev" script -i "$file" -- "$perf" script -i "$file"
