#!/bin/sh
# SPDX-License-Identifier: MIT
#
# adopter.sh MESON BUILD_DIR SOURCE_ROOT COMPILER_ID SANITIZE - libperfev as
# a program outside the project uses it. `meson install`s the build into a
# temporary DESTDIR, then builds the programs of examples/ and
# tests/adopter_cxx.cc against what was installed only (its headers and
# perfev.pc, found through PKG_CONFIG_PATH), with -Wall -Wextra -pedantic
# -Werror:
#   - shared: `pkg-config --cflags --libs perfev`, run with the installed
#     libperfev.so (LD_LIBRARY_PATH);
#   - static: `pkg-config --static --libs perfev`, every library it names
#     linked from its archive (no libperfev, libdw, libelf or zlib needed
#     at run time);
# each as C (C11) and as C++ (C++17: the C examples compiled as C++, and the
# C++ program), and runs every program built. An example that exits 77
# (the machine lacks what it shows) counts as skipped, with its reason.
# COMPILER_ID (gcc or clang) picks the compilers the build used; SANITIZE
# (meson's b_sanitize) adds -fsanitize= so sanitized libraries link. Also
# runs the installed perfev --version. Exits 1 at the first failure.
set -eu

meson=$1 build=$2 src=$3 id=$4 sanitize=$5
case $id in
clang) cc=clang cxx=clang++ ;;
*) cc=gcc cxx=g++ ;;
esac
# A machine without the build tools (the arm64 lab's guest runs a suite
# cross-built on its host): a skip (77), saying what is missing.
for tool in "$cc" pkg-config; do
	command -v "$tool" >/dev/null 2>&1 ||
		{ echo "adopter: no $tool here to build programs against the installed library"; exit 77; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

fail() {
	echo "adopter: $*" >&2
	exit 1
}

# ---- install ---------------------------------------------------------------
"$meson" install -C "$build" --no-rebuild --destdir "$tmp/root" --quiet >"$tmp/install.log" 2>&1 ||
	{ cat "$tmp/install.log" >&2; fail "meson install --destdir failed"; }
pc=$(find "$tmp/root" -name perfev.pc)
[ -n "$pc" ] || fail "meson install put no perfev.pc under DESTDIR"
# The .pc names the configured prefix; DESTDIR moved it under $tmp/root.
prefix=$(sed -n 's/^prefix=//p' "$pc")
sed -i "s|^prefix=.*|prefix=$tmp/root$prefix|" "$pc"
export PKG_CONFIG_PATH="${pc%/*}"
pkgconf() {
	pkg-config "$@" perfev ||
		fail "pkg-config $* perfev failed (PKG_CONFIG_PATH=$PKG_CONFIG_PATH)"
}
libdir=$(pkgconf --variable=libdir)
version=$(pkgconf --modversion)
cflags=$(pkgconf --cflags)
shared_libs=$(pkgconf --libs)
static_libs=$(pkgconf --static --libs)
case $cflags in
*"$tmp/root"*) ;;
*) fail "pkg-config --cflags perfev is not the installed headers: $cflags" ;;
esac

perfev=$tmp/root$prefix/bin/perfev
[ -x "$perfev" ] || fail "no perfev installed in $tmp/root$prefix/bin"
[ "$("$perfev" --version)" = "perfev $version" ] ||
	fail "installed perfev --version says '$("$perfev" --version)', perfev.pc says $version"

# ---- installed documents, manual pages and examples (docs/INSTALLED.md) ------
doc=$tmp/root$prefix/share/doc/perfev
examples=$doc/examples
man=$tmp/root$prefix/share/man
[ -d "$examples" ] && ls "$examples"/*.c >/dev/null 2>&1 ||
	fail "meson install put no example programs in $doc/examples"
# What an installed document or manual page names must be installed too:
# examples/X.c beside the documents, and every X.md.
for f in "$doc"/*.md "$man"/man3/perfev_*.3 "$man"/man3/libperfev.3; do
	# (docs/man/examples/X.c are the manual pages' own examples, printed in them.)
	for e in $(grep -oE '(man/)?examples/[a-z0-9_]+\.c' "$f" | grep -v '^man/' | sort -u); do
		[ -f "$doc/$e" ] || fail "${f#"$tmp/root"} names $e, which is not installed"
	done
	for d in $(grep -oE '\b[A-Z][A-Z0-9_]+\.md\b' "$f" | sort -u); do
		[ "$d" = README.md ] || [ -f "$doc/$d" ] ||
			fail "${f#"$tmp/root"} names $d, which is not installed"
	done
done
# A page per exported function and per type: `man 3 NAME` opens its header's page.
command -v man >/dev/null 2>&1 || fail "man is not installed (Debian: man-db)"
pages=0
for sym in $(nm -D --defined-only "$libdir/libperfev.so" | awk '$3 ~ /^pev_/ {print $3}' |
	sed 's/@.*//' | sort -u) pev_opts pev_target pev_event pev_error pev_tp_field; do
	[ -f "$man/man3/$sym.3" ] || fail "no manual page $sym(3) (man 3 $sym finds nothing)"
	pages=$((pages + 1))
done
MANWIDTH=80 man -M "$man" 3 pev_counter_open 2>/dev/null >"$tmp/man.txt" ||
	fail "man -M $man 3 pev_counter_open fails"
grep -q 'PERFEV_COUNTER' "$tmp/man.txt" && grep -q 'pev_counter_open' "$tmp/man.txt" ||
	{ head -5 "$tmp/man.txt" >&2; fail "man 3 pev_counter_open is not perfev_counter(3)"; }
MANWIDTH=80 man -M "$man" 3 pev_opts 2>/dev/null | grep -q 'exclude_kernel' ||
	fail "man 3 pev_opts does not list struct pev_opts's members"
echo "adopter: $pages manual pages of functions and types open their header's page;" \
	"every example and document the installed documents name is installed"

# ---- the Python package -------------------------------------------------------
# meson install puts it into the site-packages of the interpreter meson runs
# with (scripts/python_site_dir.py) and writes perfev/_install.py, which names
# the library by its installed path.
py=/usr/bin/python3
[ -x "$py" ] || py=python3
init=$(find "$tmp/root" -path '*/perfev/__init__.py' | head -1)
[ -n "$init" ] || fail "meson install put no Python package (perfev/__init__.py) under DESTDIR"
site=${init%/perfev/__init__.py}
site=${site#"$tmp/root"}
want=$("$py" "$src/scripts/python_site_dir.py" "$prefix")
[ "$site" = "$want" ] || fail "the Python package went to $site, not $want"
case $prefix in
/usr | /usr/local)
	"$py" -c "import sys; sys.exit(0 if '$site' in sys.path else 1)" ||
		fail "$site, where the package went, is not on $py's sys.path"
	;;
esac
installed_lib=$(sed -n 's/^LIBRARY = "\(.*\)"$/\1/p' "$tmp/root$site/perfev/_install.py")
[ "$tmp/root$installed_lib" -ef "$libdir/libperfev.so.0" ] ||
	fail "perfev/_install.py names $installed_lib, not the installed library"
# Imported from DESTDIR, the package loads the library it names (moved under DESTDIR too).
count_py='import perfev
with perfev.Counters("task-clock") as c:
    sum(range(10**5))
assert c.read()["task-clock"].value > 0
print(perfev.__version__)'
# (A sanitized library needs its runtime preloaded into the interpreter: the
# suite's python test does that; here the sanitized builds leave counting out.)
py_counts() {
	[ "$sanitize" = none ] || { echo "$version"; return 0; }
	PYTHONPATH=$1 PERFEV_LIBRARY=$2 "$py" -c "$count_py" 2>"$tmp/py.log" ||
		{ cat "$tmp/py.log" >&2; fail "$3 does not count"; }
}
pyver=$(py_counts "$tmp/root$site" "$tmp/root$installed_lib" "the installed Python package")
[ "$pyver" = "$version" ] || fail "the Python package says $pyver, perfev.pc $version"
# Offline: the source tree's own backend builds a wheel and an sdist (what
# `pip wheel ./python` and `pip install ./python` call), with no setuptools.
mkdir "$tmp/wheel" "$tmp/wheelroot"
(cd "$src/python" && "$py" -c 'import sys; sys.path.insert(0, "build_backend")
import perfev_build as b
print(b.get_requires_for_build_wheel())
b.build_wheel(sys.argv[1]); b.build_sdist(sys.argv[1])' "$tmp/wheel") >"$tmp/wheel.log" 2>&1 ||
	{ cat "$tmp/wheel.log" >&2; fail "python/'s build backend cannot build a wheel"; }
[ "$(head -1 "$tmp/wheel.log")" = "[]" ] || fail "the build backend asks for packages"
"$py" -m zipfile -e "$tmp/wheel/perfev-$version-py3-none-any.whl" "$tmp/wheelroot" ||
	fail "no wheel perfev-$version-py3-none-any.whl"
py_counts "$tmp/wheelroot" "$libdir/libperfev.so.0" "the wheel's package" >/dev/null
[ -f "$tmp/wheel/perfev-$version.tar.gz" ] || fail "no sdist perfev-$version.tar.gz"
if "$py" -m pip --version >/dev/null 2>&1; then
	PIP_NO_INDEX=1 "$py" -m pip wheel --no-deps -q "$src/python" -w "$tmp/pipwheel" \
		>"$tmp/pip.log" 2>&1 || { cat "$tmp/pip.log" >&2; fail "pip wheel ./python fails offline"; }
	echo "adopter: Python: installed into $site, loads $installed_lib; wheel and sdist built" \
		"offline by the in-tree backend, and by pip with no index"
else
	echo "adopter: Python: installed into $site, loads $installed_lib; wheel and sdist built" \
		"offline by the in-tree backend (pip is not installed: pip wheel not tried)"
fi

# ---- build and run ---------------------------------------------------------
common="-Wall -Wextra -pedantic -Werror -O2 -g -fno-omit-frame-pointer"
[ "$sanitize" = none ] || common="$common -fsanitize=$sanitize"
built=0 ran=0 skipped=""

# build NAME COMPILER LINK LANG_FLAGS SOURCE: one program; LINK is shared or static.
build() {
	name=$1 compiler=$2 link=$3 langflags=$4 source=$5
	if [ "$link" = shared ]; then
		libs=$shared_libs
	else
		libs="-Wl,-Bstatic $static_libs -Wl,-Bdynamic"
	fi
	# shellcheck disable=SC2086
	if ! "$compiler" $langflags $common $cflags "$source" -x none $libs -o "$tmp/$name" \
		>"$tmp/cc.log" 2>&1; then
		cat "$tmp/cc.log" >&2
		fail "$name: $compiler $langflags ${source##*/} ($link) does not build" \
			"against the installed libperfev"
	fi
	built=$((built + 1))
	needed=$(readelf -d "$tmp/$name" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
	case "$link:$needed" in
	shared:*libperfev.so.*) ;;
	shared:*) fail "$name does not load libperfev.so (needs: $needed)" ;;
	static:*libperfev* | static:*libdw* | static:*libelf* | static:*libz.*)
		fail "$name, linked statically, still needs: $needed" ;;
	esac
	# Run it in its own directory (sample_session writes nothing, but to be safe).
	status=0
	(cd "$tmp" && LD_LIBRARY_PATH=$libdir "./$name") >"$tmp/run.log" 2>&1 || status=$?
	case $status in
	0) ran=$((ran + 1)) ;;
	77) skipped="$skipped $name($(head -1 "$tmp/run.log"))" ;;
	*)
		cat "$tmp/run.log" >&2
		fail "$name exited $status"
		;;
	esac
	rm -f "$tmp/$name"
}

have_cxx=1
command -v "$cxx" >/dev/null 2>&1 || have_cxx=0
as_c="-std=c11 -x c" as_cxx="-std=c++17 -x c++"
for link in shared static; do
	for e in "$examples"/*.c; do
		n=${e##*/}
		n=${n%.c}
		build "${n}_c_$link" "$cc" "$link" "$as_c" "$e"
		[ "$have_cxx" -eq 0 ] || build "${n}_cxx_$link" "$cxx" "$link" "$as_cxx" "$e"
	done
	[ "$have_cxx" -eq 0 ] ||
		build "adopter_cxx_$link" "$cxx" "$link" "$as_cxx" "$src/tests/adopter_cxx.cc"
done

# ---- the version promise (docs/API.md, "Symbol versions") ---------------------
# A program that calls a PERFEV_0.2 function, built against the installed
# library, refuses to load on a libperfev.so.0 that has PERFEV_0.1 alone (a
# stand-in with one function of that node), naming the node it lacks; one
# that calls PERFEV_0.1 functions alone loads on both.
mkdir "$tmp/old"
printf 'const char *pev_version(void);\nconst char *pev_version(void) { return "0.1.0"; }\n' \
	>"$tmp/old/old.c"
printf 'PERFEV_0.1 { global: pev_version; local: *; };\n' >"$tmp/old/old.map"
"$cc" -shared -fPIC -Wl,-soname,libperfev.so.0 -Wl,--version-script="$tmp/old/old.map" \
	"$tmp/old/old.c" -o "$tmp/old/libperfev.so.0" || fail "cannot build a PERFEV_0.1-only library"
printf '#include <perfev.h>\n#include <stdio.h>\nint main(void) {\n%s\n\treturn 0;\n}\n' \
	'	puts(pev_version());' >"$tmp/v01.c"
printf '#include <perfev.h>\n#include <stdio.h>\nint main(void) {\n%s\n\treturn 0;\n}\n' \
	'	puts(pev_version()); printf("%d\\n", pev_last_error()->code);' >"$tmp/v02.c"
for v in v01 v02; do
	# shellcheck disable=SC2086
	"$cc" -std=c11 $common $cflags "$tmp/$v.c" $shared_libs -o "$tmp/$v" ||
		fail "$v.c does not build against the installed libperfev"
	(cd "$tmp" && LD_LIBRARY_PATH=$libdir "./$v") >/dev/null 2>&1 ||
		fail "$v does not run on the installed libperfev $version"
done
readelf -V "$tmp/v02" | grep -q 'Name: PERFEV_0.2' ||
	fail "a program calling pev_last_error does not require the version node PERFEV_0.2"
(cd "$tmp" && LD_LIBRARY_PATH=$tmp/old ./v01) >"$tmp/run.log" 2>&1 ||
	{ cat "$tmp/run.log" >&2; fail "a PERFEV_0.1 program does not load on a PERFEV_0.1 library"; }
if (cd "$tmp" && LD_LIBRARY_PATH=$tmp/old ./v02) >"$tmp/run.log" 2>&1; then
	fail "a program calling a PERFEV_0.2 function loaded on a PERFEV_0.1 library"
fi
grep -q "PERFEV_0.2.*not found" "$tmp/run.log" ||
	{ cat "$tmp/run.log" >&2; fail "the loader's refusal does not name PERFEV_0.2"; }
echo "adopter: version nodes: a PERFEV_0.2 program refused by a PERFEV_0.1 library:" \
	"$(head -1 "$tmp/run.log")"

echo "adopter: libperfev $version installed by meson under DESTDIR; $built programs built" \
	"against it alone (shared and pkg-config --static; C11 and C++17;" \
	"-Wall -Wextra -pedantic -Werror), $ran ran and succeeded"
[ -z "$skipped" ] || echo "adopter: skipped (exit 77):$skipped"
[ "$have_cxx" -eq 1 ] || echo "adopter: $cxx is not installed: the C++ builds were skipped"
exit 0
