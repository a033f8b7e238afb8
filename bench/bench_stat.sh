#!/bin/sh
# SPDX-License-Identifier: MIT
#
# bench_stat.sh - `perfev stat -e task-clock true` against `perf stat -e
# task-clock true`: wall time and peak memory, medians of RUNS runs of each,
# side by side (the two alternate run by run), and the ratios perfev / perf
# against the targets of docs/BENCHMARKS.md (wall <= 0.15x, memory <= 0.25x).
#
#   usage: bench/bench_stat.sh [BUILD_DIR [RUNS]]     (defaults: build, 21)
#
# The runner is bench_stat (bench/bench_stat.c), built with the project:
# fork + exec + wait4, CLOCK_MONOTONIC wall time and wait4's ru_maxrss.
set -eu

build=${1:-build}
runs=${2:-21}
. "$(dirname "$0")/bench_common.sh"

bench_need_built "$runner" "$perfev"
bench_need_perf

echo "bench_stat.sh: $(uname -srm), $(getconf _NPROCESSORS_ONLN) CPUs online"
bench_side_by_side '
		printf "targets: wall <= 0.15x %s (%.3fx), peak RSS <= 0.25x %s (%.3fx)\n",
		       (w + 0 <= 0.15 ? "met" : "MISSED"), w, (m + 0 <= 0.25 ? "met" : "MISSED"), m' \
	-- "$perfev" stat -e task-clock true -- "$perf" stat -e task-clock true
