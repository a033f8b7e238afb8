#!/bin/sh
# SPDX-License-Identifier: MIT
#
# bench_scale.sh - how the cost of reading a recording grows (issue 20, item
# 4): samples, frames per sample and symbols doubled one at a time. The
# workload is generated (bench_scale_gen.sh): NFUNCS functions of which the
# same 128 run, call chains DEPTH functions deep, ROUNDS chains per run.
# Five recordings, `perf record -g -F HZ` (perf 6.1) of:
#
#   base      NFUNCS    DEPTH    ROUNDS
#   syms x2   2 NFUNCS  DEPTH    ROUNDS     the symbol table doubles
#   syms x4   4 NFUNCS  DEPTH    ROUNDS     and doubles again
#   frames x2 NFUNCS    2 DEPTH  ROUNDS     the frames per sample double
#   samples x2 NFUNCS   DEPTH    2 ROUNDS   the samples double
#
# Each is read by `perfev report --stdio`, `perfev script` and, for
# reference, the newest perf's `report --stdio` (bench_stat: by turns, RUNS
# runs, medians of CPU time and wall time). Printed: each recording's
# samples, frames per sample and symbols, each reader's CPU time, and the
# growth of each per doubling next to the growth of samples x frames. The
# claim to check: the cost follows samples x frames, and doubling the
# symbols costs (almost) nothing (growth <= 1.15x: "flat").
#
#   usage: bench/bench_scale.sh [BUILD_DIR [CACHE_DIR]]
#          (defaults: build, /var/tmp/perfev-bench-scale)
#   environment: NFUNCS [2000], DEPTH [16], ROUNDS [300000] (about 3 s of CPU),
#                HZ [10000], RUNS [5], BUDGET [60] (seconds per reader and
#                recording: a slower one runs fewer times), PERF_LATEST (as
#                bench_real.sh), OUT [CACHE_DIR/results]: where the readers'
#                outputs and the figures (scale.txt) go
#
# The programs and recordings stay in CACHE_DIR, named by their parameters,
# and are used again when present.
set -eu

build=${1:-build}
cache=${2:-/var/tmp/perfev-bench-scale}
nfuncs=${NFUNCS:-2000}
depth=${DEPTH:-16}
rounds=${ROUNDS:-300000}
hz=${HZ:-10000}
runs=${RUNS:-5}
budget=${BUDGET:-60}
out=${OUT:-$cache/results}
. "$(dirname "$0")/bench_common.sh"
here=$(cd "$(dirname "$0")" && pwd)
count=$build/bench/bench_record_count

bench_need_built "$runner" "$perfev" "$count"
bench_need_perf
bench_find_perf_latest
mkdir -p "$cache" "$out"

# The program with $1 functions, built once.
program() {
	p=$cache/scale-n$1
	if [ ! -x "$p" ]; then
		"$here/bench_scale_gen.sh" "$1" >"$p.c"
		${CC:-cc} -O1 -fno-omit-frame-pointer -fno-inline -fno-optimize-sibling-calls \
			-o "$p.tmp" "$p.c"
		mv "$p.tmp" "$p"
	fi
	echo "$p"
}

# The recording of point "$1 $2 $3" (functions, depth, rounds), made once.
recording() {
	f=$cache/scale-n$1-d$2-r$3-f$hz.data
	if [ ! -f "$f" ]; then
		p=$(program "$1")
		echo "$bench_me: recording: perf record -q -g -F $hz -o $f -- $p $2 $3" >&2
		"$perf" record -q -g -F "$hz" -o "$f.tmp" -- "$p" "$2" "$3" >/dev/null 2>&1
		mv "$f.tmp" "$f"
	fi
	echo "$f"
}

points="base:$nfuncs:$depth:$rounds
syms_x2:$((2 * nfuncs)):$depth:$rounds
syms_x4:$((4 * nfuncs)):$depth:$rounds
frames_x2:$nfuncs:$((2 * depth)):$rounds
samples_x2:$nfuncs:$depth:$((2 * rounds))"

echo "$bench_me: $(uname -srm), $(getconf _NPROCESSORS_ONLN) CPUs online, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "$bench_me: perfev $perfev; perf 7.2: ${perf_latest:-none}; $runs runs, CPU time medians"
: >"$out/scale.txt"
for pt in $points; do
	IFS=: read -r name n d r <<EOF
$pt
EOF
	f=$(recording "$n" "$d" "$r")
	syms=$(nm --defined-only "$(program "$n")" | awk '$2 ~ /^[Tt]$/ { k++ } END { print k }')
	o=$out/$name
	rm -rf "$o"
	mkdir -p "$o"
	set -- -- "$perfev" report -i "$f" --stdio -- "$perfev" script -i "$f"
	[ -z "$perf_latest" ] || set -- "$@" -- "$perf_latest" report -i "$f" --stdio
	"$runner" -o "$o" -b "$budget" "$runs" "$@" >"$o/bench_stat.txt"
	smp=$("$count" "$f" | awk '{ print $2 }')
	# Frames per sample: the frame lines of perfev script (they start with a tab).
	fps=$(awk -v s="$smp" '/^\t/ { k++ } END { printf "%.1f", k / s }' "$o/B.out")
	pl=$(awk '$1 == "C" { print $4 } END { }' "$o/summary")
	awk -v name="$name" -v n="$n" -v d="$d" -v r="$r" -v smp="$smp" -v fps="$fps" -v syms="$syms" \
		-v pl="${pl:--}" -v bytes="$(wc -c <"$f")" '
		$1 == "A" { rc = $4; rw = $2 } $1 == "B" { sc = $4; sw = $2 }
		END { print name, n, d, r, smp, fps, syms, bytes, rc, sc, pl, rw, sw }' "$o/summary" >>"$out/scale.txt"
done

awk '
function s(ms) { return ms == "-" ? "-" : sprintf("%.3f s", ms / 1000) }
function g(a, b) { return (a == "-" || b == "-" || b == 0) ? "-" : sprintf("%.2fx", a / b) }
{
	name[NR] = $1; smp[NR] = $5; fps[NR] = $6; syms[NR] = $7; rc[NR] = $9; sc[NR] = $10; pl[NR] = $11
	printf "%-11s %6d funcs, depth %3d, %7d rounds: %7d samples, %5.1f frames/sample, %6d symbols, %9d bytes; CPU: perfev report %s, perfev script %s, perf 7.2 report %s (wall: report %s, script %s)\n",
	       $1, $2, $3, $4, $5, $6, $7, $8, s($9), s($10), s($11), s($12), s($13)
	i[$1] = NR
}
function grow(label, a, b, sym,    w, x) {
	w = (smp[b] * fps[b]) / (smp[a] * fps[a])
	printf "%-34s samples x frames %5.2fx  symbols %5.2fx | perfev report %6s  script %6s  perf 7.2 report %6s",
	       label, w, syms[b] / syms[a], g(rc[b], rc[a]), g(sc[b], sc[a]), g(pl[b], pl[a])
	if (sym) {
		x = rc[b] / rc[a] <= 1.15 && sc[b] / sc[a] <= 1.15
		printf "  %s\n", x ? "flat: met" : "grows with symbols: MISSED"
	} else
		printf "\n"
}
END {
	print ""
	print "growth per doubling (CPU time, medians):"
	grow("symbols x2 (base -> syms_x2)", i["base"], i["syms_x2"], 1)
	grow("symbols x2 (syms_x2 -> syms_x4)", i["syms_x2"], i["syms_x4"], 1)
	grow("frames x2 (base -> frames_x2)", i["base"], i["frames_x2"], 0)
	grow("samples x2 (base -> samples_x2)", i["base"], i["samples_x2"], 0)
}' "$out/scale.txt"
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
