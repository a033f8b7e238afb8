#!/bin/sh
# Configures (once) and builds perfev.
#   scripts/build.sh [BUILD_DIR [MESON_SETUP_OPTIONS...]]
# BUILD_DIR defaults to "build". Options apply when the directory is first set up.
set -eu
cd "$(dirname "$0")/.."

dir=${1:-build}
[ $# -gt 0 ] && shift

if [ ! -f "$dir/build.ninja" ]; then
	meson setup "$dir" "$@"
fi
meson compile -C "$dir"
