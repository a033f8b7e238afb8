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
work=$build/tests/dwarf_work
. "$(dirname "$0")/bench_common.sh"

bench_need_built "$runner" "$perfev"
bench_need_perf

bench_record_file dwarf 3000 --call-graph dwarf -F 2000
samples=$("$perfev" report -i "$file" --no-children -g none --sort comm | awk '/^# Samples:/ { v = $3; if (v ~ /K$/) { sub("K", "", v); v *= 1000 } n += v } END { print n }')

echo "bench_report_dwarf.sh: $(uname -srm), $(getconf _NPROCESSORS_ONLN) CPUs online, about $samples samples, $(wc -c < "$file") bytes"
bench_side_by_side '
		printf "target: wall <= 0.5x %s (%.3fx); peak RSS %.3fx\n",
		       (w + 0 <= 0.5 ? "met" : "MISSED"), w, m' \
	-- "$perfev" report -i "$file" --stdio -- "$perf" report -i "$file" --stdio
