#!/bin/sh
# Cross-builds perfev and its tests for arm64 (aarch64) on a Debian x86-64 host.
#   scripts/cross-arm64.sh [BUILD_DIR [MESON_SETUP_OPTIONS...]]
# BUILD_DIR defaults to "build-arm64". Idempotent: the first run (as root)
# adds the arm64 dpkg architecture and installs the cross compiler, the arm64
# -dev packages perfev links and qemu-user-static (to run arm64 test programs
# on the host); later runs only rebuild. Options apply when BUILD_DIR is first
# set up. Exits non-zero when a package cannot be installed or the build fails.
#
# An arm64 -dev package co-installs with its amd64 twin only at the same
# version. Each arm64 package is asked for at the version the host has; when
# the archive no longer offers that version, both architectures are
# installed together at the archive's version (the host's copy is upgraded,
# and the script says so). Criterion's -dev package and nanomsg (which
# libcriterion3 needs) cannot be co-installed for two architectures at all:
# their arm64 packages are unpacked into a private root instead
# ($PERFEV_CROSS_ROOT, default /var/cache/perfev-cross/arm64), which a second
# cross file and a qemu-user wrapper there point the build and its tests at.
set -eu
cd "$(dirname "$0")/.."

dir=${1:-build-arm64}
[ $# -gt 0 ] && shift

# Host tools: the cross compiler, binutils and the user-mode emulator.
host_packages="gcc-aarch64-linux-gnu g++-aarch64-linux-gnu binutils-aarch64-linux-gnu
	qemu-user-static meson ninja-build pkg-config"
# arm64 libraries perfev, its tests and examples link (see meson.build files).
arm64_packages="libc6-dev libelf-dev libdw-dev zlib1g-dev libjson-c-dev
	libprotobuf-c-dev libtraceevent-dev libpfm4-dev libxml2-dev"

# arm64 packages unpacked into the private root (not co-installable).
private_packages="libcriterion3 libcriterion-dev libnanomsg5"
root=${PERFEV_CROSS_ROOT:-/var/cache/perfev-cross/arm64}
libdir=$root/usr/lib/aarch64-linux-gnu

installed() { # PACKAGE[:ARCH]
	dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"
}

apt_get() {
	DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=900 \
		-y --no-install-recommends "$@"
}

missing=""
for p in $host_packages; do
	installed "$p" || missing="$missing $p"
done
for p in $arm64_packages; do
	installed "$p:arm64" || missing="$missing $p:arm64"
done
# What the private root's packages need from the multiarch ones.
for p in libffi8 libgit2-1.5; do
	installed "$p:arm64" || missing="$missing $p:arm64"
done

if [ -n "$missing" ]; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "cross-arm64: missing packages:$missing" >&2
		echo "cross-arm64: run this script as root once to install them" >&2
		exit 1
	fi
	echo "cross-arm64: installing:$missing"
	if ! dpkg --print-foreign-architectures | grep -qx arm64; then
		dpkg --add-architecture arm64
	fi
	apt_get update
	want=""
	for p in $missing; do
		case $p in
		*:arm64)
			base=${p%:arm64}
			hostver=$(dpkg-query -W -f='${Version}' "$base:amd64" 2>/dev/null || true)
			if [ -n "$hostver" ] && apt-cache show "$base:arm64=$hostver" >/dev/null 2>&1; then
				want="$want $base:arm64=$hostver"
			elif [ -n "$hostver" ]; then
				echo "cross-arm64: $base $hostver is gone from the archive;" \
					"installing amd64 and arm64 at its version"
				want="$want $base:amd64 $base:arm64"
			else
				want="$want $p"
			fi
			;;
		*) want="$want $p" ;;
		esac
	done
	# shellcheck disable=SC2086
	apt_get install $want
fi

# The private root: Criterion for arm64, its pkg-config file pointing into
# the root, a cross file adding it and a wrapper that runs arm64 programs.
if [ ! -f "$root/cross.ini" ]; then
	if [ "$(id -u)" -ne 0 ] && ! mkdir -p "$root" 2>/dev/null; then
		echo "cross-arm64: cannot create $root: run this script as root once" >&2
		exit 1
	fi
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	for p in $private_packages; do
		(cd "$tmp" && apt-get download "$p:arm64")
	done
	mkdir -p "$root"
	for deb in "$tmp"/*.deb; do
		dpkg-deb -x "$deb" "$root"
	done
	# Shared linking needs none of its private requirements (their arm64
	# -dev packages do not co-install either).
	sed -i -e "s|^prefix=.*|prefix=$root/usr|" -e '/^Requires.private:/d' \
		"$libdir/pkgconfig/criterion.pc"
	cat > "$root/run" <<WRAP
#!/bin/sh
# Runs an arm64 program under qemu-user with the private root's libraries.
LD_LIBRARY_PATH=$libdir\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH} exec qemu-aarch64-static "\$@"
WRAP
	chmod +x "$root/run"
	cat > "$root/cross.ini.tmp" <<INI
# Written by scripts/cross-arm64.sh: the private root of arm64 packages.
[binaries]
exe_wrapper = '$root/run'

[properties]
pkg_config_libdir = ['$libdir/pkgconfig', '/usr/lib/aarch64-linux-gnu/pkgconfig', '/usr/share/pkgconfig']

[built-in options]
c_link_args = ['-Wl,-rpath-link,$libdir']
cpp_link_args = ['-Wl,-rpath-link,$libdir']
INI
	mv "$root/cross.ini.tmp" "$root/cross.ini"
fi

if [ ! -f "$dir/build.ninja" ]; then
	meson setup "$dir" --cross-file scripts/cross/aarch64.ini --cross-file "$root/cross.ini" "$@"
fi
meson compile -C "$dir"
