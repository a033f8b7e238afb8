#!/bin/sh
# Writes the seed corpus of fuzz_perfdata: small perf.data files that Debian's
# perf records (file mode and pipe mode, callchains, several events, a group,
# a group read in its leader's samples (':S'),
# context switches, namespaces, register and stack dumps, a tracepoint with
# its TRACING_DATA), perfev's own pipe mode (finished and cut short), and the
# malformed corpus of tests/fixtures/perfdata-bad/.
#   fuzz/make_perfdata_corpus.sh [OUT_DIR]   (default fuzz/corpus/perfdata)
# Needs perf and root (or perf_event_paranoid <= 1); a recording perf cannot
# make on this machine is left out with a warning. Files above 50 KB are
# dropped: the fuzzer works best on small inputs.
set -eu
cd "$(dirname "$0")/.."

out=${1:-fuzz/corpus/perfdata}
mkdir -p "$out"
command -v perf >/dev/null || {
	echo "make_perfdata_corpus.sh: perf is not installed; install linux-perf" >&2
	exit 2
}

# A few milliseconds of user-space work to sample.
spin='i=0; while [ $i -lt 3000 ]; do i=$((i+1)); done'

# rec NAME PERF_RECORD_OPTIONS...: file mode into NAME.
rec() {
	name=$1
	shift
	if perf record -q "$@" -o "$out/$name" -- sh -c "$spin" >/dev/null 2>&1; then
		keep "$name"
	else
		echo "make_perfdata_corpus.sh: warning: perf record $* failed; $name left out" >&2
		rm -f "$out/$name"
	fi
}

# pipe NAME PERF_RECORD_OPTIONS...: pipe mode (perf record -o -) into NAME.
pipe() {
	name=$1
	shift
	if perf record -q "$@" -o - -- sh -c "$spin" >"$out/$name" 2>/dev/null; then
		keep "$name"
	else
		echo "make_perfdata_corpus.sh: warning: perf record -o - $* failed; $name left out" >&2
		rm -f "$out/$name"
	fi
}

keep() {
	size=$(stat -c %s "$out/$1")
	if [ "$size" -gt 51200 ]; then
		echo "make_perfdata_corpus.sh: warning: $1 is $size bytes; left out" >&2
		rm -f "$out/$1"
	fi
}

rec perf-file-plain.data -e cpu-clock -c 1000000
rec perf-file-callchain.data -g -e cpu-clock,task-clock -c 500000 --no-buildid
rec perf-file-group.data -e '{cpu-clock,task-clock}' -c 500000
rec perf-file-leader-sampling.data -e '{cpu-clock,page-faults}:S' -c 500000
rec perf-file-switch-ns.data -e cpu-clock -c 500000 --switch-events --namespaces -T -d \
	--sample-cpu
rec perf-file-regs.data -e cpu-clock -c 1000000 --user-regs=ip,sp
rec perf-file-dwarf.data --call-graph dwarf,256 -e cpu-clock -c 2000000
pipe perf-pipe-plain.data -e cpu-clock -c 1000000
pipe perf-pipe-callchain.data -g -e cpu-clock,task-clock -c 500000 --switch-events \
	--namespaces -T -d --sample-cpu

# A tracepoint brings TRACING_DATA (tracefs must be mounted).
if [ -d /sys/kernel/tracing/events ] ||
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null; then
	rec perf-file-tracepoint.data -e sched:sched_process_exit
	pipe perf-pipe-tracepoint.data -e sched:sched_process_exit
else
	echo "make_perfdata_corpus.sh: warning: no tracefs; tracepoint files left out" >&2
fi

# perfev's own pipe mode (record -o -) when it is built ($PERFEV, default build/perfev):
# a finished stream, one with tracing data, and one cut inside a record (a killed recorder).
perfev=${PERFEV:-build/perfev}
if [ -x "$perfev" ]; then
	perfev_pipe() {
		name=$1
		shift
		if "$perfev" record -q "$@" -o - -- sh -c "$spin" >"$out/$name" 2>/dev/null; then
			keep "$name"
		else
			echo "make_perfdata_corpus.sh: warning: perfev record -o - $* failed; $name left out" >&2
			rm -f "$out/$name"
		fi
	}
	perfev_pipe perfev-pipe-plain.data -e cpu-clock -c 1000000
	perfev_pipe perfev-pipe-tracepoint.data -e sched:sched_process_exit -e page-faults -c 1
	if [ -f "$out/perfev-pipe-plain.data" ]; then
		size=$(stat -c %s "$out/perfev-pipe-plain.data")
		head -c $((size - 12)) "$out/perfev-pipe-plain.data" >"$out/perfev-pipe-cut.data"
	fi
else
	echo "make_perfdata_corpus.sh: warning: no $perfev; perfev's pipe-mode seeds left out" >&2
fi

# The malformed corpus (and its valid files), as the reader's tests use it.
for f in tests/fixtures/perfdata-bad/*.data; do
	cp "$f" "$out/bad-$(basename "$f")"
done

# Inputs that once crashed the reader (see the regression tests in tests/test_perfdata_bad.c).
# An ID_INDEX record with no entries as the first of a pipe-mode stream:
printf 'PERFILE2\020\0\0\0\0\0\0\0E\0\0\0\0\0\020\0\0\0\0\0\0\0\0\0' \
	>"$out/bug-empty-id-index.data"

echo "make_perfdata_corpus.sh: $(ls "$out" | wc -l) files in $out"
