#!/bin/sh
# Records the seeds of scripts/mutate_structured.sh into tests/fixtures/mutate/:
# small recordings of real programs (gzip, python3, sqlite3, sleep) by perfev
# and by perf, one per shape the structure-aware mutator knows: frame-pointer
# callchains (-g), DWARF user stacks and registers (--call-graph dwarf), group
# read values ({cpu-clock,page-faults}:S), tracepoints (raw data), all CPUs
# (-a), cgroups (--all-cgroups: CGROUP records, each sample's id), and
# perf's pipe mode. Kept small (low frequencies, short runs, 2 KiB
# DWARF stacks) because they are committed: rerunning this script replaces
# them (the recordings differ from machine to machine; a mutant S:I is the
# same file wherever the same seeds are).
#   scripts/make_mutate_seeds.sh [BUILD_DIR]
# BUILD_DIR (default build) has the perfev that records. Needs root (or a
# perf_event_paranoid that allows it) and tracefs for the tracepoint seeds.
set -eu
cd "$(dirname "$0")/.."

build=${1:-build}
perfev=$(pwd)/$build/perfev
out=$(pwd)/tests/fixtures/mutate
[ -x "$perfev" ] || { echo "make_mutate_seeds.sh: no $perfev" >&2; exit 2; }
command -v perf >/dev/null || { echo "make_mutate_seeds.sh: no perf (Debian: linux-perf)" >&2; exit 2; }
[ -d /sys/kernel/tracing/events ] || mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null || true

mkdir -p "$out"
rm -f "$out"/*.data
work=$(mktemp -d "${TMPDIR:-/tmp}/perfev-seeds.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
cd "$work"

libc=$(ldd /bin/sh | awk '/libc.so/ {print $3}')
gz="gzip -9 -c $libc"
loop='sum(i * i for i in range(3000000))'
query='WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000000) SELECT sum(x) FROM c;'
# (A group with PERF_SAMPLE_READ is not inherited: its workload runs in the recorded process.)

rec() { # NAME TOOL OPTIONS... -- COMMAND
	name=$1 tool=$2
	shift 2
	if [ "$tool" = perf ]; then
		perf record -q -o "$out/$name.data" "$@" >/dev/null 2>"$work/$name.log" ||
			{ cat "$work/$name.log" >&2; exit 1; }
	else
		"$perfev" record -q -o "$out/$name.data" "$@" >/dev/null 2>"$work/$name.log" ||
			{ cat "$work/$name.log" >&2; exit 1; }
	fi
	echo "$name: $(stat -c %s "$out/$name.data") bytes"
}

rec perfev-g perfev -F 400 -g -- sh -c "$gz"
rec perfev-dwarf perfev -F 100 --call-graph dwarf,2048 -- python3 -c "$loop"
rec perfev-group perfev -F 400 -e '{cpu-clock,page-faults}:S' -- sqlite3 :memory: "$query"
rec perfev-tp perfev -e sched:sched_switch -e sched:sched_process_exec -- sh -c 'sleep 0.01; sleep 0.01'
rec perfev-a perfev -F 100 -a -g -- sleep 0.2
# gzip in a cgroup named as Docker names a container's (where cgroup v2 is mounted).
v2=$(findmnt -n -t cgroup2 -o TARGET | head -n 1)
scope=$v2/perfev-seed/docker-0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef.scope
mkdir -p "$scope"
rec perfev-cgroups perfev -F 50 -a -g --all-cgroups -- \
	sh -c "echo \$\$ > '$scope/cgroup.procs'; $gz; echo \$\$ > '$v2/cgroup.procs'"
rmdir "$scope" "$v2/perfev-seed"
rec perf-g perf -F 400 -g -- sh -c "$gz"
rec perf-dwarf perf -F 100 --call-graph dwarf,2048 -- python3 -c "$loop"
rec perf-group perf -F 400 -e '{cpu-clock,page-faults}:S' -- sqlite3 :memory: "$query"
rec perf-tp perf -e sched:sched_switch -e sched:sched_process_exec -- sh -c 'sleep 0.01; sleep 0.01'
perf record -q -o - -F 400 -g -- sh -c "$gz" >"$out/perf-pipe.data" 2>"$work/pipe.log" ||
	{ cat "$work/pipe.log" >&2; exit 1; }
echo "perf-pipe: $(stat -c %s "$out/perf-pipe.data") bytes"
