#!/usr/bin/env bash
# Equivalence with pahole 1.30, frugal as that one (FRUGAL_PAHOLE_COMPAT:
# Debian 13 builds its kernels with it; the default, 1.32, is checked by
# kernel612-pahole132.sh): Debian 13 (trixie)'s 6.12 cloud kernel debug
# package and its pahole 1.30, both from
# scripts/fetch-trixie.sh (nothing installed), encoded with the flags a 6.12
# build passes, and compared with `frugal btf diff`.  Unlike the 6.1 check
# (kernel.sh, pahole 1.24), nothing may differ, in any kind: vmlinux and a
# spread of modules (split BTF: pahole's on pahole's vmlinux BTF, ours on
# ours), against pahole 1.30 and against the .BTF Debian ships, which
# pahole 1.30 produced.  Then the other command lines a 6.1-6.18 build
# passes to a pahole that answers v1.30: Debian's own (reproducible_build),
# 6.16+'s (attributes), external modules' (distilled_base), and 6.1's
# (pahole-flags.sh's 1.25 switches, on the 6.1 package kernel.sh checks,
# fetched here too).
#
# pahole's outputs are cached beside the packages, keyed by package
# version, pahole version and flags, so a second run only runs frugal.
# FRUGAL_KERNEL612_MODULES (default 64) sets how many modules are checked;
# FRUGAL_SKIP_KERNEL=1 skips the check (with a skip line), as does an
# archive that cannot be reached.
. "$(dirname "$0")/../lib.sh"
export FRUGAL_PAHOLE_COMPAT=1.30

NMOD=${FRUGAL_KERNEL612_MODULES:-64}
CACHE=${FRUGAL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/frugal}
# scripts/Makefile.btf of 6.12 for pahole >= 1.26 (-j aside).
FEATS="--btf_features=encode_force,var,float,enum64,decl_tag,type_tag,optimized_func,consistent_func,decl_tag_kfuncs --lang_exclude=rust"
W=$_tmp

if [ "${FRUGAL_SKIP_KERNEL:-0}" = 1 ]; then
	skip "pahole 1.30 equivalence" "FRUGAL_SKIP_KERNEL=1"
	finish
fi
. "$(dirname "$0")/fetch.inc"
fetch "pahole 1.30 equivalence (trixie's pahole and 6.12 kernel)" fetch-trixie.sh || finish
TDIR=$fetched
PAHOLE=$TDIR/pahole/bin/pahole
KDIR=$TDIR/kernel-dbg
read -r _ PKGVER < "$KDIR/PACKAGE"
VMLINUX=$KDIR/vmlinux
pver=$("$PAHOLE" --version)

# The modules: NMOD spread evenly over all of them by size (modules.list is
# sorted), unpacked on demand.
total=$(wc -l < "$KDIR/modules.list")
awk -v n="$NMOD" -v t="$total" 'BEGIN { for (i = 0; i < n && i < t; i++) pick[int(i * (t - 1) / (n > 1 ? n - 1 : 1)) + 1] = 1 }
	pick[NR] { print $2 }' "$KDIR/modules.list" > "$W/mods"
nmods=$(wc -l < "$W/mods")
if ! bash "$TOP/scripts/fetch-trixie.sh" --modules < "$W/mods" >/dev/null 2>"$W/fetch.err"; then
	fail "unpack $nmods modules" "$(tail -1 "$W/fetch.err")"
	finish
fi
. "$(dirname "$0")/refs.inc"

# ---- pahole 1.30's reference outputs, cached --------------------------------------
REF=$CACHE/btf-ref/$PKGVER-pahole-$pver-$(printf '%s' "$FEATS" | md5sum | cut -c1-12)
mkdir -p "$REF/modules"
exec 8>"$REF.lock"
flock 8	# another run filling the same cache: wait for it, then reuse its work
t0=$(date +%s)
make_refs 2 || finish
flock -u 8
t1=$(date +%s)
[ $((t1 - t0)) -gt 1 ] && echo "# pahole 1.30's references made in $((t1 - t0)) s"

# ---- vmlinux ----------------------------------------------------------------------
if ! "$FRUGAL" btf encode -j2 $FEATS --btf_encode_detached="$W/vmlinux.btf" "$VMLINUX" \
	2>"$W/enc.err"; then
	fail "6.12 vmlinux: frugal encodes it" "$(head -1 "$W/enc.err")"
	finish
fi
pass "6.12 vmlinux: frugal encodes it ($(( $(date +%s) - t1 )) s at -j2)"

# same NAME A B [DIFF OPTIONS]: no canonical difference, in any kind.
same() {
	local name=$1 a=$2 b=$3 d
	shift 3
	d=$("$FRUGAL" btf diff "$@" "$a" "$b" 2>&1)
	case $? in
	0) pass "$name" ;;
	*) fail "$name" "$(echo "$d" | tail -1): $(echo "$d" | grep '^[-+~] ' | head -5 | tr '\n' '|')" ;;
	esac
}
same "6.12 vmlinux: no difference from pahole 1.30" "$REF/vmlinux.btf" "$W/vmlinux.btf"
same "6.12 vmlinux: no difference from the .BTF Debian ships" "$VMLINUX" "$W/vmlinux.btf"
# How close to pahole's bytes (docs/btf.md says why they are not the same).
if cmp -s "$REF/vmlinux.btf" "$W/vmlinux.btf"; then
	echo "# 6.12 vmlinux: byte-identical to pahole 1.30"
else
	echo "# 6.12 vmlinux: $(stat -c %s "$W/vmlinux.btf") bytes, pahole 1.30's $(stat -c %s "$REF/vmlinux.btf")"
fi

# ---- modules: split BTF, ours on our vmlinux, pahole's on pahole's ----------------
# One job per module, two at a time; each leaves "$W/res/NAME": "ok" or
# "fail REASON".
check_module() {
	local mod=$1 m d
	m=$(modname "$mod")
	local ref=$REF/modules/$m.btf out=$W/mods.out/$m.btf res=$W/res/$m
	if [ ! -s "$ref" ]; then
		echo "fail no pahole reference" > "$res"
		return
	fi
	if ! "$FRUGAL" btf encode -j1 --verbose $FEATS --btf_base="$W/vmlinux.btf" \
		--btf_encode_detached="$out" "$KDIR/modules/$mod" 2>"$out.err" || [ ! -s "$out" ]; then
		echo "fail frugal btf encode failed: $(grep -v '^btf: \|^libbpf' "$out.err" | head -1)" > "$res"
		return
	fi
	# The base pruned to what the module can meet (btf/encode/encode_base.c):
	# the same bytes as dedup against the whole base.
	if ! grep -qx 'btf: base BTF: pruned' "$out.err"; then
		echo "fail the base was not pruned: $(grep 'base BTF' "$out.err")" > "$res"
		return
	fi
	if ! "$FRUGAL" btf encode -j1 --full_base $FEATS --btf_base="$W/vmlinux.btf" \
		--btf_encode_detached="$out.full" "$KDIR/modules/$mod" 2>/dev/null ||
	   ! cmp -s "$out" "$out.full"; then
		echo "fail on the pruned base, not the bytes it makes on the whole base" > "$res"
		return
	fi
	d=$("$FRUGAL" btf diff --base-a "$REF/vmlinux.btf" --base-b "$W/vmlinux.btf" \
		"$ref" "$out" 2>&1)
	if [ $? -ne 0 ]; then
		echo "fail differs from pahole 1.30: $(echo "$d" | grep '^[-+~] ' | head -4 | tr '\n' '|')" > "$res"
		return
	fi
	d=$("$FRUGAL" btf diff --base-a "$VMLINUX" --base-b "$W/vmlinux.btf" \
		"$KDIR/modules/$mod" "$out" 2>&1)
	if [ $? -ne 0 ]; then
		echo "fail differs from Debian's .BTF: $(echo "$d" | grep '^[-+~] ' | head -4 | tr '\n' '|')" > "$res"
		return
	fi
	echo ok > "$res"
}
mkdir -p "$W/mods.out" "$W/res"
export FRUGAL W VMLINUX
export -f check_module
t2=$(date +%s)
xargs -P2 -I{} bash -c 'check_module "$1"' _ {} < "$W/mods"
nok=0
while read -r mod; do
	m=$(modname "$mod")
	verdict=$(head -1 "$W/res/$m" 2>/dev/null)
	if [ "$verdict" = ok ]; then
		nok=$((nok + 1))
	else
		fail "6.12 module $mod ($(stat -L -c %s "$KDIR/modules/$mod") bytes)" "${verdict#fail }"
	fi
done < "$W/mods"
if [ "$nok" -eq "$nmods" ] && [ "$nmods" -ge 60 ]; then
	pass "6.12 modules: all $nmods (of $total) equal to pahole 1.30's and Debian's, on a pruned base, byte for byte as on the whole ($(( $(date +%s) - t2 )) s)"
else
	fail "6.12 modules: all $nmods (of $total) equal to pahole 1.30's and Debian's" \
		"$nok of $nmods"
fi

# ---- the other command lines a build passes to a pahole answering v1.30 -------------
# On the largest module of the sample: cheap, and it has kfuncs, VARs, FUNCs.
big=$(tail -1 "$W/mods")
bigout=$W/mods.out/$(modname "$big").btf
# enc_same NAME FLAGS...: frugal with FLAGS writes the same bytes as with FEATS.
enc_same() {
	local name=$1
	shift
	if "$FRUGAL" btf encode "$@" --btf_base="$W/vmlinux.btf" \
		--btf_encode_detached="$W/flags.btf" "$KDIR/modules/$big" 2>"$W/flags.err" &&
	   cmp -s "$W/flags.btf" "$bigout"; then
		pass "$name"
	else
		fail "$name" "output differs or encode failed: $(head -1 "$W/flags.err")"
	fi
}
# Debian's build sets KBUILD_BUILD_TIMESTAMP: Makefile.btf then adds
# "-j --btf_features=+reproducible_build" ('+': default plus the rest).
enc_same "6.12 reproducible build's flags: same output" \
	-J -j $FEATS -j --btf_features=+reproducible_build
enc_same "6.12 '--btf_features=+reproducible_build' alone: the default features" \
	--btf_features=+reproducible_build --lang_exclude=rust
# 6.16+ adds attributes for pahole >= 1.30, 7.x layout for pahole >= 1.31;
# trixie's pahole (libbpf 1.5) cannot encode attributes, sid's pahole 1.32
# (libbpf 1.7) not layout, and each ignores what it cannot encode even
# under --btf_features_strict (exit 0): so do we, as pahole 1.30 here
# (6.12 has no arena kfunc anyway; encode_kfuncs.sh checks attributes).
enc_same "6.16+ flags (attributes): same output" $FEATS --btf_features=attributes
enc_same "7.x flags (layout): same output" $FEATS --btf_features=layout
enc_same "attributes and layout under --btf_features_strict: same output, exit 0" \
	$FEATS --btf_features_strict=var,attributes,layout
# External modules get distilled_base (pahole >= 1.26 in 6.12, >= 1.28
# later); libbpf 1.1 cannot distill, so it is ignored, strict or not.
enc_same "external module flags (distilled_base): same output as in-tree" \
	$FEATS --btf_features=distilled_base
enc_same "distilled_base under --btf_features_strict: same output, exit 0" \
	$FEATS --btf_features_strict=distilled_base

# ---- global_var: no kernel build passes it, but it is pahole 1.30's -------------------
# vmlinux and every fourth module of the sample.  In modules, pahole puts the
# .note.Linux objects (_note_18, _note_19, in a NOTE section) in a DATASEC
# named .debug_info: libdwfl lays out only allocated sections, so their
# addresses fall inside .debug_info's [0, size).  We leave them out
# (docs/btf.md); nothing else may differ.
GV="$FEATS --btf_features=global_var"
exec 8>"$REF.lock"
flock 8
awk 'NR % 4 == 0' "$W/mods" > "$W/mods-gv"
pahole_refs 2 "$GV" "$VMLINUX" "$REF/vmlinux-gv.btf" "$REF/modules-gv" "$KDIR" "$W/mods-gv" || :
flock -u 8
if [ ! -s "$REF/vmlinux-gv.btf" ]; then
	fail "global_var: pahole 1.30 reference" "pahole -J failed on $VMLINUX"
elif ! "$FRUGAL" btf encode -j2 $GV --btf_encode_detached="$W/vmlinux-gv.btf" "$VMLINUX" \
	2>"$W/enc.err"; then
	fail "global_var: frugal encodes 6.12 vmlinux" "$(head -1 "$W/enc.err")"
else
	same "global_var: 6.12 vmlinux, no difference from pahole 1.30" \
		"$REF/vmlinux-gv.btf" "$W/vmlinux-gv.btf"
	nbad=0 ngv=0
	while read -r mod; do
		m=$(modname "$mod")
		ngv=$((ngv + 1))
		if ! "$FRUGAL" btf encode -j2 $GV --btf_base="$W/vmlinux-gv.btf" \
			--btf_encode_detached="$W/gv.btf" "$KDIR/modules/$mod" 2>"$W/enc.err"; then
			fail "global_var: module $mod" "$(head -1 "$W/enc.err")"
			nbad=$((nbad + 1))
			continue
		fi
		d=$("$FRUGAL" btf diff --base-a "$REF/vmlinux-gv.btf" --base-b "$W/vmlinux-gv.btf" \
			"$REF/modules-gv/$m.btf" "$W/gv.btf" 2>&1 |
			grep -vxE -- '- (var _note_[0-9]+|datasec \.debug_info)|[0-9]+ differences?')
		if [ -n "$d" ]; then
			fail "global_var: module $mod" "$(echo "$d" | head -4 | tr '\n' '|')"
			nbad=$((nbad + 1))
		fi
	done < "$W/mods-gv"
	if [ "$ngv" -eq 0 ]; then
		fail "global_var: modules as pahole 1.30's" "no module to compare ($W/mods-gv is empty)"
	elif [ "$nbad" -eq 0 ]; then
		pass "global_var: $ngv modules as pahole 1.30's, but for its .note objects"
	fi
fi

# ---- 6.1's command line for pahole >= 1.25, against pahole 1.30 ----------------------
# scripts/pahole-flags.sh of 6.1 adds the 1.25 switches; with them we must
# match pahole 1.30 there too (without them, pahole 1.24: kernel.sh).  The
# 6.1 package is fetched here (scripts/fetch-kernel-dbg.sh; cached, shared
# with kernel.sh).
FEATS61="--btf_gen_floats --lang_exclude=rust --skip_encoding_btf_inconsistent_proto --btf_gen_optimized"
fetch "6.1 with pahole-flags.sh's 1.25 switches" fetch-kernel-dbg.sh || finish
K61=$fetched
read -r _ PKGVER61 < "$K61/PACKAGE"
REF61=$CACHE/btf-ref/$PKGVER61-pahole-$pver-$(printf '%s' "$FEATS61" | md5sum | cut -c1-12)
mkdir -p "$REF61"
exec 8>"$REF61.lock"
flock 8
# 16 modules spread by size, as split BTF on each encoder's own vmlinux.
find -L "$K61/modules" -name '*.ko' -printf '%s %P\n' | sort -n -k1,1 -k2 > "$W/all61"
awk -v t="$(wc -l < "$W/all61")" 'BEGIN { for (i = 0; i < 16; i++) pick[int(i * (t - 1) / 15) + 1] = 1 }
	pick[NR] { print $2 }' "$W/all61" > "$W/mods61"
pahole_refs 2 "$FEATS61" "$K61/vmlinux" "$REF61/vmlinux.btf" "$REF61/modules" "$K61" "$W/mods61" || :
flock -u 8
if [ ! -s "$REF61/vmlinux.btf" ]; then
	fail "6.1 vmlinux: pahole 1.30 reference" "pahole -J failed on $K61/vmlinux"
	finish
fi
if ! "$FRUGAL" btf encode -j2 $FEATS61 --btf_encode_detached="$W/vmlinux61.btf" "$K61/vmlinux" \
	2>"$W/enc.err"; then
	fail "6.1 vmlinux, 6.1's flags for pahole >= 1.25" "$(head -1 "$W/enc.err")"
	finish
fi
same "6.1 vmlinux, 6.1's flags for pahole >= 1.25: no difference from pahole 1.30" \
	"$REF61/vmlinux.btf" "$W/vmlinux61.btf"
nbad=0
while read -r mod; do
	m=$(modname "$mod")
	if ! "$FRUGAL" btf encode -j1 $FEATS61 --btf_base="$W/vmlinux61.btf" \
		--btf_encode_detached="$W/m61.btf" "$K61/modules/$mod" 2>"$W/enc.err"; then
		fail "6.1 module $mod, 6.1's flags for pahole >= 1.25" "$(head -1 "$W/enc.err")"
		nbad=$((nbad + 1))
	elif ! d=$("$FRUGAL" btf diff --base-a "$REF61/vmlinux.btf" --base-b "$W/vmlinux61.btf" \
		"$REF61/modules/$m.btf" "$W/m61.btf" 2>&1); then
		fail "6.1 module $mod, 6.1's flags for pahole >= 1.25" \
			"$(echo "$d" | grep '^[-+~] ' | head -4 | tr '\n' '|')"
		nbad=$((nbad + 1))
	fi
done < "$W/mods61"
n61=$(wc -l < "$W/mods61")
if [ "$n61" -lt 16 ]; then
	fail "6.1 modules, 6.1's flags for pahole >= 1.25" "$n61 modules compared, not 16 (none found in $K61/modules?)"
elif [ "$nbad" -eq 0 ]; then
	pass "6.1 modules, 6.1's flags for pahole >= 1.25: all $n61 as pahole 1.30's"
fi

finish
