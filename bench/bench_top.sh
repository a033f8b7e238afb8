#!/bin/sh
# SPDX-License-Identifier: MIT
#
# bench_top.sh - the cost of watching: `perfev top` and `perf top` side by
# side, at the same time, on the same workload (report_work, CPU-bound in
# four known functions), at the same rate (-F), each refreshing its plain
# table every second for SECS seconds (--stdio, output discarded, standard
# input a pipe that never speaks). Each tool's own CPU time (the run time
# of all its threads, /proc/PID/task/*/schedstat, in ns) is read 3 s after the start and just before both are
# stopped: the whole run (start-up included: both read /proc/kallsyms) and
# the steady state after those 3 s. Target (docs/BENCHMARKS.md): perfev top
# uses at most a tenth of perf top's CPU time. A second pair does the same
# with call chains (-g).
#
#   usage: bench/bench_top.sh [BUILD_DIR [SECS [HZ]]]  (defaults: build, 20, 1000)
set -eu

build=${1:-build}
secs=${2:-20}
hz=${3:-1000}
work=$build/tests/report_work
. "$(dirname "$0")/bench_common.sh"

bench_need_built "$work" "$perfev"
bench_need_perf

pids=""
cleanup() { for p in $pids; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT INT TERM

# CPU time of a process in ms, all its threads: the scheduler's run time (ns).
cpu_ms() {
	cat /proc/"$1"/task/*/schedstat | awk '{ t += $1 } END { printf "%.1f", t / 1e6 }'
}

# One pair: perfev top and perf top with the extra options $1, for $secs seconds.
pair() {
	"$work" $(((secs + 30) * 1000)) &
	w=$!
	pids="$pids $w"
	sleep $((secs + 5)) | "$perfev" top --stdio -d 1 -F "$hz" -p "$w" $1 >/dev/null 2>&1 &
	e=$!
	sleep $((secs + 5)) | "$perf" top --stdio -d 1 -F "$hz" -p "$w" $1 >/dev/null 2>&1 &
	p=$!
	pids="$pids $e $p"
	sleep 3
	se=$(cpu_ms "$e")
	sp=$(cpu_ms "$p")
	sleep $((secs - 3))
	ce=$(cpu_ms "$e")
	cp=$(cpu_ms "$p")
	kill "$e" "$p" "$w" 2>/dev/null || true
	wait "$e" "$p" "$w" 2>/dev/null || true
	awk -v o="${1:--}" -v e="$ce" -v p="$cp" -v se="$se" -v sp="$sp" 'BEGIN {
		r = p > 0 ? e / p : 0
		s = p - sp > 0 ? (e - se) / (p - sp) : 0
		printf "%-4s whole run:    perfev top %7.1f ms  perf top %7.1f ms  perfev/perf %.3f (target <= 0.1: %s)\n",
		       o, e, p, r, (r <= 0.1 ? "met" : "MISSED")
		printf "%-4s after 3 s:    perfev top %7.1f ms  perf top %7.1f ms  perfev/perf %.3f (target <= 0.1: %s)\n",
		       o, e - se, p - sp, s, (s <= 0.1 ? "met" : "MISSED")
	}'
}

echo "bench_top.sh: $(uname -srm), $(getconf _NPROCESSORS_ONLN) CPUs online, $secs s at $hz Hz," \
	"-p on report_work, CPU time of each top process"
pair ""
pair "-g"
