#!/usr/bin/env bash
# Debian sid's cloud kernel (7.2.13 when written; scripts/fetch-sid.sh
# --kernel: a 380 MB download, then cached) as a user of sid encodes its
# modules: on the vmlinux BTF the package ships (three identical void(void)
# FUNC_PROTOs, two of them added by the kernel build after pahole), by
# pahole 1.30 (trixie's) and 1.32 (sid's), and by frugal in
# --pahole_compat=1.30 and 1.32 with the same flags (those of
# kernel612.sh and kernel7-pahole132.sh).  The modules: every one whose
# .debug_* sections come before .data..percpu (14 in 7.2.13: kvm.ko,
# sctp.ko, dm-vdo.ko...; pahole's search for a variable's section stops
# at a debug section first and writes no per-CPU VAR there), algif_rng.ko,
# and a spread of the others by size.  Per module and version:
#  - type by type: each side's `bpftool btf dump`, every line of a split
#    type with the ids of the module's own types blanked and the base ids
#    kept, the two sorted lists equal (pahole orders a module's types its
#    own way: docs/btf.md); a module's void(void) that meets another of
#    the base's three, a VAR too many or too few, shows as a line;
#  - on the default (pruned) base the same bytes as on --full_base, but
#    for the modules tests/btf/kernel-sid-known.txt names (compared on the
#    whole base instead; each must still differ).
# FRUGAL_SKIP_KERNEL=1 skips it, as does an archive that cannot be
# reached; FRUGAL_SID_MODULES (default 24) sets the size of the spread;
# FRUGAL_KEEP=DIR keeps the outputs there.
. "$(dirname "$0")/../lib.sh"

NMOD=${FRUGAL_SID_MODULES:-24}
CACHE=${FRUGAL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/frugal}
FEATS130="--btf_features=encode_force,var,float,enum64,decl_tag,type_tag,optimized_func,consistent_func,decl_tag_kfuncs --lang_exclude=rust"
FEATS132="--btf_features=encode_force,var,float,enum64,decl_tag,type_tag,optimized_func,consistent_func,decl_tag_kfuncs,attributes,layout --btf_features=+reproducible_build --lang_exclude=rust"
W=${FRUGAL_KEEP:-$_tmp}
KNOWN=$TOP/tests/btf/kernel-sid-known.txt

if [ "${FRUGAL_SKIP_KERNEL:-0}" = 1 ]; then
	skip "sid's kernel modules against pahole 1.30 and 1.32" "FRUGAL_SKIP_KERNEL=1"
	finish
fi
if ! command -v bpftool >/dev/null; then
	fail "sid's kernel modules against pahole 1.30 and 1.32" "no bpftool (scripts/install-deps.sh)"
	finish
fi
. "$(dirname "$0")/fetch.inc"
fetch "sid's kernel modules (sid's pahole 1.32 and kernel)" fetch-sid.sh --kernel || finish
SDIR=$fetched
fetch "sid's kernel modules (trixie's pahole 1.30)" fetch-trixie.sh --pahole || finish
TDIR=$fetched
KDIR=$SDIR/kernel-dbg
VMLINUX=$KDIR/vmlinux
read -r _ PKGVER < "$KDIR/PACKAGE"
declare -A PAHOLE=([130]=$TDIR/pahole/bin/pahole [132]=$SDIR/pahole/bin/pahole)
declare -A FEATS=([130]=$FEATS130 [132]=$FEATS132)

# The modules: a spread by size, algif_rng, and those whose debug sections
# come first (found in the package's section tables, cached).
total=$(wc -l < "$KDIR/modules.list")
awk -v n="$NMOD" -v t="$total" 'BEGIN { for (i = 0; i < n && i < t; i++) pick[int(i * (t - 1) / (n > 1 ? n - 1 : 1)) + 1] = 1 }
	pick[NR] || $2 ~ /\/algif_rng\.ko$/ { print $2 }' "$KDIR/modules.list" > "$W/spread"
if ! bash "$TOP/scripts/fetch-sid.sh" --all-modules >/dev/null 2>"$W/fetch.err"; then
	fail "unpack sid's modules" "$(tail -1 "$W/fetch.err")"
	finish
fi
LATE=$CACHE/btf-ref/sid-$PKGVER-debug-first
if [ ! -s "$LATE" ]; then
	while read -r _ mod; do
		readelf -SW "$KDIR/modules/$mod" 2>/dev/null | awk -v m="$mod" '
			/ \.debug_/ { d = 1 } / \.data\.\.percpu / { if (d) print m; exit }'
	done < "$KDIR/modules.list" > "$LATE.tmp" && mv "$LATE.tmp" "$LATE"
fi
nlate=$(wc -l < "$LATE")
if [ "$nlate" -eq 0 ]; then
	fail "sid's kernel: modules whose .debug_* sections precede .data..percpu" "none found in $total"
	finish
fi
sort -u "$W/spread" "$LATE" > "$W/mods"
nwant=$(wc -l < "$W/mods")

# Each side's dump, type by type: the split types' lines (from the first
# id past the base), ids of split types blanked, base ids kept, sorted.
. "$(dirname "$0")/norm.inc"
NBASE=$(base_types "$VMLINUX")
norm() { split_types "$1" "$VMLINUX" "$NBASE"; }

REF=$CACHE/btf-ref/sid-$PKGVER
mkdir -p "$W/out" "$W/res"
for v in 130 132; do
	flags=${FEATS[$v]}
	pver=$("${PAHOLE[$v]}" --version)
	ref=$REF-pahole-$pver-$(printf '%s' "$flags" | md5sum | cut -c1-12)
	mkdir -p "$ref"
	export PAHOLE_BIN=${PAHOLE[$v]} FLAGS=$flags VMLINUX KDIR ref
	# shellcheck disable=SC2016
	xargs -P2 -I{} bash -c '
		out=$ref/${1//\//_}.btf
		[ -s "$out" ] || { "$PAHOLE_BIN" -J -j1 $FLAGS --btf_base="$VMLINUX" \
			--btf_encode_detached="$out.tmp" "$KDIR/modules/$1" >/dev/null 2>&1 &&
			mv "$out.tmp" "$out"; }' _ {} < "$W/mods"
	nok=0 nbytes=0 nlate_ok=0
	while read -r mod; do
		m=${mod//\//_}
		o=$W/out/$m.$v.btf
		what="sid $PKGVER $mod, pahole $pver"
		if [ ! -s "$ref/$m.btf" ]; then
			fail "$what" "no reference from pahole"
			continue
		fi
		if ! "$FRUGAL" btf encode -j1 --pahole_compat="${v:0:1}.${v:1}" $flags --btf_base="$VMLINUX" \
			--btf_encode_detached="$o" "$KDIR/modules/$mod" 2>"$o.err" ||
		   ! "$FRUGAL" btf encode -j1 --pahole_compat="${v:0:1}.${v:1}" $flags --full_base \
			--btf_base="$VMLINUX" --btf_encode_detached="$o.full" "$KDIR/modules/$mod" 2>>"$o.err"; then
			fail "$what" "frugal btf encode failed: $(head -1 "$o.err")"
			continue
		fi
		if grep -qx "$v $mod" "$KNOWN"; then
			if cmp -s "$o" "$o.full"; then
				fail "$what" "the same bytes on the pruned base as on the whole now: delete its line in $(basename "$KNOWN")"
				continue
			fi
			mv "$o.full" "$o"
		elif ! cmp -s "$o" "$o.full"; then
			fail "$what" "on the pruned base, not the bytes it makes on the whole base"
			continue
		fi
		norm "$ref/$m.btf" > "$o.ref.txt"
		norm "$o" > "$o.txt"
		if [ ! -s "$o.ref.txt" ]; then
			fail "$what" "bpftool cannot dump pahole's output"
			continue
		fi
		if ! cmp -s "$o.ref.txt" "$o.txt"; then
			fail "$what" "type by type: $(diff "$o.ref.txt" "$o.txt" | grep -c '^[<>]') lines differ: $(diff "$o.ref.txt" "$o.txt" | grep '^[<>]' | head -3 | tr '\n' '|')"
			continue
		fi
		cmp -s "$ref/$m.btf" "$o" && nbytes=$((nbytes + 1))
		grep -qx "$mod" "$LATE" && nlate_ok=$((nlate_ok + 1))
		nok=$((nok + 1))
	done < "$W/mods"
	if [ "$nok" -eq "$nwant" ] && [ "$nlate_ok" -eq "$nlate" ] && [ "$nok" -gt 0 ]; then
		pass "sid $PKGVER: $nok modules ($nlate_ok with debug sections before .data..percpu) equal to pahole $pver's type by type, the pruned base's bytes the whole base's"
	else
		fail "sid $PKGVER: every module equal to pahole $pver's type by type" "$nok of $nwant ($nlate_ok of $nlate with debug sections first)"
	fi
	echo "# pahole $pver: $nbytes of $nok byte-identical (the rest: pahole's order of a module's types, docs/btf.md)"
done
finish
