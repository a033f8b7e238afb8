#!/bin/sh
# SPDX-License-Identifier: MIT
#
# bench_real_top.sh - what watching and recording cost on a busy machine
# (issue 20, docs/BENCHMARKS.md "Real programs"): while gcc compiles in a
# loop (bench_real_work.sh loop CACHE_DIR gcc: the work is in cc1, 28,898
# .dynsym symbols and no .symtab),
#
# 1. top: `perfev top`, the newest perf's `top` (perf-latest) and perf 6.1's
#    `top`, all three at once, system-wide (-a), --stdio -d 1 -F HZ, output
#    discarded, standard input a pipe that never speaks, for SECS seconds;
#    the CPU time of each top process (all its threads: the scheduler's run
#    time in /proc/PID/task/*/schedstat) after 3 s and at the end, for the
#    whole run and the steady state after those 3 s. Then the same with -g.
#    Target: perfev top <= 0.25x perf top's CPU time.
# 2. record: `perfev record -a -g -F 5000 -- sleep RSECS`, the same with perf
#    7.2 and perf 6.1, by turns (bench_stat, RUNS runs of each, medians): the
#    CPU time of the recorder (wait4's rusage: the recorder and its `sleep`),
#    its wall time and peak RSS, and the samples and lost samples of the last
#    file of each. Target: perfev record's CPU <= 0.1x perf record's.
#
#   usage: bench/bench_real_top.sh [BUILD_DIR [CACHE_DIR [SECS [HZ]]]]
#          (defaults: build, /var/tmp/perfev-bench-real, 20, 1000)
#   environment: RUNS [3] (record), RSECS [10] (record), PARTS ["top record"],
#                PERF_LATEST (as bench_real.sh)
set -eu

build=${1:-build}
cache=${2:-/var/tmp/perfev-bench-real}
secs=${3:-20}
hz=${4:-1000}
runs=${RUNS:-3}
rsecs=${RSECS:-10}
parts=${PARTS:-top record}
. "$(dirname "$0")/bench_common.sh"
here=$(cd "$(dirname "$0")" && pwd)
count=$build/bench/bench_record_count

bench_need_built "$runner" "$perfev" "$count"
bench_need_perf
bench_find_perf_latest
[ "$secs" -gt 3 ] || { echo "$bench_me: SECS must be more than 3" >&2; exit 2; }

tmp=$(mktemp -d /tmp/perfev-bench-real-top.XXXXXX)
pids=""
loop=""
cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null || true; done
	# The compiler loop: its process group (the loop's shell, gcc, cc1).
	[ -z "$loop" ] || kill -TERM -"$loop" 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# The compiler loop, in a session (and process group) of its own so that it
# stops as a whole: setsid execs the loop's shell in this very process (a
# background job is no group leader), so $! is the group's id.
"$here/bench_real_work.sh" prepare "$cache"
setsid "$here/bench_real_work.sh" loop "$cache" gcc </dev/null >/dev/null 2>&1 &
loop=$!
sleep 2
[ "$(ps -o pgid= -p "$loop" | tr -d ' ')" = "$loop" ] || {
	echo "$bench_me: the compiler loop is not in a group of its own" >&2
	exit 1
}

echo "$bench_me: $(uname -srm), $(getconf _NPROCESSORS_ONLN) CPUs online, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "$bench_me: workload: bench_real_work.sh loop $cache gcc (gcc -O2 -c in a loop)"
echo "$bench_me: perf 7.2: ${perf_latest:-none} ($(bench_perf_version "$perf_latest")); perf 6.1: $perf ($(bench_perf_version "$perf"))"

# CPU time of a process in ms, all its threads: the scheduler's run time (ns).
cpu_ms() {
	cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{ t += $1 } END { printf "%.1f", t / 1e6 }'
}

# One round of top: perfev top, perf 7.2 top and perf 6.1 top at once, with the extra options $1.
tops() {
	o=$1
	sleep $((secs + 5)) | "$perfev" top -a --stdio -d 1 -F "$hz" $o >"$tmp/top-perfev" 2>&1 &
	e=$!
	sleep $((secs + 5)) | "$perf" top -a --stdio -d 1 -F "$hz" $o >"$tmp/top-perf61" 2>&1 &
	p=$!
	l=
	if [ -n "$perf_latest" ]; then
		sleep $((secs + 5)) | "$perf_latest" top -a --stdio -d 1 -F "$hz" $o >"$tmp/top-perf72" 2>&1 &
		l=$!
	fi
	pids="$pids $e $p $l"
	sleep 3
	se=$(cpu_ms "$e"); sp=$(cpu_ms "$p"); sl=$([ -z "$l" ] || cpu_ms "$l")
	sleep $((secs - 3))
	ce=$(cpu_ms "$e"); cp=$(cpu_ms "$p"); cl=$([ -z "$l" ] || cpu_ms "$l")
	for q in $e $p $l; do
		if ! kill -0 "$q" 2>/dev/null; then
			echo "$bench_me: a top ended early; its output:" >&2
			tail -5 "$tmp"/top-* >&2
			exit 1
		fi
	done
	kill $e $p $l 2>/dev/null || true
	wait $e $p $l 2>/dev/null || true
	for t in perfev perf61 ${l:+perf72}; do
		if ! grep -q '%' "$tmp/top-$t"; then
			echo "$bench_me: $t top printed no table:" >&2
			tail -5 "$tmp/top-$t" >&2
			exit 1
		fi
	done
	awk -v o="${o:--}" -v e="$ce" -v p="$cp" -v l="${cl:--}" -v se="$se" -v sp="$sp" -v sl="${sl:--}" '
	function ratio(a, b) { return b > 0 ? sprintf("%.3f", a / b) : "-" }
	function verdict(a, b) { return b > 0 ? (a / b <= 0.25 ? "met" : "MISSED") : "-" }
	BEGIN {
		printf "%-3s whole run: perfev top %8.1f ms  perf 7.2 top %8s ms  perf 6.1 top %8.1f ms  perfev/7.2 %s  perfev/6.1 %s (target <= 0.25: %s)\n",
		       o, e, l, p, ratio(e, l), ratio(e, p), verdict(e, l == "-" ? p : l)
		le = l == "-" ? "-" : sprintf("%.1f", l - sl)
		printf "%-3s after 3 s: perfev top %8.1f ms  perf 7.2 top %8s ms  perf 6.1 top %8.1f ms  perfev/7.2 %s  perfev/6.1 %s (target <= 0.25: %s)\n",
		       o, e - se, le, p - sp, ratio(e - se, le), ratio(e - se, p - sp),
		       verdict(e - se, le == "-" ? p - sp : le)
	}'
}

case " $parts " in *" top "*)
	echo
	echo "top: $secs s, -a -F $hz --stdio -d 1, all three at once; CPU time of each top process"
	tops ""
	tops "-g"
	;;
esac

case " $parts " in *" record "*)
	echo
	echo "record: -a -g -F 5000 for $rsecs s (sleep $rsecs), by turns; the recorder's own CPU time"
	set -- :: "$perfev" record -q -a -g -F 5000 -o "$tmp/perfev.data" -- sleep "$rsecs"
	if [ -n "$perf_latest" ]; then
		set -- "$@" :: "$perf_latest" record -q -a -g -F 5000 -o "$tmp/perf72.data" -- sleep "$rsecs"
	fi
	set -- "$@" :: "$perf" record -q -a -g -F 5000 -o "$tmp/perf61.data" -- sleep "$rsecs"
	res=$("$runner" -s :: "$runs" "$@")
	printf '%s\n' "$res"
	for t in perfev ${perf_latest:+perf72} perf61; do
		echo "  last file of $t: $("$count" "$tmp/$t.data"), $(wc -c <"$tmp/$t.data") bytes"
	done
	printf '%s\n' "$res" | awk -v latest="${perf_latest:+1}" '
	$1 == "cpu" { a = $2; b = $4; c = latest ? $6 : "" }
	END {
		if (latest) printf "record CPU: perfev/perf 7.2 %.3f (target <= 0.1: %s), perfev/perf 6.1 %.3f\n",
		                   a / b, (a / b <= 0.1 ? "met" : "MISSED"), a / c
		else printf "record CPU: perfev/perf 6.1 %.3f (target <= 0.1: %s)\n", a / b, (a / b <= 0.1 ? "met" : "MISSED")
	}'
	;;
esac
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
