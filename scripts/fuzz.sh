#!/bin/sh
# Runs every libFuzzer harness for a while, each on a scratch copy of its seed
# corpus (fuzz/corpus/<name>/ for harness fuzz_<name>), so the seeds in the
# repository stay as they are.
#   scripts/fuzz.sh [SECONDS [BUILD_DIR]]
# SECONDS defaults to 30 per harness; BUILD_DIR to build-fuzz, set up with
#   CC=clang meson setup build-fuzz -Dfuzz=true
# Exits non-zero when a harness crashes, leaks, times out or cannot run; the
# input that did it is kept in BUILD_DIR/fuzz-artifacts/.
set -eu
cd "$(dirname "$0")/.."

seconds=${1:-30}
build=${2:-build-fuzz}

case $seconds in
'' | *[!0-9]*)
	echo "fuzz.sh: SECONDS must be a whole number, not '$seconds'" >&2
	exit 2
	;;
esac
if [ ! -d "$build/fuzz" ]; then
	echo "fuzz.sh: no harnesses in $build/fuzz; set up with: CC=clang meson setup $build -Dfuzz=true" >&2
	exit 2
fi
meson compile -C "$build" >/dev/null

scratch=$(mktemp -d "${TMPDIR:-/tmp}/perfev-fuzz.XXXXXX")
trap 'rm -rf "$scratch"' EXIT INT TERM
artifacts="$build/fuzz-artifacts"
mkdir -p "$artifacts"

found=0
failed=0
for harness in "$build"/fuzz/fuzz_*; do
	[ -f "$harness" ] && [ -x "$harness" ] || continue
	found=$((found + 1))
	name=$(basename "$harness")
	seeds="fuzz/corpus/${name#fuzz_}"
	corpus="$scratch/$name"
	mkdir -p "$corpus"
	if [ -d "$seeds" ]; then
		cp "$seeds"/* "$corpus"/ 2>/dev/null || true
	else
		echo "fuzz.sh: warning: $name has no seed corpus ($seeds)" >&2
	fi
	echo "== $name: ${seconds}s on $(ls "$corpus" | wc -l) seeds"
	if "$harness" -max_total_time="$seconds" -timeout=10 -print_final_stats=1 \
		-artifact_prefix="$artifacts/$name-" "$corpus" >"$scratch/$name.log" 2>&1; then
		tail -n 12 "$scratch/$name.log" | grep -E '^(Done|stat::number_of_executed_units|stat::peak_rss_mb)' || true
		echo "== $name: clean"
	else
		status=$?
		failed=$((failed + 1))
		tail -n 60 "$scratch/$name.log"
		echo "== $name: FAILED (exit $status); reproduce with: $harness $artifacts/$name-*" >&2
	fi
done

if [ "$found" -eq 0 ]; then
	echo "fuzz.sh: no fuzz_* executables in $build/fuzz" >&2
	exit 2
fi
if [ "$failed" -ne 0 ]; then
	echo "fuzz.sh: $failed of $found harnesses failed" >&2
	exit 1
fi
echo "fuzz.sh: $found harnesses clean"
