#!/usr/bin/env bash
# A real kernel build with frugal as its pahole (`make check-kernel-build`;
# too long for `make check`: about 10 minutes on 2 CPUs).  Debian's
# linux-source-6.12, tinyconfig plus what BTF needs (64BIT, BPF_SYSCALL,
# DWARF 5, DEBUG_INFO_BTF, MODULES, DEBUG_INFO_BTF_MODULES) and a few modules,
# built to the end with `PAHOLE=` naming the link `make install` puts in
# libexec/frugal/pahole: the kernel's own scripts ask it its version, pick
# the flags for it, run it on the intermediate vmlinux and on every module,
# and run resolve_btfids on what it wrote.  Then:
#  - the build chose pahole 1.30's flags (CONFIG_PAHOLE_VERSION=130);
#  - vmlinux's .BTF is the one frugal wrote into .tmp_vmlinux1, and has no
#    canonical difference from pahole 1.30's on the same intermediate file,
#    run with the flags the build passed (read from its V=1 log);
#  - every module has split BTF with no canonical difference from pahole
#    1.30's (on pahole's vmlinux BTF, the way the build chains them);
#  - `bpftool btf dump` reads vmlinux and every module (on vmlinux as base).
# The source is unpacked once into the cache; the build itself is fresh
# each run.  FRUGAL_KERNEL_BUILD_DIR keeps the build tree there instead of
# in a temporary directory (for a look afterwards).
. "$(dirname "$0")/../lib.sh"

CACHE=${FRUGAL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/frugal}
SRC_PKG=linux-source-6.12
DEPS="$SRC_PKG bc flex bison libelf-dev libssl-dev bpftool"
W=$_tmp
MODS="CRC7 CRC8 CRC_ITU_T BINFMT_MISC IKCONFIG"

missing=
for p in $DEPS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing="$missing $p"
done
if [ -n "$missing" ]; then
	if [ "$(id -u)" -ne 0 ]; then
		skip "kernel build" "missing packages:$missing (root installs them)"
		finish
	fi
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
		$missing >"$W/apt.log" 2>&1 ||
		{ fail "install$missing" "$(tail -1 "$W/apt.log")"; finish; }
fi
TDIR=$(bash "$TOP/scripts/fetch-trixie.sh" --pahole 2>"$W/fetch.err")
case $? in
0) ;;
3) skip "kernel build" "Debian trixie unreachable (pahole 1.30): $(tail -1 "$W/fetch.err")"
   finish ;;
*) fail "fetch trixie's pahole 1.30" "$(tail -1 "$W/fetch.err")"; finish ;;
esac
PAHOLE130=$TDIR/pahole/bin/pahole

# ---- frugal installed, as a kernel build would take it ---------------------------
make -s -C "$TOP" O="$O" DESTDIR="$W/root" PREFIX=/usr/local install >"$W/install.log" 2>&1 ||
	{ fail "make install" "$(tail -1 "$W/install.log")"; finish; }
PAHOLE=$W/root/usr/local/libexec/frugal/pahole
check "the installed pahole link answers as pahole 1.30" test "$("$PAHOLE" --version)" = v1.30

# ---- the source, unpacked once ---------------------------------------------------
ver=$(dpkg-query -W -f='${Version}' "$SRC_PKG")
SRC=$CACHE/kernel-build/$SRC_PKG-$ver
if [ ! -f "$SRC/.unpacked" ]; then
	rm -rf "$SRC"
	mkdir -p "$SRC"
	tar -xJf "/usr/src/$SRC_PKG.tar.xz" -C "$SRC" --strip-components=1 ||
		{ fail "unpack /usr/src/$SRC_PKG.tar.xz" "tar failed"; finish; }
	touch "$SRC/.unpacked"
fi

# ---- configure ---------------------------------------------------------------------
B=${FRUGAL_KERNEL_BUILD_DIR:-$W/build}
rm -rf "$B"
mkdir -p "$B"
kmake() { make -C "$SRC" O="$B" PAHOLE="$PAHOLE" "$@"; }
kmake tinyconfig >"$W/config.log" 2>&1 || { fail "make tinyconfig" "$(tail -1 "$W/config.log")"; finish; }
want="64BIT BPF_SYSCALL DEBUG_KERNEL DEBUG_INFO_DWARF5 DEBUG_INFO_BTF MODULES DEBUG_INFO_BTF_MODULES"
args=
for c in $want; do args="$args -e $c"; done
for c in $MODS; do args="$args -m $c"; done
# shellcheck disable=SC2086
"$SRC/scripts/config" --file "$B/.config" -d DEBUG_INFO_NONE $args
kmake olddefconfig >>"$W/config.log" 2>&1
bad=
for c in $want; do grep -qx "CONFIG_$c=y" "$B/.config" || bad="$bad $c"; done
for c in $MODS; do grep -qx "CONFIG_$c=m" "$B/.config" || bad="$bad $c=m"; done
check "config: every option the check needs is set (missing:${bad:- none})" test -z "$bad"
check "config: the build asked frugal its version and chose pahole 1.30's flags" \
	grep -qx 'CONFIG_PAHOLE_VERSION=130' "$B/.config"
[ -n "$bad" ] && finish

# ---- build ---------------------------------------------------------------------------
t0=$(date +%s)
if ! kmake -j"$(nproc)" V=1 vmlinux modules >"$W/build.log" 2>&1; then
	fail "the kernel builds with frugal as PAHOLE" \
		"$(grep -a -m1 -iE 'error|failed' "$W/build.log" || tail -1 "$W/build.log")"
	tail -20 "$W/build.log" | sed 's/^/# /'
	finish
fi
pass "the kernel builds with frugal as PAHOLE ($(( $(date +%s) - t0 )) s at -j$(nproc))"

# The command lines the build ran frugal with (link-vmlinux.sh's set -x, and
# Makefile.modfinal's V=1 echo).
grep -aoE "$PAHOLE -J [^;]*" "$W/build.log" | sed 's/[[:space:]]*$//' >"$W/pahole.cmds"
vcmd=$(grep -m1 ' \.tmp_vmlinux1$' "$W/pahole.cmds")
nmcmd=$(grep -c -- '--btf_base vmlinux' "$W/pahole.cmds")
mods=$(cd "$B" && find . -name '*.ko' | sort)
nmods=$(wc -w <<<"$mods")
check "frugal ran on the intermediate vmlinux" test -n "$vcmd"
[ -n "$vcmd" ] || grep -a -m3 -F -- "-J " "$W/build.log" | cut -c1-300 | sed 's/^/# /'
check "frugal ran on every module ($nmcmd of $nmods)" test "$nmcmd" -eq "$nmods" -a "$nmods" -ge 5
flags=${vcmd#"$PAHOLE -J "}
flags=${flags%.tmp_vmlinux1}
echo "# flags the build passed: $flags"

# ---- vmlinux: ours against pahole 1.30's, on the same intermediate --------------
# A section's bytes (.BTF is not SHF_ALLOC in .tmp_vmlinux1 and the
# modules, so `objcopy -O binary` would write nothing).
section() { rm -f "$3"; objcopy --dump-section "$1=$3" "$2" "$W/dump.o" 2>/dev/null && [ -s "$3" ]; }
section .BTF "$B/.tmp_vmlinux1" "$W/tmp1.btf" && section .BTF "$B/vmlinux" "$W/vmlinux.btf"
check "vmlinux carries the .BTF frugal wrote into .tmp_vmlinux1" cmp -s "$W/tmp1.btf" "$W/vmlinux.btf"
objcopy --remove-section=.BTF "$B/.tmp_vmlinux1" "$W/plain1"
# shellcheck disable=SC2086
if "$PAHOLE130" -J $flags --btf_encode_detached="$W/ref.btf" "$W/plain1" >"$W/p130.log" 2>&1; then
	d=$("$FRUGAL" btf diff "$W/ref.btf" "$W/tmp1.btf" 2>&1)
	rc=$?
	check "vmlinux: no difference from pahole 1.30's ($(tail -1 <<<"$d"))" test "$rc" -eq 0
else
	fail "pahole 1.30 on the intermediate vmlinux" "$(tail -1 "$W/p130.log")"
fi
check "bpftool reads vmlinux's BTF" bpftool btf dump file "$B/vmlinux" >/dev/null

# ---- modules ------------------------------------------------------------------------
bad= badtool=
for m in $mods; do
	ko=$B/${m#./}
	n=$(basename "$ko" .ko)
	if ! section .BTF "$ko" "$W/$n.btf"; then bad="$bad $n:no-BTF"; continue; fi
	bpftool -B "$B/vmlinux" btf dump file "$ko" >/dev/null 2>&1 || badtool="$badtool $n"
	objcopy --remove-section=.BTF "$ko" "$W/$n.plain"
	# shellcheck disable=SC2086
	if ! "$PAHOLE130" -J $flags --btf_base "$W/ref.btf" \
		--btf_encode_detached="$W/$n.ref" "$W/$n.plain" >/dev/null 2>&1; then
		bad="$bad $n:pahole-failed"
		continue
	fi
	"$FRUGAL" btf diff -q --base-a "$W/ref.btf" --base-b "$W/tmp1.btf" \
		"$W/$n.ref" "$W/$n.btf" >/dev/null 2>&1 || bad="$bad $n:differs"
done
check "modules: all $nmods have split BTF with no difference from pahole 1.30's (${bad:-none bad})" \
	test -z "$bad"
check "bpftool reads every module's BTF on vmlinux's (${badtool:-all read})" test -z "$badtool"
finish
