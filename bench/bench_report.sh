#!/bin/sh
# SPDX-License-Identifier: MIT
#
# bench_report.sh - `perfev report --stdio` against `perf report --stdio` on
# the same perf.data of about 100,000 samples with call chains: wall time and
# peak memory, medians of RUNS runs of each, side by side (the two alternate
# run by run), and the ratios perfev / perf against the targets of
# docs/BENCHMARKS.md (wall <= 0.3x, peak RSS <= 0.5x).
#
#   usage: bench/bench_report.sh [BUILD_DIR [RUNS [FILE]]]   (defaults: build, 11)
#
# Without FILE it records one: `perf record -F 20000 -g` on the test
# workload (BUILD_DIR/tests/report_work: four functions called from main)
# for 5 s of CPU time, into a temporary directory removed at the end.
# The runner is bench_stat (bench/bench_stat.c): fork + exec + wait4,
# CLOCK_MONOTONIC wall time and wait4's ru_maxrss.
set -eu

build=${1:-build}
runs=${2:-11}
file=${3:-}
work=$build/tests/report_work
. "$(dirname "$0")/bench_common.sh"

bench_need_built "$runner" "$perfev"
bench_need_perf

bench_record_file report 5000 -F 20000 -g
samples=$("$perfev" report -i "$file" --no-children -g none --sort comm | awk '/^# Samples:/ { v = $3; if (v ~ /K$/) { sub("K", "", v); v *= 1000 } n += v } END { print n }')

echo "bench_report.sh: $(uname -srm), $(getconf _NPROCESSORS_ONLN) CPUs online, about $samples samples, $(wc -c < "$file") bytes"
bench_side_by_side '
		printf "targets: wall <= 0.3x %s (%.3fx), peak RSS <= 0.5x %s (%.3fx)\n",
		       (w + 0 <= 0.3 ? "met" : "MISSED"), w, (m + 0 <= 0.5 ? "met" : "MISSED"), m' \
	-- "$perfev" report -i "$file" --stdio -- "$perf" report -i "$file" --stdio
