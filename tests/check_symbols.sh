#!/bin/sh
# SPDX-License-Identifier: MIT
#
# check_symbols.sh LIBPERFEV_SO LIBPERFEV_A INCLUDE_DIR VERSION_SCRIPT FROZEN_DIR - the
# names the two libraries give a program that links them:
#   - libperfev.so exports functions named pev_* (never pev__*, the internal
#     ones), each at the version node of src/libperfev.map that lists it, and
#     exactly the functions the public headers declare with PEV_API; each node
#     inherits the one before, and the first (released) node lists exactly the
#     names of FROZEN_DIR/<node>;
#   - every global symbol libperfev.a defines starts with pev_ (API) or pev__
#     (internal): nothing of its own, of generated code or of a dependency
#     can collide with a name of the program's.
# Prints each offending name and exits 1 when there is one.
set -eu

so=$1 a=$2 include=$3 map=$4 frozen=$5
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
# "name node" for each name the version script lists, and its nodes in order.
awk '/^PERFEV_[0-9.]+ *\{/ { node = $1 }
     /^[ \t]+pev_[a-z0-9_]+;/ { sub(/;/, "", $1); print $1, node }' "$map" |
	sort >"$tmp/listed"
sed -n 's/^\(PERFEV_[0-9.]*\) *{.*/\1/p' "$map" >"$tmp/nodes"
if [ ! -s "$tmp/nodes" ]; then
	echo "check_symbols: no version node in $map" >&2
	exit 1
fi
# Each node after the first inherits the one before it: "} PERFEV_0.1;".
prev=
while read -r node; do
	if [ -n "$prev" ] && ! grep -q "^} *$prev *;" "$map"; then
		echo "check_symbols: version node $node of $map does not inherit $prev" >&2
		fail=1
	fi
	prev=$node
done <"$tmp/nodes"
awk '{ print $1 }' "$tmp/listed" | uniq -d >"$tmp/x"
report "$tmp/x" "is listed at two version nodes of $map"
# A released node never changes: the first one is frozen in a fixture.
first=$(head -1 "$tmp/nodes")
if [ -f "$frozen/$first" ]; then
	awk -v n="$first" '$2 == n { print $1 }' "$tmp/listed" >"$tmp/first"
	comm -13 "$frozen/$first" "$tmp/first" >"$tmp/x"
	report "$tmp/x" "was added to the released node $first of $map: list it at a new node"
	comm -23 "$frozen/$first" "$tmp/first" >"$tmp/x"
	report "$tmp/x" "was removed from the released node $first of $map"
else
	echo "check_symbols: no list of the released node $first at $frozen" >&2
	fail=1
fi

# The names the library exports, "name@@NODE", each at the node that lists it;
# the nodes themselves are absolute symbols.
nm -D --defined-only "$so" | awk '{ print $3 }' | grep -vxF -f "$tmp/nodes" |
	sort >"$tmp/exported" || true
sed 's/^\(.*\) \(.*\)$/\1@@\2/' "$tmp/listed" | sort >"$tmp/want"
grep "^pev__" "$tmp/exported" >"$tmp/x" || true
report "$tmp/x" "is exported by $so: an internal (pev__) name"
comm -23 "$tmp/exported" "$tmp/want" >"$tmp/x"
report "$tmp/x" "is exported by $so: not a pev_* name at the version node $map lists it at"
sed 's/@.*//' "$tmp/exported" | sort -u >"$tmp/names"
awk '{ print $1 }' "$tmp/listed" | sort -u >"$tmp/listed_names"
comm -23 "$tmp/listed_names" "$tmp/names" >"$tmp/x"
report "$tmp/x" "is listed in $map but not exported by $so"

# The functions the headers declare with PEV_API (one declaration a line).
cat "$include"/perfev.h "$include"/perfev/*.h | grep -o 'PEV_API[^(]*(' |
	grep -o 'pev_[a-z0-9_]*($' | tr -d '(' | sort -u >"$tmp/declared"
comm -23 "$tmp/declared" "$tmp/listed_names" >"$tmp/x"
report "$tmp/x" "is declared PEV_API in $include but listed at no version node of $map"
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
	echo "check_symbols: $so exports $n_shared pev_* functions at $(wc -l <"$tmp/nodes")" \
		"version nodes, those the headers declare; $a defines $n_static globals," \
		"all pev_/pev__"
exit "$fail"
