#!/bin/sh
# SPDX-License-Identifier: MIT
# post_install.sh - run by `meson install` last: refreshes the dynamic
# linker's cache when installing into the live system as root, so the
# installed perfev finds libperfev.so.0 in a directory of /etc/ld.so.conf
# (Debian's /usr/local/lib/<multiarch>) at once. Into a DESTDIR, or as
# another user, there is nothing to refresh.
[ -z "${DESTDIR:-}" ] || exit 0
[ "$(id -u)" = 0 ] || exit 0
command -v ldconfig >/dev/null 2>&1 || [ -x /sbin/ldconfig ] || exit 0
PATH="$PATH:/sbin:/usr/sbin" ldconfig
