#!/bin/sh
# SPDX-License-Identifier: MIT
#
# check_headers.sh SOURCE_ROOT - the public headers as a C or C++ user's
# -Werror build sees them. Compiles, with -Wall -Wextra -pedantic -Werror,
# as C11 and C17 (gcc, clang) and as C++17 and C++20 (g++, clang++):
#   - each header of include/ alone (included twice: its guard holds);
#   - one file that initializes every struct that has a PEV_*_INIT macro
#     with it (`pev_opts o = PEV_OPTS_INIT;`), in a function and at file scope;
#   - each program of examples/.
# A compiler that is not installed is skipped, and named. Also checks that
# every header that declares functions wraps them in extern "C" for C++.
# Exits 1 when a file does not compile cleanly, with the compiler's messages.
set -eu

root=$1
include=$root/include
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM
headers=$(cd "$include" && ls perfev.h perfev/*.h)

# ---- extern "C" ------------------------------------------------------------
for h in $headers; do
	if grep -q 'PEV_API' "$include/$h" && ! grep -q 'extern "C" {' "$include/$h"; then
		echo "check_headers: include/$h declares functions without extern \"C\" for C++" >&2
		exit 1
	fi
done

# ---- the files to compile --------------------------------------------------
i=0
for h in $headers; do
	i=$((i + 1))
	printf '#include <%s>\n#include <%s>\ntypedef int pev_header_check_%d;\n' "$h" "$h" "$i" \
		>"$tmp/header_$i.c"
	echo "$tmp/header_$i.c include/$h" >>"$tmp/files"
done
# Every PEV_<NAME>_INIT (an object-like macro) initializes struct pev_<name>
# (the naming rule).
inits=$(cat "$include"/perfev/*.h | sed -n 's/^#define \(PEV_[A-Z0-9_]*_INIT\)\([ \\]\|$\).*/\1/p' |
	sort -u)
if [ -z "$inits" ]; then
	echo "check_headers: no PEV_*_INIT macro found under $include" >&2
	exit 1
fi
struct_of() {
	echo "$1" | sed 's/^PEV_\(.*\)_INIT$/pev_\1/' | tr '[:upper:]' '[:lower:]'
}
{
	echo '#include <perfev.h>'
	# "struct": in C++ some struct names are also functions' (pev_ring_stats).
	echo '#define TYPE(name) struct name'
	echo '#ifdef __cplusplus'
	echo 'pev_opts cxx_opts = PEV_OPTS_INIT; /* as C++ code writes it */'
	echo '#endif'
	for m in $inits; do
		t=$(struct_of "$m")
		echo "static TYPE($t) file_$t = $m;"
	done
	echo 'size_t pev_check_inits(void);'
	echo 'size_t pev_check_inits(void)'
	echo '{'
	echo '	size_t sum = 0;'
	for m in $inits; do
		t=$(struct_of "$m")
		echo "	TYPE($t) local_$t = $m;"
		echo "	sum += local_$t.sz + file_$t.sz;"
	done
	echo '	return sum;'
	echo '}'
} >"$tmp/inits.c"
echo "$tmp/inits.c PEV_*_INIT" >>"$tmp/files"
for e in "$root"/examples/*.c; do
	echo "$e examples/${e##*/}" >>"$tmp/files"
done

# ---- compile them ----------------------------------------------------------
# One line per compilation: compiler, standard, language, file, what it is.
skipped=""
for variant in "gcc c11" "gcc c17" "clang c11" "clang c17" \
	"g++ c++17" "g++ c++20" "clang++ c++17" "clang++ c++20"; do
	# shellcheck disable=SC2086 # two words: compiler, standard
	set -- $variant
	if ! command -v "$1" >/dev/null 2>&1; then
		case " $skipped " in *" $1 "*) ;; *) skipped="$skipped $1" ;; esac
		continue
	fi
	case $2 in c++*) lang=c++ ;; *) lang=c ;; esac
	sed "s|^|$1 $2 $lang |" "$tmp/files" >>"$tmp/jobs"
done
if [ ! -s "$tmp/jobs" ]; then
	# A skip (77): the arm64 lab's guest runs a suite cross-built on its host.
	echo "check_headers: no compiler here (gcc, clang, g++, clang++) to compile the headers with"
	exit 77
fi
# Each failure leaves a report in $tmp/fail.*; as many at once as CPUs.
export tmp include
xargs -P "$(nproc 2>/dev/null || echo 2)" -L 1 sh -c '
	out=$(mktemp "$tmp/out.XXXXXX")
	if ! "$1" -std="$2" -x "$3" -Wall -Wextra -pedantic -Werror -fsyntax-only \
		-I"$include" "$4" >"$out" 2>&1; then
		{
			echo "check_headers: $5 does not compile cleanly with $1 -std=$2:"
			[ "$5" != "PEV_*_INIT" ] || cat -n "$4"
			cat "$out"
		} >"$tmp/fail.${out##*.}"
	fi' sh <"$tmp/jobs"
if ls "$tmp"/fail.* >/dev/null 2>&1; then
	cat "$tmp"/fail.* >&2
	exit 1
fi
echo "check_headers: $(wc -l <"$tmp/jobs") compilations clean: $(wc -l <"$tmp/files") files" \
	"(the headers alone, $(echo "$inits" | wc -l) PEV_*_INIT macros, the examples)" \
	"as C11/C17 and C++17/C++20, -Wall -Wextra -pedantic -Werror"
[ -z "$skipped" ] || echo "check_headers: skipped (not installed):$skipped"
exit 0
