#!/bin/sh
# SPDX-License-Identifier: MIT
#
# check_symbols.sh LIBPERFEV_SO LIBPERFEV_A INCLUDE_DIR VERSION_SCRIPT - the names the two
# libraries give a program that links them:
#   - libperfev.so exports functions named pev_* (never pev__*, the internal
#     ones), each at the version node of src/libperfev.map, and exactly the
#     functions the public headers declare with PEV_API;
#   - every global symbol libperfev.a defines starts with pev_ (API) or pev__
#     (internal): nothing of its own, of generated code or of a dependency
#     can collide with a name of the program's.
# Prints each offending name and exits 1 when there is one.
set -eu

so=$1 a=$2 include=$3 map=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM
fail=0

# report FILE TEXT: each name in FILE is wrong, for the reason TEXT.
report() {
	if [ -s "$1" ]; then
		sed "s|^|check_symbols: |; s|\$| $2|" "$1" >&2
		fail=1
	fi
}

# ---- the shared library ----------------------------------------------------
node=$(sed -n 's/^\(PERFEV_[0-9.]*\) *{.*/\1/p' "$map" | tail -1)
if [ -z "$node" ]; then
	echo "check_symbols: no version node in $map" >&2
	exit 1
fi
# The version node itself is an absolute symbol; every other one is a function.
nm -D --defined-only "$so" | awk '{ print $3 }' | grep -vx "$node" | sort >"$tmp/exported" || true
grep -v "^pev_[a-z0-9_]*@@$node\$" "$tmp/exported" >"$tmp/x" || true
report "$tmp/x" "is exported by $so: not a pev_* name at version $node"
grep "^pev__" "$tmp/exported" >"$tmp/x" || true
report "$tmp/x" "is exported by $so: an internal (pev__) name"
sed 's/@.*//' "$tmp/exported" | sort -u >"$tmp/names"

# The functions the headers declare with PEV_API (one declaration a line).
cat "$include"/perfev.h "$include"/perfev/*.h | grep -o 'PEV_API[^(]*(' |
	grep -o 'pev_[a-z0-9_]*($' | tr -d '(' | sort -u >"$tmp/declared"
comm -23 "$tmp/declared" "$tmp/names" >"$tmp/x"
report "$tmp/x" "is declared PEV_API in $include but not exported by $so"
comm -13 "$tmp/declared" "$tmp/names" >"$tmp/x"
report "$tmp/x" "is exported by $so but declared by no header in $include"

# ---- the static library ----------------------------------------------------
# -P: "name type value size" lines (member headers have no type). Every
# defined global: types A B C D G I R S T V W, u (GNU unique) and i (ifunc).
nm -gP --defined-only "$a" | awk 'NF >= 2 && $2 ~ /^[ABCDGIRSTVWiu]$/ { print $1 }' |
	sort -u >"$tmp/static"
grep -v '^pev_' "$tmp/static" >"$tmp/x" || true
report "$tmp/x" "is a global $a defines, outside pev_/pev__"

n_shared=$(wc -l <"$tmp/names")
n_static=$(wc -l <"$tmp/static")
if [ "$n_shared" -eq 0 ] || [ "$n_static" -eq 0 ]; then
	echo "check_symbols: no symbols read ($so: $n_shared, $a: $n_static)" >&2
	fail=1
fi
[ "$fail" -ne 0 ] ||
	echo "check_symbols: $so exports $n_shared pev_* functions at $node, those the headers" \
		"declare; $a defines $n_static globals, all pev_/pev__"
exit "$fail"
