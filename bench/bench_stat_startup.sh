#!/bin/sh
# SPDX-License-Identifier: MIT
#
# bench_stat_startup.sh - what `perfev stat` adds to the command it counts:
# `perfev stat -e task-clock -x, -o /dev/null true` against
# `/usr/bin/time -f '' true`, a bare fork + exec + wait of the same `true` by
# another small program. Wall time and peak memory, medians of RUNS runs of
# each, the two alternating run by run, and the wall ratio against the
# target of docs/BENCHMARKS.md (<= 1.10x). Then the shared libraries one
# such run loads (LD_DEBUG=files) and its system calls (strace -f -c, when
# strace is installed).
#
#   usage: bench/bench_stat_startup.sh [BUILD_DIR [RUNS]]     (defaults: build, 31)
#
# The runner is bench_stat (bench/bench_stat.c), built with the project.
set -eu

build=${1:-build}
runs=${2:-31}
. "$(dirname "$0")/bench_common.sh"

bench_need_built "$runner" "$perfev"
if [ ! -x /usr/bin/time ]; then
	echo "$bench_me: /usr/bin/time is not installed (Debian: time): nothing to compare with" >&2
	exit 77
fi

echo "$bench_me: $(uname -srm), $(getconf _NPROCESSORS_ONLN) CPUs online," \
	"load average $(cut -d' ' -f1-3 /proc/loadavg)"
bench_side_by_side '
		printf "target: wall <= 1.10x a bare fork + exec + wait of true: %s (%.3fx)\n",
		       (w + 0 <= 1.10 ? "met" : "MISSED"), w' \
	-- "$perfev" stat -e task-clock -x, -o /dev/null true -- /usr/bin/time -f '' true

# One run again, to see what it loads and which calls it makes.
tmp=$(mktemp -d /tmp/perfev-bench-startup.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
LD_DEBUG=files LD_DEBUG_OUTPUT="$tmp/ld" "$perfev" stat -e task-clock -x, -o /dev/null true
printf 'libraries loaded (perfev and true): '
sed -n 's/.*file=\([^ ]*\) .*\(needed by\|dynamically loaded\).*/\1/p' "$tmp"/ld.* | sort -u |
	tr '\n' ' '
echo
if command -v strace >/dev/null 2>&1 &&
	strace -f -c -o "$tmp/calls" "$perfev" stat -e task-clock -x, -o /dev/null true; then
	echo "system calls of one run (perfev and true, strace -f -c):"
	awk '$NF ~ /^(mmap|openat|newfstatat|read|execve|total)$/ {
		printf "  %-11s %s\n", $NF, $4 }' "$tmp/calls"
fi
