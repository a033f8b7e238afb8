#!/bin/sh
# SPDX-License-Identifier: MIT
#
# bench_record.sh - the cost of recording: a CPU-bound workload (about 2 s
# of CPU, the same work every run: bench_record_work) alone, under `perfev
# record -F 10000 -g` and under `perf record -F 10000 -g`, side by side
# (the three alternate run by run, in a rotating order). Wall time is that
# of the whole command, writing and finishing the file included. Reports
# the medians, the time each tool adds to the bare workload, the ratio
# perfev's added time / perf's (target <= 0.5, docs/BENCHMARKS.md), and the
# samples and lost samples of each file (target: perfev loses no more than
# perf), both files counted by the same reader (bench_record_count). Last,
# the CPU time each recorder process spends itself (perf stat --no-inherit).
#
#   usage: bench/bench_record.sh [BUILD_DIR [REPS [ROUNDS]]]  (defaults: build, 5, 1100)
set -eu

build=${1:-build}
reps=${2:-5}
rounds=${3:-1100}
work=$build/bench/bench_record_work
count=$build/bench/bench_record_count
. "$(dirname "$0")/bench_common.sh"

bench_need_built "$work" "$count" "$perfev"
bench_need_perf
tmp=$(mktemp -d /tmp/bench_record.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM

# Runs a command with its output discarded; prints its wall time in ms.
wall_ms() {
	t0=$(date +%s%N)
	"$@" >/dev/null 2>&1 || { echo "bench_record.sh: failed: $*" >&2; exit 1; }
	t1=$(date +%s%N)
	echo $(((t1 - t0) / 1000000))
}

base() { wall_ms "$work" "$rounds"; }
with_perfev() { wall_ms "$perfev" record -q -F 10000 -g -o "$tmp/perfev.data" -- "$work" "$rounds"; }
with_perf() { wall_ms "$perf" record -q -F 10000 -g -o "$tmp/perf.data" -- "$work" "$rounds"; }

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo "bench_record.sh: $(uname -srm), $(getconf _NPROCESSORS_ONLN) CPUs online, $reps runs of each," \
	"workload: bench_record_work $rounds"
base >/dev/null # warm the page cache
: >"$tmp/b"
: >"$tmp/e"
: >"$tmp/p"
: >"$tmp/counts"
printf '%4s %10s %10s %10s %16s %16s\n' run bare_ms perfev_ms perf_ms perfev_smp/lost perf_smp/lost
i=1
while [ "$i" -le "$reps" ]; do
	case $((i % 3)) in
	0) b=$(base); e=$(with_perfev); p=$(with_perf) ;;
	1) e=$(with_perfev); p=$(with_perf); b=$(base) ;;
	*) p=$(with_perf); b=$(base); e=$(with_perfev) ;;
	esac
	ec=$("$count" "$tmp/perfev.data")
	pc=$("$count" "$tmp/perf.data")
	echo "$b" >>"$tmp/b"
	echo "$e" >>"$tmp/e"
	echo "$p" >>"$tmp/p"
	echo "$ec $pc" >>"$tmp/counts"
	printf '%4d %10d %10d %10d %16s %16s\n' "$i" "$b" "$e" "$p" \
		"$(echo "$ec" | awk '{ print $2 "/" $4 }')" "$(echo "$pc" | awk '{ print $2 "/" $4 }')"
	i=$((i + 1))
done
mb=$(median <"$tmp/b")
me=$(median <"$tmp/e")
mp=$(median <"$tmp/p")
awk -v b="$mb" -v e="$me" -v p="$mp" 'BEGIN {
	printf "median wall: bare %.0f ms, perfev record %.0f ms (+%.0f), perf record %.0f ms (+%.0f)\n",
	       b, e, e - b, p, p - b
	r = (p - b > 0) ? (e - b) / (p - b) : 0
	printf "added time perfev / perf: %.3f (target <= 0.5: %s)\n", r, (r <= 0.5 ? "met" : "MISSED")
}'
# The recorders' own CPU time (the recorder process alone, not the workload it runs):
# task-clock counted by perf stat without inheritance, once each.
own_cpu() {
	"$perf" stat --no-inherit -x, -e task-clock -- "$@" 2>&1 >/dev/null |
		awk -F, '$3 ~ /^task-clock/ { printf "%.1f", $1 }'
}
oe=$(own_cpu "$perfev" record -q -F 10000 -g -o "$tmp/perfev.data" -- "$work" "$rounds")
op=$(own_cpu "$perf" record -q -F 10000 -g -o "$tmp/perf.data" -- "$work" "$rounds")
echo "own CPU time of the recorder process: perfev record $oe ms, perf record $op ms"
awk '{ es += $2; el += $4; ps += $6; pl += $8 } END {
	printf "samples, all runs: perfev %d (lost %d), perf %d (lost %d); lost target (perfev <= perf): %s\n",
	       es, el, ps, pl, (el <= pl ? "met" : "MISSED")
}' "$tmp/counts"
