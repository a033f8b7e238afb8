#!/bin/sh
# SPDX-License-Identifier: MIT
#
# bench_real_work.sh - the real programs of bench_real.sh: writes their
# inputs, runs them, and records them with perf 6.1 into a cache directory.
#
#   usage: bench/bench_real_work.sh prepare CACHE_DIR
#          bench/bench_real_work.sh run CACHE_DIR WORKLOAD      (once)
#          bench/bench_real_work.sh loop CACHE_DIR WORKLOAD     (until killed)
#          bench/bench_real_work.sh record CACHE_DIR [WORKLOAD...]
#
# WORKLOAD is one of:
#   gcc     gcc -O2 -c of six of perfev's own .c files (a copy taken from the
#           repository's HEAD into CACHE_DIR/src), five times over, objects
#           into a temporary directory: the work is in cc1
#   python  /usr/bin/python3 (Debian's, whatever python3 PATH finds first)
#           running CACHE_DIR/work.py: a sieve, naive recursion, a dict of
#           formatted strings, a Mandelbrot loop in complex numbers
#   xz      xz -T2 -9 --block-size=4MiB of CACHE_DIR/xz.data (the first 16 MiB
#           of cc1): four blocks, so both threads compress
#   clang   clang++-14 -std=c++17 -O2 -c CACHE_DIR/tmpl.cc: eight structs, each
#           sorted, put in std::map, std::unordered_map, std::set of tuples,
#           std::unique_ptr, std::function and std::variant/std::visit
#
# `record` records each WORKLOAD twice in each mode, with Debian's perf 6.1:
#   CACHE_DIR/WORKLOAD-fp-N.data     perf record -g -F 15000            ($FP_OPTS)
#   CACHE_DIR/WORKLOAD-dwarf-N.data  perf record --call-graph dwarf -F 1000 ($DWARF_OPTS)
# (N = 1, 2), and keeps a file that is already there as long as the programs
# it records are the same files (CACHE_DIR/programs-WORKLOAD: their paths, sizes
# and modification times). It then writes CACHE_DIR/recordings.txt: each file's
# command, samples, lost samples and bytes. BUILD (default build) is where
# bench/bench_record_count is, which counts the samples.
set -eu

me=bench_real_work.sh
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
fp_opts=${FP_OPTS:--g -F 15000}
dwarf_opts=${DWARF_OPTS:---call-graph dwarf -F 1000}
count=${BUILD:-build}/bench/bench_record_count

# The six sources of the gcc workload (paths in the repository).
gcc_files="src/events/parse.c src/report/replay.c src/perfdata/perfdata_read.c
src/core/diagnose.c src/events/pmu.c src/perfdata/perfdata_write.c"

die() {
	echo "$me: $*" >&2
	exit 1
}

cc1() { gcc -print-prog-name=cc1; }

# The files whose work a workload records: program and libraries.
programs_of() {
	case $1 in
	gcc) echo "$(command -v gcc) $(cc1)" ;;
	python) echo /usr/bin/python3 ;;
	xz) echo "$(command -v xz) /lib/x86_64-linux-gnu/liblzma.so.5" ;;
	clang) echo "$(command -v clang++-14) /usr/lib/x86_64-linux-gnu/libLLVM-14.so.1 /usr/lib/llvm-14/lib/libclang-cpp.so.14" ;;
	*) die "unknown workload '$1' (gcc, python, xz, clang)" ;;
	esac
}

need_programs() {
	for p in $(programs_of "$1"); do
		[ -e "$p" ] || die "$1: $p is missing (Debian: gcc, python3, xz-utils, clang-14)"
	done
}

# Paths, sizes and modification times of the workload's programs (their real files).
stamp() {
	for p in $(programs_of "$1"); do
		stat -L -c '%n %s %Y' "$p"
	done
}

prepare() {
	c=$1
	mkdir -p "$c"
	if [ ! -d "$c/src" ]; then
		rm -rf "$c/src.tmp"
		mkdir -p "$c/src.tmp"
		if git -C "$repo" rev-parse --verify -q HEAD >/dev/null 2>&1; then
			git -C "$repo" archive HEAD src include | tar -x -C "$c/src.tmp"
			git -C "$repo" rev-parse HEAD >"$c/src.tmp/COMMIT"
		else
			cp -r "$repo/src" "$repo/include" "$c/src.tmp/"
		fi
		for f in $gcc_files; do
			[ -f "$c/src.tmp/$f" ] || die "gcc workload: $f is not in the repository"
		done
		mv "$c/src.tmp" "$c/src"
	fi
	[ -f "$c/work.py" ] || cat >"$c/work.py" <<'EOF'
# bench_real_work.sh's python workload: pure-Python CPU work.
def sieve(n):
    flags = bytearray([1]) * (n + 1)
    flags[0] = flags[1] = 0
    i = 2
    while i * i <= n:
        if flags[i]:
            for j in range(i * i, n + 1, i):
                flags[j] = 0
        i += 1
    return sum(flags)

def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)

def words(n):
    counts = {}
    for i in range(n):
        w = "w%x" % (i * 2654435761 % 7919)
        counts[w] = counts.get(w, 0) + len(w)
    text = " ".join(sorted(counts))
    return len(text.upper().split()), max(counts.values())

def mandel(size):
    total = 0
    for y in range(size):
        for x in range(size):
            c = complex(3.0 * x / size - 2.0, 2.0 * y / size - 1.0)
            z = 0j
            for k in range(50):
                z = z * z + c
                if abs(z) > 2.0:
                    break
            total += k
    return total

r = 0
for rnd in range(100):
    r += sieve(400000) + fib(22) + words(150000)[0] + mandel(90)
print(r)
EOF
	if [ ! -f "$c/xz.data" ]; then
		head -c 16777216 "$(cc1)" >"$c/xz.data.tmp"
		mv "$c/xz.data.tmp" "$c/xz.data"
	fi
	if [ ! -f "$c/tmpl.cc" ]; then
		{
			for h in algorithm functional map memory set string tuple unordered_map variant vector; do
				echo "#include <$h>"
			done
			i=0
			while [ $i -lt 8 ]; do
				sed "s/@/$i/g" <<'EOF'
struct T@ {
	int a;
	double b;
	std::string s;
	bool operator<(const T@ &o) const { return std::tie(a, b, s) < std::tie(o.a, o.b, o.s); }
};
double f@(std::vector<T@> &v)
{
	std::sort(v.begin(), v.end());
	std::stable_sort(v.begin(), v.end(), [](const T@ &x, const T@ &y) { return x.b > y.b; });
	std::map<std::string, T@> m;
	for (auto &x : v)
		m.emplace(x.s, x);
	std::unordered_map<int, std::vector<T@>> u;
	for (auto &x : v)
		u[x.a].push_back(x);
	std::set<std::tuple<int, std::string>> st;
	for (auto &x : v)
		st.insert({x.a, x.s});
	std::vector<std::unique_ptr<T@>> p;
	for (auto &x : v)
		p.push_back(std::make_unique<T@>(x));
	std::function<double(const T@ &)> g = [](const T@ &x) { return x.b * x.a; };
	double r = 0;
	for (auto &[k, x] : m)
		r += g(x) + k.size();
	std::variant<int, T@, std::string> var = v.empty() ? decltype(var)(1) : decltype(var)(v[0]);
	r += std::visit([](auto &&y) -> double {
		using Y = std::decay_t<decltype(y)>;
		if constexpr (std::is_same_v<Y, int>)
			return y;
		else if constexpr (std::is_same_v<Y, std::string>)
			return y.size();
		else
			return y.b;
	}, var);
	return r + u.size() + st.size() + p.size();
}
EOF
				i=$((i + 1))
			done
		} >"$c/tmpl.cc.tmp"
		mv "$c/tmpl.cc.tmp" "$c/tmpl.cc"
	fi
}

# Runs workload $2 once in cache $1.
run() {
	c=$1
	t=$(mktemp -d "${TMPDIR:-/tmp}/perfev-bench-real-work.XXXXXX")
	case $2 in
	gcc)
		(
			cd "$c/src"
			for i in 1 2 3 4 5; do
				for f in $gcc_files; do
					gcc -O2 -std=c11 -D_GNU_SOURCE -Isrc -Iinclude -Isrc/report \
						-I/usr/include/json-c -c "$f" -o "$t/$(basename "$f" .c).o"
				done
			done
		) ;;
	python) /usr/bin/python3 "$c/work.py" >/dev/null ;;
	xz) xz -T2 -9 --block-size=4MiB -c "$c/xz.data" >"$t/xz.data.xz" ;;
	clang) clang++-14 -std=c++17 -O2 -c "$c/tmpl.cc" -o "$t/tmpl.o" ;;
	*) rm -rf "$t"; die "unknown workload '$2' (gcc, python, xz, clang)" ;;
	esac
	rm -rf "$t"
}

record() {
	c=$1
	shift
	[ $# -gt 0 ] || set -- gcc python xz clang
	command -v perf >/dev/null || die "perf is not installed (Debian: linux-perf)"
	[ -x "$count" ] || die "$count is missing: build first (ninja -C ${BUILD:-build}), or set BUILD"
	prepare "$c"
	for wl in "$@"; do
		need_programs "$wl"
		if [ -f "$c/programs-$wl" ] && [ "$(stamp "$wl")" != "$(cat "$c/programs-$wl")" ]; then
			echo "$me: $wl: the programs changed since they were recorded: recording again" >&2
			rm -f "$c/$wl"-*.data "$c/$wl"-*.cmd
		fi
		stamp "$wl" >"$c/programs-$wl"
		for mode in fp dwarf; do
			[ $mode = fp ] && opts=$fp_opts || opts=$dwarf_opts
			for n in 1 2; do
				f=$c/$wl-$mode-$n.data
				[ -f "$f" ] && continue
				cmd="perf record -q $opts -o $f -- $here/$me run $c $wl"
				echo "$me: recording $wl ($mode, $n): $cmd" >&2
				t0=$(date +%s%N)
				# shellcheck disable=SC2086
				perf record -q $opts -o "$f.tmp" -- "$here/$me" run "$c" "$wl" >"$c/record.log" 2>&1 ||
					{ cat "$c/record.log" >&2; rm -f "$f.tmp"; die "recording $wl failed"; }
				t1=$(date +%s%N)
				mv "$f.tmp" "$f"
				echo "$cmd  ($(((t1 - t0) / 1000000)) ms, $(date -u +%Y-%m-%dT%H:%MZ))" >"$c/$wl-$mode-$n.cmd"
			done
		done
	done
	rm -f "$c/record.log"
	: >"$c/recordings.txt.tmp"
	for f in "$c"/*-*-[12].data; do
		[ -f "$f" ] || continue
		set -- $("$count" "$f")
		printf '%-20s %7s samples, %s lost, %9s bytes: %s\n' "$(basename "$f")" "$2" "$4" \
			"$(wc -c <"$f")" "$(cat "${f%.data}.cmd" 2>/dev/null || echo '?')" >>"$c/recordings.txt.tmp"
	done
	mv "$c/recordings.txt.tmp" "$c/recordings.txt"
}

[ $# -ge 2 ] || die "usage: $me prepare|run|loop|record CACHE_DIR [WORKLOAD...]"
verb=$1
cache=$2
shift 2
case $verb in
prepare) prepare "$cache" ;;
run)
	[ $# -eq 1 ] || die "usage: $me run CACHE_DIR WORKLOAD"
	prepare "$cache"
	run "$cache" "$1" ;;
loop)
	[ $# -eq 1 ] || die "usage: $me loop CACHE_DIR WORKLOAD"
	prepare "$cache"
	while :; do run "$cache" "$1"; done ;;
record) record "$cache" "$@" ;;
*) die "usage: $me prepare|run|loop|record CACHE_DIR [WORKLOAD...]" ;;
esac
