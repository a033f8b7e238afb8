#!/bin/sh
# Runs the Python package's pytest suite (python/tests) with Debian's
# interpreter, which has python3-pytest (scripts/install-deps.sh), against
# the library $PERFEV_LIBRARY names. Exits 77 (a skip) without pytest.
#   tests/run_python_tests.sh PYTHON_DIR
set -u
py=/usr/bin/python3
[ -x "$py" ] || py=python3
if ! "$py" -c 'import pytest' 2>/dev/null; then
	echo "pytest is not installed for $py (Debian: python3-pytest)"
	exit 77
fi
cd "$1" || exit 1
# A library built with the sanitizers needs their runtime loaded first in
# the interpreter: gcc links it (ldd shows it), clang leaves it to the
# executable (the library's __asan_ symbols stay undefined).
if ldd "$PERFEV_LIBRARY" 2>/dev/null | grep -q libasan; then
	LD_PRELOAD=$(ldd "$PERFEV_LIBRARY" | awk '/libasan/ {print $3}')
elif nm -D --undefined-only "$PERFEV_LIBRARY" 2>/dev/null | grep -q __asan_; then
	LD_PRELOAD=$(clang -print-file-name=libclang_rt.asan-x86_64.so)
fi
if [ -n "${LD_PRELOAD:-}" ]; then
	# CPython's own allocations are not the library's leaks.
	export LD_PRELOAD ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0"
fi
exec "$py" -m pytest -q -p no:cacheprovider tests
