#!/bin/sh
# SPDX-License-Identifier: MIT
#
# bench_real.sh - perfev against perf on recordings of real programs from
# Debian packages (issue 20, docs/BENCHMARKS.md "Real programs"): `report
# --stdio`, `report --stdio --no-children`, `script` and `diff` of perfev,
# of the newest perf (Debian sid's, through perf-latest) and of Debian 12's
# perf 6.1, side by side on the same files (bench_stat: the three take turns
# run by run; wall time, peak RSS and CPU time, medians), with the ratios
# perfev / perf 7.2 and perfev / perf 6.1 and the targets: wall time and
# peak RSS at most 0.5x the newest perf's.
#
#   usage: bench/bench_real.sh [BUILD_DIR [CACHE_DIR]]
#          (defaults: build, /var/tmp/perfev-bench-real)
#
# Workloads (bench_real_work.sh writes and runs them; the project wrote none
# of the programs):
#   gcc     gcc -O2 -c of six of perfev's .c files, five times over (cc1: 33 MB,
#           stripped, .dynsym only)
#   python  Debian's /usr/bin/python3 running a CPU-bound script (numbers, dicts, strings)
#   xz      xz -T2 -9 --block-size=4MiB of 16 MiB of cc1: two threads
#   clang   clang++-14 -O2 of a generated file of STL template instantiations
#           (libclang-cpp.so.14 and libLLVM-14.so.1: 59 + 110 MB, .dynsym only)
# Each is recorded twice (two files, for diff) by perf 6.1 in each mode:
#   fp      perf record -g -F 15000                (frame-pointer call chains)
#   dwarf   perf record --call-graph dwarf -F 1000 (8 KiB stack copies)
# The recordings, the workloads' inputs and a list of the recordings
# (recordings.txt: command, samples, bytes) stay in CACHE_DIR and are used
# again by later runs while the programs recorded are the same files
# (checksums in CACHE_DIR/programs); `rm -r CACHE_DIR` records afresh.
#
# Environment (defaults in brackets):
#   RUNS [3]          timed runs of each command (perf 6.1 on DWARF files: RUNS_OLD)
#   RUNS_OLD [1]      timed runs of perf 6.1 on DWARF files (86 s each on gcc's)
#   OLD_DWARF ["report-nc diff"]  the commands perf 6.1 runs on DWARF files
#                     ("all": every one; "none")
#   BUDGET [45]       seconds per command and file: a slower command is run fewer
#                     times (bench_stat -b), at least once
#   WORKLOADS ["gcc python xz clang"], MODES ["fp dwarf"],
#   COMMANDS ["report report-nc script diff"]
#   PERF_LATEST       the newest perf [../shared/tools/perf-latest beside the
#                     repository, else perf-latest in PATH]; "none" leaves it out
#   OUT               where each comparison's outputs go [CACHE_DIR/results]
#
# Every command must exit 0 and print something (bench_stat -o): a timed
# error is no figure, so a comparison where one does not is marked FAILED
# (the script goes on with the others and exits 1 at the end). At the end: one table of every
# figure, also written as Markdown to OUT/table.md, and the top 20 rows of
# `report --stdio --no-children` of perfev next to each perf's
# (bench_real_top20.sh) in OUT/top20.txt.
set -eu

build=${1:-build}
cache=${2:-/var/tmp/perfev-bench-real}
. "$(dirname "$0")/bench_common.sh"
here=$(cd "$(dirname "$0")" && pwd)

runs=${RUNS:-3}
runs_old=${RUNS_OLD:-1}
old_dwarf=${OLD_DWARF:-report-nc diff}
budget=${BUDGET:-45}
workloads=${WORKLOADS:-gcc python xz clang}
modes=${MODES:-fp dwarf}
commands=${COMMANDS:-report report-nc script diff}
out=${OUT:-$cache/results}

bench_need_built "$runner" "$perfev" "$build/bench/bench_record_count"
bench_need_perf
bench_find_perf_latest

mkdir -p "$cache" "$out"
BUILD=$build "$here/bench_real_work.sh" record "$cache" $workloads

echo "$bench_me: $(uname -srm), $(getconf _NPROCESSORS_ONLN) CPUs online, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "$bench_me: perfev $perfev; perf 7.2: ${perf_latest:-none} ($(bench_perf_version "$perf_latest")); perf 6.1: $perf ($(bench_perf_version "$perf"))"
echo "$bench_me: RUNS=$runs RUNS_OLD=$runs_old BUDGET=$budget s OLD_DWARF='$old_dwarf'"
echo "$bench_me: recordings in $cache:"
sed 's/^/  /' "$cache/recordings.txt"

# The arguments of command $1 on the files $2 and $3.
args_of() {
	case $1 in
	report) echo "report -i $2 --stdio" ;;
	report-nc) echo "report -i $2 --stdio --no-children" ;;
	script) echo "script -i $2" ;;
	diff) echo "diff $2 $3" ;;
	*) echo "$bench_me: unknown command '$1' (report, report-nc, script, diff)" >&2; exit 2 ;;
	esac
}

# Whether perf 6.1 runs command $1 in mode $2.
old_runs() {
	[ "$2" = dwarf ] || return 0
	case " $old_dwarf " in *" all "*|*" $1 "*) return 0 ;; esac
	return 1
}

: >"$out/results.txt"
failed=0
for wl in $workloads; do
	for mode in $modes; do
		f1=$cache/$wl-$mode-1.data
		f2=$cache/$wl-$mode-2.data
		for c in $commands; do
			a=$(args_of "$c" "$f1" "$f2")
			d=$out/$wl-$mode-$c
			rm -rf "$d"
			mkdir -p "$d"
			n=$runs
			set -- -- "$perfev" $a
			if [ -n "$perf_latest" ]; then
				set -- "$@" -- "$perf_latest" $a
				n=$n,$runs
			fi
			if old_runs "$c" "$mode"; then
				set -- "$@" -- "$perf" $a
				[ "$mode" = dwarf ] && n=$n,$runs_old || n=$n,$runs
			fi
			echo
			echo "== $wl $mode $c"
			if ! "$runner" -o "$d" -b "$budget" "$n" "$@"; then
				echo "$bench_me: $wl $mode $c: a tool failed or printed nothing: see $d" >&2
				echo "$wl $mode $c FAILED" >>"$out/results.txt"
				failed=$((failed + 1))
				continue
			fi
			# summary: A (perfev), then B (perf 7.2) and C (perf 6.1) as they ran.
			awk -v wl="$wl" -v mode="$mode" -v c="$c" -v latest="${perf_latest:+1}" '
				{ v[$1] = $2 " " $3 " " $4 " " $5 }
				END {
					na = "- - - 0"
					b = latest ? v["B"] : na
					o = latest ? (("C" in v) ? v["C"] : na) : (("B" in v) ? v["B"] : na)
					print wl, mode, c, v["A"], b, o
				}' "$d/summary" >>"$out/results.txt"
		done
	done
done

echo
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
"$here/bench_real_table.sh" "$out/results.txt" "$out/table.md"

# The top 20 rows of the flat view, perfev against each perf.
: >"$out/top20.txt"
for wl in $workloads; do
	for mode in $modes; do
		d=$out/$wl-$mode-report-nc
		[ -d "$d" ] || continue
		pl=$d/B.out
		po=$d/C.out
		[ -n "$perf_latest" ] || { po=$pl; pl=; }
		for which in 7.2 6.1; do
			[ "$which" = 7.2 ] && p=$pl || p=$po
			[ -n "$p" ] && [ -s "$p" ] || continue
			echo "== $wl $mode: perfev against perf $which, top 20 of report --stdio --no-children" >>"$out/top20.txt"
			"$here/bench_real_top20.sh" "$d/A.out" "$p" 20 >>"$out/top20.txt" || true
		done
	done
done
echo
echo "top 20 rows, perfev against each perf (full list: $out/top20.txt):"
grep -E '^(==|rows)' "$out/top20.txt" | sed 's/^/  /'
if [ "$failed" -gt 0 ]; then
	echo "$bench_me: $failed comparisons failed (FAILED in the table)" >&2
	exit 1
fi
