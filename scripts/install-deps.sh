#!/bin/sh
# Installs every Debian package perfev's build, tests, sanitizer and fuzz runs
# need. Does nothing when all of them are present; otherwise runs
# `apt-get update` first, then installs the missing ones. Run as root.
set -eu

packages="
	gcc
	clang
	libclang-rt-14-dev
	llvm
	meson
	ninja-build
	pkg-config
	libcriterion-dev
	libjson-c-dev
	libdw-dev
	libelf-dev
	libbz2-dev
	libtraceevent-dev
	libtracefs-dev
	libpfm4-dev
	libprotobuf-c-dev
	protobuf-c-compiler
	protobuf-compiler
	python3-protobuf
	zlib1g-dev
	linux-perf
	util-linux
	groff-base
	man-db
	chromium
	libxml2-dev
	libc6-dbg
	locales
	python3
	g++
	prometheus
	python3-pytest
	python3-jsonschema
	python3-pandas
	binutils
	xz-utils
	bzip2
	tmux
	golang-go
	golang-github-google-pprof-dev
	nodejs
	openjdk-17-jdk-headless
"

# The locale test_stat_parity groups digits in (perf's thousands separators).
ensure_locale() {
	if ! locale -a 2>/dev/null | grep -qi '^en_US\.utf-\?8$'; then
		echo "install-deps: generating the locale en_US.UTF-8"
		localedef -i en_US -f UTF-8 en_US.UTF-8
	fi
}

# speedscope (npm), which test_report_browser opens perfev's output in under
# Chromium: scripts/fetch_speedscope.sh, checked against its recorded digest.
ensure_speedscope() {
	if ! "$(dirname "$0")/fetch_speedscope.sh" >/dev/null; then
		echo "install-deps: warning: speedscope could not be fetched from npm;" \
			"test_report_browser skips its viewer test" >&2
	fi
}

missing=""
for p in $packages; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing="$missing $p"
	fi
done

if [ -z "$missing" ]; then
	echo "install-deps: all packages present"
	[ "$(id -u)" -ne 0 ] || { ensure_locale; ensure_speedscope; }
	exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps: missing packages:$missing" >&2
	echo "install-deps: run this script as root to install them" >&2
	exit 1
fi

echo "install-deps: installing:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update
# shellcheck disable=SC2086
apt-get install -y --no-install-recommends $missing
ensure_locale
ensure_speedscope
