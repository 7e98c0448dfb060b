#!/usr/bin/env bash
# Fetch Debian's cloud kernels into the cache, for booting under qemu
# (tests/kernels/), without touching the system: apt runs on a private
# sources list, package lists and cache (scripts/apt-private.sh); nothing
# is installed.  Only the kernel image and its configuration are kept: the
# guests boot with their root in an initramfs and need no module.
# Idempotent: a kernel already complete is reused as it is (delete its
# directory for the archive's newest); two callers at once are serialised.
#
#   scripts/fetch-kernels.sh [NAME...]     NAME: 5.10 6.1 6.12 7.x (default: all)
#
# Prints a line per kernel: "NAME DIR", or "NAME - WHY" when it cannot be
# had (the suite gone from the mirror, say).
#
# The kernels, each the newest its suite's linux-image-cloud-amd64 names:
#   5.10   bullseye (+ security): older than the contention tracepoints
#   6.1    bookworm (+ security)
#   6.12   trixie (+ security)
#   7.x    trixie-backports: there the image package only depends on
#          linux-binary-* (the kernel) and linux-base-* (its config)
#
# Layout of DIR (= ${FRUGAL_CACHE}/kernels/NAME):
#   apt/        private apt state (sources.list, lists, cache)
#   vmlinuz     the kernel (bzImage)
#   config      its build configuration
#   PACKAGE     "NAME VERSION RELEASE" of the package holding it (written last)
#
# Exit status: 0, 1 on an error, 3 when no kernel asked for could be had
# because the archive cannot be reached.
set -eu
CACHE=${FRUGAL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/frugal}
TOP=$CACHE/kernels
META=linux-image-cloud-amd64
WHO=fetch-kernels
# shellcheck source=scripts/apt-private.sh
. "$(dirname "$0")/apt-private.sh"

suites() {
	case $1 in
	5.10) echo bullseye bullseye-security ;;
	6.1) echo bookworm bookworm-security ;;
	6.12) echo trixie trixie-security ;;
	7.x) echo trixie-backports ;;
	*) return 1 ;;
	esac
}

# fetch NAME: in a subshell of its own, so that one kernel's exit 3 (its
# suite unreachable or gone) leaves the others to try.
fetch() {
	local K=$TOP/$1 img bin base pkgs d kimg kcfg
	[ -s "$K/PACKAGE" ] && [ -s "$K/vmlinuz" ] && [ -s "$K/config" ] && return 0
	# shellcheck disable=SC2046
	apt_private "$K/apt" $(suites "$1")
	apt_ready
	img=$(apt_dep "$META" '^linux-image-[0-9].*-cloud-amd64$')
	[ -n "$img" ] || die "$1: no kernel behind $META in $APT_SUITES"
	# 7.x: the image package holds no image, its dependencies do.
	bin=$(apt_dep "$img" '^linux-binary-')
	base=$(apt_dep "$img" '^linux-base-[0-9]')
	pkgs=$img
	[ -z "$bin" ] || pkgs="$bin $base"
	rm -rf "$K/dl" "$K/root" "$K/PACKAGE"
	mkdir -p "$K/dl" "$K/root"
	# shellcheck disable=SC2086
	(cd "$K/dl" && apt_download $pkgs)
	for d in "$K"/dl/*.deb; do
		timeout 300 dpkg-deb -x "$d" "$K/root" || die "$1: cannot unpack $(basename "$d")"
	done
	# /boot/vmlinuz-RELEASE up to 6.12; /usr/lib/modules/RELEASE/vmlinuz since.
	kimg=$(find "$K/root" -type f \( -path '*/boot/vmlinuz-*' -o -path '*/modules/*/vmlinuz' \) | head -1)
	kcfg=$(find "$K/root" -type f \( -path '*/boot/config-*' -o -path '*/modules/*/config' \) | head -1)
	if [ -z "$kimg" ] || [ -z "$kcfg" ]; then
		die "$1: no vmlinuz or config in $pkgs"
	fi
	mv "$kimg" "$K/vmlinuz"
	mv "$kcfg" "$K/config"
	d=$(find "$K/dl" -name '*.deb' | head -1)
	echo "$img $(dpkg-deb -f "$d" Version) ${img#linux-image-}" > "$K/PACKAGE.tmp"
	rm -rf "$K/dl" "$K/root"
	mv "$K/PACKAGE.tmp" "$K/PACKAGE"
}

names=${*:-5.10 6.1 6.12 7.x}
for n in $names; do
	suites "$n" >/dev/null || { echo "usage: $0 [5.10 | 6.1 | 6.12 | 7.x]..." >&2; exit 2; }
done
mkdir -p "$TOP"
exec 9>"$TOP/.lock"
flock 9	# two callers at once: one fetches, the other waits and reuses

got=0 unreach=0
for n in $names; do
	# Not `(fetch) || rc=$?`: -e is off in a subshell whose status is tested.
	set +e
	(set -e; fetch "$n") 2>"$TOP/$n.err"
	rc=$?
	set -e
	case $rc in
	0) echo "$n $TOP/$n"; got=$((got + 1)) ;;
	3) echo "$n - $(tail -1 "$TOP/$n.err")"; unreach=$((unreach + 1)) ;;
	*) cat "$TOP/$n.err" >&2; exit 1 ;;
	esac
	rm -f "$TOP/$n.err"
done
[ "$got" -gt 0 ] || [ "$unreach" -eq 0 ] || exit 3
