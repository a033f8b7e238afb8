#!/bin/bash
# The PMU lab: an emulated arm64 Debian 12 machine whose kernel drives a real
# PMU (QEMU's Armv8 PMUv3 under TCG), for the tests that need hardware
# events (docs/PMU_LAB.md).
#   scripts/pmu-lab.sh build        build the guest image (once; cached)
#   scripts/pmu-lab.sh run 'CMD'    boot the guest, run CMD there, power off;
#                                   exits with CMD's status
#   scripts/pmu-lab.sh test BUILD_DIR [MESON_TEST_ARGS...]
#                                   run scripts/test.sh BUILD_DIR --no-rebuild
#                                   ARGS in the guest (BUILD_DIR cross-built for
#                                   arm64 on the host: scripts/cross-arm64.sh)
#   scripts/pmu-lab.sh readme       README's test command, in the guest, on a
#                                   clean clone of the repository's HEAD
#                                   (install, native build, whole suite)
#   scripts/pmu-lab.sh path         print the cached image's directory
# The image is built from Debian packages alone (mmdebstrap, Debian's arm64
# kernel) under /var/cache/perfev-lab/<hash of the recipe below>: a change to
# the recipe builds a new one, anything else reuses it. A boot never writes the
# cached image (the disk is a throw-away snapshot), so guests can run side by
# side. The repository holding this script is shared with the guest (9p) at
# the same absolute path; CMD starts in the caller's directory when that lies
# inside the repository, else at its root. QEMU runs with -icount shift=0, so
# the `instructions` event counts exactly; the guest sees
# PERFEV_LAB_ICOUNT=1 and PERFEV_LAB=1 in its environment. PERFEV_LAB_ICOUNT=0
# boots without -icount instead: one host thread per guest CPU (icount
# emulates every CPU on one), so a whole suite runs about SMP times faster,
# but QEMU then offers no `instructions` event and `cycles` follows wall
# time (the hardware-event tests skip what needs them, saying so).
# Environment: PERFEV_LAB_CACHE (default /var/cache/perfev-lab),
# PERFEV_LAB_TIMEOUT (seconds a boot may take, default 3600),
# PERFEV_LAB_SMP (guest CPUs, default 2), PERFEV_LAB_MEM (default 2G),
# PERFEV_LAB_NET=1 (a network through QEMU's NAT; default none),
# PERFEV_LAB_DISK_GB (a disk of that size, its file system grown to it;
# default the image's size, about 1 GB free), PERFEV_LAB_IMAGE=full (the
# image with every package scripts/install-deps.sh installs, as a developer's
# machine has after README's first command; `readme` uses it),
# PERFEV_LAB_LOGLEVEL (the guest console's kernel log level, default 1).
# Run as root.
set -eu

repo=$(cd "$(dirname "$0")/.." && pwd -P)
script="$repo/scripts/pmu-lab.sh"
cache=${PERFEV_LAB_CACHE:-/var/cache/perfev-lab}

# --- recipe-begin: a change from here to recipe-end builds a new image ---
suite=bookworm
mirror="http://deb.debian.org/debian"
# The kernel and its initramfs, what perfev's arm64 build links at run time,
# what the tests run (perf for comparisons, meson to run the suite of a build
# directory made on the host), and the tools the tests call.
guest_packages="
	linux-image-arm64 initramfs-tools kmod udev
	libelf1 libdw1 zlib1g libjson-c5 libcriterion3 libtraceevent1
	libtracefs1 libpfm4 libprotobuf-c1 libxml2 libc6-dbg
	python3 python3-pytest meson ninja-build linux-perf
	mount locales procps iproute2 util-linux coreutils gzip xz-utils bzip2
	binutils sqlite3 file
"
# The full image adds every package the project's own install script
# installs (its list is part of the recipe), and git to clone with.
full_packages() {
	sed -n '/^packages="/,/^"/p' "$repo/scripts/install-deps.sh" |
		sed '1d;$d'
	echo git
}
base_packages=$guest_packages
use_image() {
	image_kind=$1
	case $image_kind in
	base) guest_packages=$base_packages ;;
	full) guest_packages="$base_packages $(full_packages)" ;;
	*) echo "pmu-lab: PERFEV_LAB_IMAGE is base or full" >&2; exit 2 ;;
	esac
}
use_image "${PERFEV_LAB_IMAGE:-base}"
# The initramfs holds only what mounts the root disk (MODULES=list);
# hooks/perfev-lab adds those modules, none else.
initramfs_modules="virtio_mmio virtio_pci virtio_blk ext4"
image_headroom_mb=1024

die() { echo "pmu-lab: $*" >&2; exit 2; }

recipe_hash() {
	{
		sed -n '/^# --- recipe-begin/,/^# --- recipe-end/p' "$script"
		[ "$image_kind" = base ] || echo "$guest_packages"
	} | sha256sum | cut -c1-16
}

# base images keep their old names (the hash alone).
image_dir() {
	case $image_kind in
	base) echo "$cache/$(recipe_hash)" ;;
	*) echo "$cache/$image_kind-$(recipe_hash)" ;;
	esac
}

# Host packages the lab needs; installs the missing ones (root only).
install_host_packages() {
	local p missing=""
	# arch-test: mmdebstrap refuses a foreign architecture without it (a
	# recommendation of mmdebstrap's, which --no-install-recommends skips).
	for p in mmdebstrap arch-test qemu-system-arm qemu-user-static \
		binfmt-support e2fsprogs; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
			grep -q "install ok installed" || missing="$missing $p"
	done
	[ -z "$missing" ] && return 0
	[ "$(id -u)" -eq 0 ] || die "missing host packages:$missing (run as root)"
	echo "pmu-lab: installing:$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update
	# shellcheck disable=SC2086
	apt-get install -y --no-install-recommends $missing
}

# mmdebstrap runs the guest's arm64 maintainer scripts through qemu-user:
# the kernel's binfmt_misc must know aarch64 ELF files.
enable_binfmt() {
	[ -e /proc/sys/fs/binfmt_misc/status ] ||
		mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
	[ -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ] ||
		update-binfmts --enable qemu-aarch64
	[ -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ] ||
		die "binfmt_misc has no qemu-aarch64 entry"
}

# The init of the image: mounts the run's directory (9p tag "lab") and hands
# over to the init script there (guest_init), so that what a boot does can
# change without a new image.
write_guest_stub() {
	cat >"$1" <<'INIT'
#!/bin/sh
# perfev PMU lab (scripts/pmu-lab.sh): runs the init of the boot's directory.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
mount -t proc proc /proc
modprobe 9pnet_virtio
mkdir -p /lab
mount -t 9p -o trans=virtio,version=9p2000.L lab /lab && exec /bin/sh /lab/init
echo "perfev-lab: cannot mount the run's directory" >/dev/console
echo o >/proc/sysrq-trigger
INIT
	chmod 755 "$1"
}

# An initramfs-tools hook adding (and loading) only the root disk's modules.
write_initramfs_hook() {
	mkdir -p "$1/etc/initramfs-tools/hooks" "$1/etc/initramfs-tools/conf.d"
	echo "MODULES=list" >"$1/etc/initramfs-tools/conf.d/perfev-lab.conf"
	cat >"$1/etc/initramfs-tools/hooks/perfev-lab" <<HOOK
#!/bin/sh
case "\$1" in prereqs) exit 0 ;; esac
. /usr/share/initramfs-tools/hook-functions
for m in $initramfs_modules; do force_load "\$m"; done
HOOK
	chmod 755 "$1/etc/initramfs-tools/hooks/perfev-lab"
}

build_image() {
	local dir tmp root t0 mb
	dir=$(image_dir)
	[ -f "$dir/ready" ] && return 0
	[ "$(id -u)" -eq 0 ] || die "building the image needs root"
	install_host_packages
	enable_binfmt
	mkdir -p "$cache"
	exec 9>"$cache/build.lock"
	flock 9
	[ -f "$dir/ready" ] && return 0
	t0=$(date +%s)
	tmp=$(mktemp -d "$cache/build.XXXXXX")
	# shellcheck disable=SC2064
	trap "rm -rf '$tmp'" EXIT
	root="$tmp/root"
	write_initramfs_hook "$tmp/overlay"
	echo "pmu-lab: building the arm64 $suite guest in $dir"
	# shellcheck disable=SC2086
	mmdebstrap --architectures=arm64 --variant=apt \
		--include="$(echo $guest_packages | tr ' ' ,)" \
		--setup-hook="cp -a '$tmp/overlay/.' \"\$1/\"" \
		--customize-hook='echo "en_US.UTF-8 UTF-8" >"$1/etc/locale.gen"' \
		--customize-hook='chroot "$1" locale-gen' \
		--customize-hook='echo perfev-lab >"$1/etc/hostname"' \
		--customize-hook='printf "/dev/vda / ext4 defaults 0 1\n" >"$1/etc/fstab"' \
		"$suite" "$root" \
		"deb $mirror $suite main" \
		"deb $mirror $suite-updates main" \
		"deb http://deb.debian.org/debian-security $suite-security main"
	write_guest_stub "$root/sbin/perfev-lab-init"
	cp "$root"/boot/vmlinuz-* "$tmp/vmlinuz"
	cp "$root"/boot/initrd.img-* "$tmp/initrd.img"
	mb=$(( $(du -sm "$root" | cut -f1) + image_headroom_mb ))
	mkfs.ext4 -q -L perfev-lab -d "$root" "$tmp/rootfs.img" "${mb}M"
	rm -rf "$root"
	echo "$(( $(date +%s) - t0 ))" >"$tmp/build-seconds"
	rm -rf "$dir" "$tmp/overlay"
	mv "$tmp" "$dir"
	touch "$dir/ready"
	trap - EXIT
	# Images of older recipes of this kind (a guest still booting one keeps
	# its file open).
	if [ "$image_kind" = base ]; then
		find "$cache" -mindepth 1 -maxdepth 1 -type d ! -path "$dir" \
			! -name 'build.*' ! -name '*-*' -exec rm -rf {} +
	else
		find "$cache" -mindepth 1 -maxdepth 1 -type d ! -path "$dir" \
			-name "$image_kind-*" -exec rm -rf {} +
	fi
	echo "pmu-lab: image built in $(cat "$dir/build-seconds") s"
}

# --- recipe-end ---

# What a boot runs as its init (after the image's stub): mounts what the
# tests need, the repository at its host path, runs /lab/cmd, writes its exit
# status to /lab/status and powers off.
guest_init() {
	cat <<'INIT'
#!/bin/sh
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root LANG=C.UTF-8 TERM=dumb
mountpoint -q /sys || mount -t sysfs sysfs /sys
mountpoint -q /dev || mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
mount -t tmpfs tmpfs /run
mount -t tmpfs tmpfs /tmp
# tracefs but not debugfs, as on the CI host (debugfs would mount tracefs
# again under /sys/kernel/debug/tracing when a test has unmounted it).
mount -t tracefs nodev /sys/kernel/tracing
mount -t cgroup2 cgroup2 /sys/fs/cgroup 2>/dev/null
stty -onlcr 2>/dev/null
# The console shows the kernel's messages up to PERFEV_LAB_LOGLEVEL (default
# 1: emergencies only; 7 shows a soft lockup's stack, for instance).
level=$(sed -n 's/.*perfev_lab\.loglevel=\([1-8]\).*/\1/p' /proc/cmdline)
dmesg -n "${level:-1}"
hostname perfev-lab
ip link set lo up
# PERFEV_LAB_NET=1: QEMU's user-mode network (its NAT: address, gateway and
# DNS server are fixed), for a command that installs packages.
if [ -e /lab/net ]; then
	modprobe virtio_net 2>/dev/null
	ip link set eth0 up &&
		ip addr add 10.0.2.15/24 dev eth0 &&
		ip route add default via 10.0.2.2 &&
		echo "nameserver 10.0.2.3" >/etc/resolv.conf ||
		echo "pmu-lab: no network in the guest" >&2
fi
repo=$(cat /lab/repo)
# The exe wrapper of a cross build (qemu-user on the host) runs programs
# as they are here.
while read -r shim; do
	case $shim in /*) ;; *) shim=/usr/local/bin/$shim ;; esac
	mkdir -p "${shim%/*}"
	printf '#!/bin/sh\nexec "$@"\n' >"$shim"
	chmod 755 "$shim"
done </lab/shims
mkdir -p "$repo"
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144,cache=mmap repo "$repo"
# arm64 lets user space read counters only when this is 1.
sysctl -q kernel.perf_user_access=1 2>/dev/null
# Debian's kernel defaults to 3 (no perf_event_open without privileges at
# all): the upstream default, which the tests that open as nobody need.
sysctl -q kernel.perf_event_paranoid=2
# Under emulation every perf interrupt looks slow, and the kernel keeps
# lowering the sample-rate limit (1750 a second seen, below perf's default
# 4000 Hz, which perf then lowers with a warning): the lowering is off, and
# the limit stays at 4000. Not higher: the limit also caps each event's
# interrupts per tick (16 at HZ=250), and without that cap a recording asked
# for 20,000 Hz kept an emulated CPU in its timer interrupt for minutes (a
# soft lockup, seen without -icount). A test that wants a higher rate asks
# for the machine's limit (th_sample_freq), as on a host whose kernel
# lowered it. (The limit first: the kernel refuses to set it while the
# lowering is off.)
sysctl -q kernel.perf_event_max_sample_rate=4000
sysctl -q kernel.perf_cpu_time_max_percent=0
export PERFEV_LAB=1
# scripts/test.sh scales the suites' timeouts by this (README's command
# runs it as it is).
export PERFEV_TIMEOUT_MULTIPLIER=10
grep -q 'perfev_lab.icount=1' /proc/cmdline && export PERFEV_LAB_ICOUNT=1
cd "$(cat /lab/cwd)" || cd "$repo"
sh /lab/cmd </dev/null
echo $? >/lab/status
cd /
sync
umount "$repo" /lab 2>/dev/null
echo o >/proc/sysrq-trigger
sleep 60
INIT
}

# The image built (or found built), with the build lock let go: a guest
# that runs for an hour must not keep another build of another image waiting.
image_ready() {
	build_image
	exec 9>&-
}

run_guest() {
	local cmd=$1 dir lab cwd status
	image_ready
	dir=$(image_dir)
	lab=$(mktemp -d "${TMPDIR:-/tmp}/perfev-lab.XXXXXX")
	# shellcheck disable=SC2064
	trap "rm -rf '$lab'" EXIT
	printf '%s\n' "$cmd" >"$lab/cmd"
	guest_init >"$lab/init"
	: >"$lab/shims"
	local net="-nic none"
	if [ "${PERFEV_LAB_NET:-0}" = 1 ]; then
		net="-nic user,model=virtio-net-pci"
		: >"$lab/net"
	fi
	[ -z "${LAB_SHIMS:-}" ] || printf '%s\n' "$LAB_SHIMS" >"$lab/shims"
	echo "$repo" >"$lab/repo"
	cwd=$(pwd -P)
	case "$cwd/" in "$repo"/*) ;; *) cwd=$repo ;; esac
	echo "$cwd" >"$lab/cwd"
	# -icount counts instructions exactly; without it, TCG runs a thread
	# per guest CPU.
	local clock="-icount shift=0" icount=1
	if [ "${PERFEV_LAB_ICOUNT:-1}" = 0 ]; then
		clock="-accel tcg,thread=multi" icount=0
	fi
	# snapshot=on: writes go to a temporary overlay, never to rootfs.img;
	# a larger disk is a grown copy in the boot's directory, removed after.
	local drive="file=$dir/rootfs.img,format=raw,if=virtio,snapshot=on"
	if [ -n "${PERFEV_LAB_DISK_GB:-}" ]; then
		# A copy of the image (sparse: its used blocks only), grown.
		cp --sparse=always "$dir/rootfs.img" "$lab/disk.img" &&
			truncate -s "${PERFEV_LAB_DISK_GB}G" "$lab/disk.img" &&
			e2fsck -fp "$lab/disk.img" >/dev/null &&
			resize2fs -f "$lab/disk.img" >/dev/null 2>&1 ||
			die "cannot make a ${PERFEV_LAB_DISK_GB} GB disk in $lab"
		drive="file=$lab/disk.img,format=raw,if=virtio"
	fi
	# sve=off: perf 6.1 asks every event of --call-graph dwarf for the SVE
	# vector-length register on an SVE CPU, which a software event refuses
	# (EOPNOTSUPP): the perf the tests compare with could record none.
	# pauth-impdef=on: return addresses are still signed (pointer
	# authentication, as on every recent arm64 CPU: Debian's libc signs
	# them), with QEMU's own quick cipher instead of the architecture's
	# QARMA, which TCG runs slowly at every call.
	# shellcheck disable=SC2086
	timeout -k 10 "${PERFEV_LAB_TIMEOUT:-3600}" \
	qemu-system-aarch64 -M virt -cpu max,sve=off,pauth-impdef=on $clock $net \
		-smp "${PERFEV_LAB_SMP:-2}" -m "${PERFEV_LAB_MEM:-2G}" \
		-nographic -no-reboot \
		-kernel "$dir/vmlinuz" -initrd "$dir/initrd.img" \
		-append "root=/dev/vda rw console=ttyAMA0 quiet panic=-1 init=/sbin/perfev-lab-init perfev_lab.icount=$icount perfev_lab.loglevel=${PERFEV_LAB_LOGLEVEL:-1}" \
		-drive "$drive" \
		-virtfs "local,path=$lab,mount_tag=lab,security_model=none" \
		-virtfs "local,path=$repo,mount_tag=repo,security_model=none" \
		</dev/null | sed -u '/^\[ *[0-9.]*\] \(sysrq: Power Off\|reboot: Power down\)\r*$/d' ||
		true
	status=$(cat "$lab/status" 2>/dev/null) || {
		echo "pmu-lab: the guest stopped before the command finished" >&2
		return 125
	}
	return "$status"
}

# README's test command (the second block of sh in README.md that runs
# scripts/test.sh), run in the full image on a clone of HEAD made in the
# guest's own disk: what a developer on an arm64 Debian 12 machine runs. The
# clone is in /srv, where the tests that drop privileges may run it (under
# /root they skip, saying why).
run_readme() {
	local cmd
	cmd=$(awk '/^```sh$/ {on=1; next} /^```$/ {on=0} on && /scripts\/test\.sh/' \
		"$repo/README.md" | head -1)
	[ -n "$cmd" ] || die "README.md has no test command"
	echo "pmu-lab: README's test command: $cmd"
	use_image full
	export PERFEV_LAB_DISK_GB=${PERFEV_LAB_DISK_GB:-16}
	export PERFEV_LAB_MEM=${PERFEV_LAB_MEM:-4G}
	export PERFEV_LAB_TIMEOUT=${PERFEV_LAB_TIMEOUT:-14400}
	cd "$repo"
	run_guest "git config --global --add safe.directory '*' &&
git clone -q '$repo' /srv/perfev && cd /srv/perfev &&
echo \"pmu-lab: README's test command on \$(git log -1 --format='%h %s')\" &&
$cmd; rc=\$?
cp -r build/meson-logs '$repo/build-readme-logs' 2>/dev/null
exit \$rc"
}

# The exe wrapper meson test puts before each test program of build directory
# $1 (a cross build's, from its cross file), or nothing.
exe_wrapper() {
	# meson's own Python reads meson's files.
	"$(sed -n '1s/^#! *//p' "$(command -v meson)")" - \
		"$1/meson-private/meson_test_setup.dat" <<'PY'
import pickle, sys
try:
    with open(sys.argv[1], "rb") as f:
        tests = pickle.load(f)
except OSError:
    sys.exit("pmu-lab: %s: not a meson build directory" % sys.argv[1])
wrappers = {tuple(t.exe_wrapper.get_command()) for t in tests
            if t.is_cross_built and t.needs_exe_wrapper and t.exe_wrapper}
for w in wrappers:
    if len(w) != 1:
        sys.exit("pmu-lab: exe wrapper with arguments: %s" % " ".join(w))
    print(w[0])
PY
}

main() {
	case "${1:-}" in
	build) image_ready ;;
	path) echo "$(image_dir)" ;;
	readme) run_readme ;;
	run)
		[ $# -eq 2 ] || die "usage: $0 run 'CMD'"
		run_guest "$2"
		;;
	test)
		[ $# -ge 2 ] || die "usage: $0 test BUILD_DIR [MESON_TEST_ARGS...]"
		dir=$2
		shift 2
		case $dir in /*) abs=$dir ;; *) abs=$repo/$dir ;; esac
		LAB_SHIMS=$(exe_wrapper "$abs") || exit 2
		export LAB_SHIMS
		cd "$repo"
		run_guest "scripts/test.sh $(printf '%q ' "$dir" --no-rebuild "$@")"
		;;
	*) die "usage: $0 build | run 'CMD' | test BUILD_DIR [ARGS...] | path" ;;
	esac
}

# One line: bash has read it whole before main runs, so an edit of this file
# during a boot cannot make the running script read on into changed text.
main "$@"; exit $?
