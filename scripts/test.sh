#!/bin/sh
# Runs the test suite of a build directory, then lists every test that
# skipped (or ran only in part), grouped by the reason it gave. Tests log
# their skips to $PERFEV_SKIP_LOG (tests/helpers.h: th_skip); programs that
# exit 77 are skips in meson's own log. A test that left a process running
# (tests/helpers.c kills it at the test's exit and logs it to
# $PERFEV_LEFT_LOG) fails the run. Exits with meson test's status, or 1.
#   scripts/test.sh [BUILD_DIR [MESON_TEST_OPTIONS...]]
# PERFEV_TIMEOUT_MULTIPLIER=N multiplies every suite's timeout (the PMU lab's
# emulated machine sets it: it runs 4-11 times slower than the host).
set -u
cd "$(dirname "$0")/.."

dir=${1:-build}
[ $# -gt 0 ] && shift
mkdir -p "$dir/meson-logs"
case $dir in /*) log="$dir/meson-logs/skips.log" ;; *) log="$PWD/$dir/meson-logs/skips.log" ;; esac
: >"$log"
left="${log%/*}/left-behind.log"
: >"$left"

set -- ${PERFEV_TIMEOUT_MULTIPLIER:+--timeout-multiplier "$PERFEV_TIMEOUT_MULTIPLIER"} "$@"
PERFEV_SKIP_LOG="$log" PERFEV_LEFT_LOG="$left" meson test -C "$dir" --print-errorlogs "$@"
status=$?

python3 - "$log" "$dir/meson-logs/testlog.json" <<'PY'
import json, sys
skips = {}
with open(sys.argv[1]) as f:
    for line in f:
        test, _, reason = line.rstrip("\n").partition(": ")
        skips.setdefault(reason, []).append(test)
try:
    with open(sys.argv[2]) as f:
        for line in f:
            t = json.loads(line)
            if t.get("result") == "SKIP":
                out = (t.get("stdout") or "").strip().splitlines()
                skips.setdefault(out[0] if out else "exit status 77", []).append(t["name"])
except (OSError, ValueError):
    pass
n = sum(len(v) for v in skips.values())
print()
if not n:
    print("skipped: none")
else:
    print(f"skipped (or checked in part): {n} tests, {len(skips)} reasons")
    for reason, tests in sorted(skips.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        print(f"  {len(tests):3d}  {reason}")
        for t in sorted(tests):
            print(f"         {t}")
PY
if [ -s "$left" ]; then
	echo
	echo "tests that left processes running (killed at the test's exit):"
	sed 's/^/  /' "$left"
	[ "$status" -ne 0 ] || status=1
fi
exit $status
