#!/bin/sh
# Install the speedscope web app (npm package speedscope 1.25.0) for
# scripts/speedscope_view.py.
#
# usage: scripts/fetch_speedscope.sh [DEST]
#
# DEST defaults to /var/cache/perfev/speedscope-1.25.0.  Afterwards
# DEST/dist/release/index.html exists.  Does nothing if it already does.
#
# The tarball is fetched with `npm pack` (so npm's registry settings apply)
# and checked against the sha512 recorded below before it is unpacked.
set -eu

VERSION=1.25.0
# `npm view speedscope@1.25.0 dist.integrity`:
#   sha512-cpf9HWTZf1ijLXBJrk87Ve/54tnYx6rlf0gUThvn3ook6h63hLXVOQiMf44PT+XoV503cPfvfiT5gP5vojp6Ag==
# The same digest in hex, as sha512sum prints it:
SHA512=7297fd1d64d97f58a32d7049ae4f3b55eff9e2d9d8c7aae57f48144e1be7de8a24ea1eb784b5d539088c7f8e0f4fe5e8579d3770f7ef7e24f980fe6fa23a7a02

DEST=${1:-/var/cache/perfev/speedscope-$VERSION}

die() {
    echo "fetch_speedscope: $*" >&2
    exit 1
}

if [ -f "$DEST/dist/release/index.html" ]; then
    echo "speedscope $VERSION is already installed in $DEST"
    exit 0
fi
if [ -e "$DEST" ] && ! rmdir "$DEST" 2>/dev/null; then
    die "$DEST exists but has no dist/release/index.html; remove it and try again"
fi

command -v npm >/dev/null 2>&1 ||
    die "npm not found; install npm (Debian: apt-get install npm) to fetch speedscope"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/fetch-speedscope.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

echo "fetching speedscope@$VERSION with npm pack"
if ! (cd "$tmp" && npm pack --loglevel error --cache "$tmp/npm-cache" "speedscope@$VERSION") \
        >"$tmp/npm.out" 2>"$tmp/npm.err"; then
    cat "$tmp/npm.err" >&2
    die "npm pack speedscope@$VERSION failed (is the npm registry reachable?)"
fi
tarball=$tmp/speedscope-$VERSION.tgz
[ -f "$tarball" ] || die "npm pack did not produce $tarball"

actual=$(sha512sum "$tarball" | cut -d' ' -f1)
[ "$actual" = "$SHA512" ] ||
    die "sha512 of the downloaded tarball does not match speedscope $VERSION's recorded integrity (got $actual)"

mkdir "$tmp/unpack"
tar -xzf "$tarball" -C "$tmp/unpack" || die "cannot unpack $tarball"
[ -f "$tmp/unpack/package/dist/release/index.html" ] ||
    die "the speedscope tarball has no dist/release/index.html"

parent=$(dirname "$DEST")
mkdir -p "$parent" || die "cannot create $parent"
# Move into place under a temporary name first so that DEST never exists
# half-copied.
staging="$DEST.partial.$$"
rm -rf "$staging"
cp -R "$tmp/unpack/package" "$staging" || { rm -rf "$staging"; die "cannot write $staging"; }
mv "$staging" "$DEST" || { rm -rf "$staging"; die "cannot move $staging to $DEST"; }
echo "installed speedscope $VERSION in $DEST"
