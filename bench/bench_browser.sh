#!/bin/sh
# SPDX-License-Identifier: MIT
#
# bench_browser.sh - the cost of the browser formats (issue 25, docs/REPORT.md):
# `perfev report --format gecko` and `--format speedscope` against `perfev
# report --stdio` on the same file (target: no slower), and perfev's Gecko
# export against perf 7.2's (`perf script report gecko`, through perf-latest
# --chroot) on a file both symbolize alike (targets: no larger, and the time
# side by side). Medians of RUNS runs, the commands taking turns run by run
# (bench_stat); the output sizes of one run.
#
#   usage: bench/bench_browser.sh [BUILD_DIR [CACHE_DIR]]
#          (defaults: build, /var/tmp/perfev-bench-browser)
#
# Files, recorded once into CACHE_DIR (`rm -r CACHE_DIR` records afresh):
#   xz.data      perfev record -g -F 10000 of Debian's xz -6 -T1 compressing
#                30 MB of random bytes (about 200,000 samples)
#   static.data  perfev record -g -F 10000 of a static copy of the tests'
#                parity_work (three threads, 4 s) built into
#                /tmp/perfev-bench-browser-bin, where perf 7.2 in its own
#                Debian tree finds and symbolizes it as perfev does
#
# Environment: RUNS [5].
set -eu

build=${1:-build}
cache=${2:-/var/tmp/perfev-bench-browser}
runs=${RUNS:-5}
. "$(dirname "$0")/bench_common.sh"
src=$(cd "$(dirname "$0")/.." && pwd)

bench_need_built "$runner" "$perfev"
command -v xz >/dev/null || { echo "$bench_me: xz is not installed (xz-utils)" >&2; exit 77; }
mkdir -p "$cache"
if [ ! -s "$cache/xz.data" ]; then
	head -c 30000000 /dev/urandom > "$cache/in.bin"
	"$perfev" record -q -g -F 10000 -o "$cache/xz.data" -- xz -6 -T1 -c "$cache/in.bin" >/dev/null
fi
tmp=$(mktemp -d /tmp/perfev-bench-browser.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
# The static program stays at the path it was recorded from: perf 7.2 reads it there.
bin=/tmp/perfev-bench-browser-bin
if [ ! -s "$cache/static.data" ] || [ ! -x "$bin/parity_work_static" ]; then
	mkdir -p "$bin"
	cc -O1 -g -fno-omit-frame-pointer -static -pthread -o "$bin/parity_work_static" \
		"$src/tests/parity_work.c" -lm
	"$perfev" record -q -g -F 10000 -o "$cache/static.data" -- "$bin/parity_work_static" threads 4000
fi

samples() {
	"$perfev" report -i "$1" --stdio -g none --sort comm 2>/dev/null |
		awk '/^# Samples:/ { v = $3; if (v ~ /K$/) { sub("K", "", v); v *= 1000 } n += v } END { print n }'
}

echo "$bench_me: $(uname -srm), $(getconf _NPROCESSORS_ONLN) CPUs online, RUNS=$runs"
for f in xz static; do
	file=$cache/$f.data
	echo "== $f.data: about $(samples "$file") samples, $(wc -c < "$file") bytes =="
	for fmt in gecko speedscope; do
		echo "-- perfev report --format $fmt (A) against perfev report --stdio (B)"
		# Both to standard output (bench_stat: /dev/null), so that neither pays for
		# writing a file.
		bench_side_by_side '
		printf "target: wall <= 1x the table: %s (%.3fx)\n", (w + 0 <= 1.0 ? "met" : "MISSED"), w' \
			-- "$perfev" report -i "$file" --format "$fmt" \
			-- "$perfev" report -i "$file" --stdio
		echo "$fmt: $("$perfev" report -i "$file" --format "$fmt" | wc -c) bytes"
	done
done

bench_find_perf_latest
if [ -n "$perf_latest" ]; then
	# perf-latest --chroot reads ./perf.data and sees this machine's /tmp only.
	cp "$cache/static.data" "$tmp/perf.data"
	cat > "$tmp/perf7.sh" <<EOF
#!/bin/sh
cd "$tmp" && exec "$perf_latest" --chroot script report gecko --save-only=perf7.json
EOF
	chmod +x "$tmp/perf7.sh"
	echo "== static.data: perfev report --format gecko (A) against perf $(bench_perf_version "$perf_latest") script report gecko (B) =="
	bench_side_by_side '
		printf "wall: %.3fx perf 7.2\n", w' \
		-- "$perfev" report -i "$tmp/perf.data" --format gecko -o "$tmp/perfev.json" \
		-- "$tmp/perf7.sh"
	a=$(wc -c < "$tmp/perfev.json")
	b=$(wc -c < "$tmp/perf7.json")
	awk -v a="$a" -v b="$b" 'BEGIN { printf "size: perfev %d bytes, perf 7.2 %d bytes (%.3fx); target <= 1x: %s\n", a, b, a / b, (a <= b ? "met" : "MISSED") }'
fi
