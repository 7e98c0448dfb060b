#!/usr/bin/env bash
# Real kernel builds with frugal as their pahole (`make check-kernel-build`;
# too long for `make check`: about 10 minutes a kernel on 2 CPUs).  Each is
# a Debian linux-source, tinyconfig plus what BTF needs (64BIT, BPF_SYSCALL,
# DWARF 5, DEBUG_INFO_BTF, MODULES, DEBUG_INFO_BTF_MODULES) and a few
# modules, built to the end with `PAHOLE=` naming the link `make install`
# puts in libexec/frugal/pahole: the kernel's own scripts ask it its
# version, pick the flags for it and run it on the intermediate vmlinux
# and on every module.
#
#  - 6.12 (Debian 12's linux-source-6.12), frugal as pahole 1.30
#    (FRUGAL_PAHOLE_COMPAT=1.30, as Debian 13 builds it): the build chose
#    1.30's flags; vmlinux's .BTF is the one frugal
#    wrote into .tmp_vmlinux1, with no canonical difference from trixie's
#    pahole 1.30's on the same file with the flags the build passed (read
#    from its V=1 log); every module's split BTF none from pahole 1.30's.
#  - 7.x (trixie-backports' linux-source-7.X, fetched, not installed),
#    frugal as pahole 1.32 (its default): the build chose
#    1.32's flags (layout among them) and ran gen-btf.sh, which has pahole
#    write detached BTF and resolve_btfids add the kfunc tags, dedup again
#    and sort it.  The reference is sid's pahole 1.32 on the same
#    intermediate files, then the build's own resolve_btfids with the same
#    flags: vmlinux's and every module's BTF after that step must have no
#    canonical difference from it.
#  - both: `bpftool btf dump` reads vmlinux and every module (on vmlinux).
#
# FRUGAL_KERNEL_BUILDS="6.12 7.x" (the default) picks the kernels.  A
# source is unpacked once into the cache; each build is fresh.
# FRUGAL_KERNEL_BUILD_DIR keeps the build trees there (DIR/6.12, DIR/7.x)
# instead of in a temporary directory, for a look afterwards.
. "$(dirname "$0")/../lib.sh"

CACHE=${FRUGAL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/frugal}
DEPS="linux-source-6.12 bc flex bison libelf-dev libssl-dev bpftool"
W=$_tmp
BUILDS=${FRUGAL_KERNEL_BUILDS:-6.12 7.x}

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

# ---- frugal installed, as a kernel build would take it ---------------------------
make -s -C "$TOP" O="$O" DESTDIR="$W/root" PREFIX=/usr/local install >"$W/install.log" 2>&1 ||
	{ fail "make install" "$(tail -1 "$W/install.log")"; finish; }
PAHOLE=$W/root/usr/local/libexec/frugal/pahole

# A section's bytes (.BTF is not SHF_ALLOC in .tmp_vmlinux1 and the
# modules, so `objcopy -O binary` would write nothing).
section() { rm -f "$3"; objcopy --dump-section "$1=$3" "$2" "$W/dump.o" 2>/dev/null && [ -s "$3" ]; }

# fetch NAME SCRIPT ARGS...: a fetch script's directory on stdout; a skip
# (Debian unreachable) or a failure otherwise, and a non-zero return.
fetch() {
	local name=$1 dir rc
	shift
	dir=$(bash "$TOP/scripts/$1" "${@:2}" 2>"$W/fetch.err")
	rc=$?
	case $rc in
	0) echo "$dir" ;;
	3) skip "$name" "Debian unreachable: $(tail -1 "$W/fetch.err")" ;;
	*) fail "$name: $1" "$(tail -1 "$W/fetch.err")" ;;
	esac
	return $rc
}

# unpack TARBALL KEY: the source tree, unpacked once into the cache.
unpack() {
	local src=$CACHE/kernel-build/$2
	if [ ! -f "$src/.unpacked" ]; then
		rm -rf "$src"
		mkdir -p "$src"
		tar -xJf "$1" -C "$src" --strip-components=1 || { rm -rf "$src"; return 1; }
		touch "$src/.unpacked"
	fi
	echo "$src"
}

# build LABEL SRC VERSION MODS: configure and build SRC into $B with frugal
# as pahole; checks that the build asked it and chose VERSION's flags, ran it
# on vmlinux and every module.  Sets B, FLAGS (the flags it passed), MODS_KO.
build() {
	local label=$1 src=$2 ver=$3 mods=$4 want c args= bad= t0 vcmd nm
	B=${FRUGAL_KERNEL_BUILD_DIR:+$FRUGAL_KERNEL_BUILD_DIR/$label}
	B=${B:-$W/build-$label}
	rm -rf "$B"
	mkdir -p "$B"
	kmake() { make -C "$src" O="$B" PAHOLE="$PAHOLE" "$@"; }
	kmake tinyconfig >"$W/config.log" 2>&1 || { fail "$label: make tinyconfig" "$(tail -1 "$W/config.log")"; return 1; }
	want="64BIT BPF_SYSCALL DEBUG_KERNEL DEBUG_INFO_DWARF5 DEBUG_INFO_BTF MODULES DEBUG_INFO_BTF_MODULES"
	for c in $want; do args="$args -e $c"; done
	for c in $mods; do args="$args -m $c"; done
	# shellcheck disable=SC2086
	"$src/scripts/config" --file "$B/.config" -d DEBUG_INFO_NONE $args
	kmake olddefconfig >>"$W/config.log" 2>&1
	for c in $want; do grep -qx "CONFIG_$c=y" "$B/.config" || bad="$bad $c"; done
	for c in $mods; do grep -qx "CONFIG_$c=m" "$B/.config" || bad="$bad $c=m"; done
	check "$label: config: every option the check needs is set (missing:${bad:- none})" test -z "$bad"
	check "$label: config: the build asked frugal its version and chose pahole $ver's flags" \
		grep -qx "CONFIG_PAHOLE_VERSION=${ver/./}" "$B/.config"
	[ -z "$bad" ] || return 1
	t0=$(date +%s)
	if ! kmake -j"$(nproc)" V=1 vmlinux modules >"$W/build.log" 2>&1; then
		fail "$label: the kernel builds with frugal as PAHOLE" \
			"$(grep -a -m1 -iE 'error|failed' "$W/build.log" || tail -1 "$W/build.log")"
		tail -20 "$W/build.log" | sed 's/^/# /'
		return 1
	fi
	pass "$label: the kernel builds with frugal as PAHOLE ($(( $(date +%s) - t0 )) s at -j$(nproc))"
	# The command lines the build ran frugal with (set -x and V=1 echoes).
	grep -aoE "$PAHOLE -J [^;]*" "$W/build.log" | sed 's/[[:space:]]*$//' >"$W/pahole.cmds"
	vcmd=$(grep -m1 ' \.tmp_vmlinux1$' "$W/pahole.cmds")
	nm=$(grep -c -- '--btf_base' "$W/pahole.cmds")
	MODS_KO=$(cd "$B" && find . -name '*.ko' | sort)
	check "$label: frugal ran on the intermediate vmlinux" test -n "$vcmd"
	[ -n "$vcmd" ] || grep -a -m3 -F -- "-J " "$W/build.log" | cut -c1-300 | sed 's/^/# /'
	check "$label: frugal ran on every module ($nm of $(wc -w <<<"$MODS_KO"))" \
		test "$nm" -eq "$(wc -w <<<"$MODS_KO")" -a "$nm" -ge 5
	FLAGS=${vcmd#"$PAHOLE -J "}
	FLAGS=${FLAGS%.tmp_vmlinux1}
	FLAGS=${FLAGS%--btf_encode_detached=.tmp_vmlinux1.BTF.1 }
	echo "# $label: flags the build passed: $FLAGS"
	check "$label: bpftool reads vmlinux's BTF" bpftool btf dump file "$B/vmlinux" >/dev/null
	[ -n "$vcmd" ]
}

# modules_check LABEL REF_BASE OUR_BASE REFFN: each module's .BTF against
# what REFFN KO NAME writes to $W/NAME.ref (split BTF on REF_BASE).
modules_check() {
	local label=$1 m ko n bad= badtool=
	for m in $MODS_KO; do
		ko=$B/${m#./}
		n=$(basename "$ko" .ko)
		if ! section .BTF "$ko" "$W/$n.btf"; then bad="$bad $n:no-BTF"; continue; fi
		bpftool -B "$B/vmlinux" btf dump file "$ko" >/dev/null 2>&1 || badtool="$badtool $n"
		if ! "$4" "$ko" "$n"; then bad="$bad $n:reference-failed"; continue; fi
		"$FRUGAL" btf diff -q --base-a "$2" --base-b "$3" \
			"$W/$n.ref" "$W/$n.btf" >/dev/null 2>&1 || bad="$bad $n:differs"
	done
	check "$label: modules: all $(wc -w <<<"$MODS_KO") have split BTF with no difference from the reference (${bad:-none bad})" \
		test -z "$bad"
	check "$label: bpftool reads every module's BTF on vmlinux's (${badtool:-all read})" test -z "$badtool"
}

# ---- 6.12: pahole 1.30's flags, BTF written into .tmp_vmlinux1 ----------------------
ref130_mod() {
	objcopy --remove-section=.BTF "$1" "$W/$2.plain"
	# shellcheck disable=SC2086
	"$PAHOLE130" -J $FLAGS --btf_base "$W/ref.btf" --btf_encode_detached="$W/$2.ref" \
		"$W/$2.plain" >/dev/null 2>&1
}

kernel_612() {
	local src d rc tdir
	tdir=$(fetch "6.12 build" fetch-trixie.sh --pahole) || return
	PAHOLE130=$tdir/pahole/bin/pahole
	# Debian 13 builds 6.12 with pahole 1.30: frugal as that one.
	export FRUGAL_PAHOLE_COMPAT=1.30
	check "6.12: the installed pahole link answers as pahole 1.30 with FRUGAL_PAHOLE_COMPAT=1.30" \
		test "$("$PAHOLE" --version)" = v1.30
	src=$(unpack /usr/src/linux-source-6.12.tar.xz \
		"linux-source-6.12-$(dpkg-query -W -f='${Version}' linux-source-6.12)") ||
		{ fail "6.12: unpack its source" "tar failed"; return; }
	build 6.12 "$src" 1.30 "CRC7 CRC8 CRC_ITU_T BINFMT_MISC IKCONFIG"
	rc=$?
	unset FRUGAL_PAHOLE_COMPAT
	[ $rc = 0 ] || return
	section .BTF "$B/.tmp_vmlinux1" "$W/tmp1.btf" && section .BTF "$B/vmlinux" "$W/vmlinux.btf"
	check "6.12: vmlinux carries the .BTF frugal wrote into .tmp_vmlinux1" cmp -s "$W/tmp1.btf" "$W/vmlinux.btf"
	objcopy --remove-section=.BTF "$B/.tmp_vmlinux1" "$W/plain1"
	# shellcheck disable=SC2086
	if "$PAHOLE130" -J $FLAGS --btf_encode_detached="$W/ref.btf" "$W/plain1" >"$W/p130.log" 2>&1; then
		d=$("$FRUGAL" btf diff "$W/ref.btf" "$W/tmp1.btf" 2>&1)
		rc=$?
		check "6.12: vmlinux: no difference from pahole 1.30's ($(tail -1 <<<"$d"))" test "$rc" -eq 0
	else
		fail "6.12: pahole 1.30 on the intermediate vmlinux" "$(tail -1 "$W/p130.log")"
	fi
	modules_check 6.12 "$W/ref.btf" "$W/tmp1.btf" ref130_mod
}

# ---- 7.x: pahole 1.32's flags, detached BTF, then resolve_btfids -------------------
# resolved ELF BTF1 [BASE]: the build's resolve_btfids on pahole's detached
# BTF1 for (a copy of) ELF, as gen-btf.sh runs it: ELF.BTF is the result.
resolved() {
	"$B/tools/bpf/resolve_btfids/resolve_btfids" $RBFLAGS ${3:+--btf_base "$3"} --btf "$2" "$1"
}

ref132_mod() {
	cp "$1" "$W/$2.ko"
	# shellcheck disable=SC2086
	"$PAHOLE132" -J $FLAGS --btf_base "$W/ref.elf.BTF" --btf_encode_detached="$W/$2.ref1" \
		"$W/$2.ko" >/dev/null 2>&1 &&
		resolved "$W/$2.ko" "$W/$2.ref1" "$W/ref.elf.BTF" >/dev/null 2>&1 &&
		mv "$W/$2.ko.BTF" "$W/$2.ref"
}

kernel_7x() {
	local sdir bdir src d rc
	sdir=$(fetch "7.x build" fetch-sid.sh) || return
	bdir=$(fetch "7.x build" fetch-trixie.sh --backports --source) || return
	PAHOLE132=$sdir/pahole/bin/pahole
	check "7.x: the installed pahole link answers as pahole 1.32, its default" \
		test "$("$PAHOLE" --version)" = v1.32
	read -r _ d < "$bdir/kernel-src/PACKAGE"
	src=$(unpack "$bdir/kernel-src/linux-source.tar.xz" "$(cut -d' ' -f1 "$bdir/kernel-src/PACKAGE")-$d") ||
		{ fail "7.x: unpack its source" "tar failed"; return; }
	build 7.x "$src" 1.32 "BINFMT_MISC IKCONFIG AUTOFS_FS FUSE_FS CONFIGFS_FS" || return
	check "7.x: the build passed pahole 1.32's layout feature" grep -q -- 'layout' <<<"$FLAGS"
	RBFLAGS=$(grep -aoE 'resolve_btfids [^;]*--btf \.tmp_vmlinux1\.BTF\.1' "$W/build.log" | head -1 |
		sed -e 's/^resolve_btfids //' -e 's/--btf \.tmp_vmlinux1\.BTF\.1$//')
	echo "# 7.x: resolve_btfids flags: ${RBFLAGS:-none}"
	section .BTF "$B/vmlinux" "$W/vmlinux.btf"
	cp "$B/.tmp_vmlinux1" "$W/ref.elf"
	# shellcheck disable=SC2086
	if "$PAHOLE132" -J $FLAGS --btf_encode_detached="$W/ref.btf1" "$W/ref.elf" >"$W/p132.log" 2>&1 &&
	   resolved "$W/ref.elf" "$W/ref.btf1" >>"$W/p132.log" 2>&1; then
		d=$("$FRUGAL" btf diff "$W/ref.elf.BTF" "$W/vmlinux.btf" 2>&1)
		rc=$?
		check "7.x: vmlinux after resolve_btfids: no difference from pahole 1.32's ($(tail -1 <<<"$d"))" \
			test "$rc" -eq 0
		if cmp -s "$W/ref.elf.BTF" "$W/vmlinux.btf"; then
			echo "# 7.x: vmlinux's BTF is byte-identical to pahole 1.32's"
		else
			echo "# 7.x: vmlinux's BTF: $(stat -c %s "$W/vmlinux.btf") bytes, pahole 1.32's $(stat -c %s "$W/ref.elf.BTF")"
		fi
	else
		fail "7.x: pahole 1.32 and resolve_btfids on the intermediate vmlinux" "$(tail -1 "$W/p132.log")"
		return
	fi
	modules_check 7.x "$W/ref.elf.BTF" "$W/vmlinux.btf" ref132_mod
}

for k in $BUILDS; do
	case $k in
	6.12) kernel_612 ;;
	7.x) kernel_7x ;;
	*) fail "FRUGAL_KERNEL_BUILDS: unknown kernel '$k'" "6.12 or 7.x" ;;
	esac
done
finish
