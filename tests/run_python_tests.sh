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
# The sanitizers' runtime must come first in a process that loads an
# instrumented library: preload it when the library was built with it.
if command -v ldd >/dev/null && ldd "$PERFEV_LIBRARY" | grep -q libasan; then
	LD_PRELOAD=$(ldd "$PERFEV_LIBRARY" | awk '/libasan/ {print $3}')
	export LD_PRELOAD ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0"
fi
exec "$py" -m pytest -q -p no:cacheprovider tests
