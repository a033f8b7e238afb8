# SPDX-License-Identifier: MIT
#
# bench_common.sh - what the bench/*.sh scripts share, sourced (not run) by
# them after they set $build:
#
#   . "$(dirname "$0")/bench_common.sh"
#
# It sets bench_me (the script's name, which starts every message), perfev and
# runner (bench_stat: fork + exec + wait4, CLOCK_MONOTONIC wall time and
# wait4's ru_maxrss), and defines the functions below.

bench_me=$(basename "$0")
perfev=$build/perfev
runner=$build/bench/bench_stat

# Exits 1, saying to build, unless every FILE is an executable.
bench_need_built() {
	for f in "$@"; do
		if [ ! -x "$f" ]; then
			echo "$bench_me: $f is missing: build first (ninja -C $build)" >&2
			exit 1
		fi
	done
}

# Sets perf to perf's path, or exits 77 (skipped) when it is not installed.
bench_need_perf() {
	if ! perf=$(command -v perf); then
		echo "$bench_me: perf is not installed (Debian: linux-perf): nothing to compare with" >&2
		exit 77
	fi
}

# Unless $file is set already: `perf record -q ARGS -o FILE $work MS` into
# /tmp/perfev-bench-TAG.XXXXXX (removed at exit), and sets file to it.
#   usage: bench_record_file TAG MS ARGS...
bench_record_file() {
	tag=$1
	ms=$2
	shift 2
	tmp=
	[ -z "$file" ] || return 0
	if [ ! -x "$work" ]; then
		echo "$bench_me: $work is missing: build the tests (ninja -C $build)" >&2
		exit 1
	fi
	tmp=$(mktemp -d /tmp/perfev-bench-"$tag".XXXXXX)
	trap 'rm -rf "$tmp"' EXIT
	file=$tmp/perf.data
	"$perf" record -q "$@" -o "$file" "$work" "$ms" >/dev/null 2>&1
}

# Runs `$runner $runs ARGS...` (perfev's command -- perf's), prints its
# table, then the verdict: awk's END body, with w and m the wall and peak
# RSS ratios perfev / perf.
#   usage: bench_side_by_side 'END-BODY' -- PERFEV-COMMAND -- PERF-COMMAND
bench_side_by_side() {
	verdict=$1
	shift
	out=$("$runner" "$runs" "$@")
	printf '%s\n' "$out"
	printf '%s\n' "$out" | awk '
	$1 == "wall" { w = $NF; sub("x", "", w) }
	$1 == "peak" { m = $NF; sub("x", "", m) }
	END {'"$verdict"'
	}'
}

# Sets perf_latest to the newest perf (Debian sid's, run by perf-latest): $PERF_LATEST,
# else ../shared/tools/perf-latest beside the repository, else perf-latest in PATH;
# empty when there is none or PERF_LATEST is "none" (the caller then leaves it out).
bench_find_perf_latest() {
	perf_latest=${PERF_LATEST:-}
	if [ "$perf_latest" = none ]; then
		perf_latest=
		return 0
	fi
	if [ -z "$perf_latest" ]; then
		perf_latest=$(cd "$(dirname "$0")/.." && pwd)/../shared/tools/perf-latest
		[ -x "$perf_latest" ] || perf_latest=$(command -v perf-latest || true)
	fi
	if [ -n "$perf_latest" ] && ! "$perf_latest" --version >/dev/null 2>&1; then
		echo "$bench_me: $perf_latest does not run: leaving the newest perf out" >&2
		perf_latest=
	fi
	[ -n "$perf_latest" ] || echo "$bench_me: no newest perf (perf-latest): comparing with perf 6.1 alone" >&2
}

# Prints the version of the perf at $1 ("perf version X" -> X), or "none".
bench_perf_version() {
	if [ -n "$1" ]; then "$1" --version 2>/dev/null | awk '{ print $NF }'; else echo none; fi
}
