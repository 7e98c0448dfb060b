#!/usr/bin/env bash
# What an arm64 kernel showed, checked here:
#  - parameter locations that pahole's releases read apart: the hand-made
#    DWARF of tests/btf/fixtures/param_pieces.S (x86_64 registers) encoded
#    by frugal --pahole_compat=1.30 and 1.32 and by pahole 1.30 (trixie's)
#    and 1.32 (sid's): no canonical difference, and each keeps the FUNCs
#    the fixture's comment says (a comparison that kept nothing fails);
#  - the module that showed it, Debian 13's arm64 6.12 mlx5_core
#    (scripts/fetch-trixie.sh --arm64, about 320 MB once): as pahole 1.30
#    and 1.32 encode it, on one vmlinux BTF made by frugal for both, in
#    every kind and type by type (bpftool's lines),
#    mlx5_devlink_max_uc_list_validate's FUNC kept by 1.30 only;
#  - that module on an x86_64 base: refused in one line, no output.
# FRUGAL_SKIP_KERNEL=1 skips the module, as does an archive that cannot be
# reached.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/fetch.inc"

W=$_tmp
FX=$TOP/tests/btf/fixtures
# 6.12's flags (scripts/Makefile.btf with pahole 1.30).
FEATS="--btf_features=encode_force,var,float,enum64,decl_tag,type_tag,optimized_func,consistent_func,decl_tag_kfuncs"

fetch "pahole 1.30 (trixie's)" fetch-trixie.sh --pahole || finish
P130=$fetched/pahole/bin/pahole
fetch "pahole 1.32 (sid's)" fetch-sid.sh || finish
P132=$fetched/pahole/bin/pahole

# funcs FILE [BASE]: the FUNCs' names, sorted, on one line.
funcs() {
	bpftool ${2:+-B "$2"} btf dump file "$1" |
		awk '/^\[[0-9]+\] FUNC / { gsub("\x27", "", $3); print $3 }' | sort | tr '\n' ' '
}

# same NAME A B [DIFF OPTS...]: frugal btf diff finds nothing in any kind.
same() {
	local name=$1 a=$2 b=$3 d
	shift 3
	d=$("$FRUGAL" btf diff --kinds all "$@" "$a" "$b" 2>&1)
	case $? in
	0) pass "$name" ;;
	*) fail "$name" "$(echo "$d" | head -4 | tr '\n' '|')" ;;
	esac
}

# norm FILE BASE: FILE's split types as bpftool dumps them, type by type:
# their ids blanked, the base's kept (both encoders share BASE here),
# sorted, since pahole orders a module's types its own way (as
# kernel-sid.sh compares them).
. "$(dirname "$0")/norm.inc"
norm() { split_types "$1" "$2" "$(base_types "$2")"; }

# ---- the fixture ----------------------------------------------------------------
if ! gcc -c "$FX/param_pieces.S" -o "$W/pp.o" 2>"$W/cc.err"; then
	fail "assemble param_pieces.S" "$(head -1 "$W/cc.err")"
	finish
fi
for v in 1.30 1.32; do
	case $v in
	1.30) P=$P130 want="piece_only plain reg_entry_back " ;;
	*) P=$P132 want="plain " ;;
	esac
	if ! "$P" -J $FEATS --btf_encode_detached="$W/pp.p$v.btf" "$W/pp.o" >/dev/null 2>&1; then
		fail "param_pieces: pahole $v encodes it" "pahole failed"
		continue
	fi
	if ! "$FRUGAL" btf encode --pahole_compat=$v $FEATS --btf_encode_detached="$W/pp.f$v.btf" \
		"$W/pp.o" 2>"$W/enc.err"; then
		fail "param_pieces: frugal --pahole_compat=$v encodes it" "$(head -1 "$W/enc.err")"
		continue
	fi
	got=$(funcs "$W/pp.p$v.btf")
	if [ "$got" = "$want" ]; then
		pass "param_pieces: pahole $v keeps the FUNCs of ${want% }"
	else
		fail "param_pieces: pahole $v keeps the FUNCs of ${want% }" "it keeps '$got' (the fixture no longer tells the releases apart)"
	fi
	got=$(funcs "$W/pp.f$v.btf")
	if [ "$got" = "$want" ]; then
		pass "param_pieces: frugal --pahole_compat=$v keeps the same FUNCs"
	else
		fail "param_pieces: frugal --pahole_compat=$v keeps the same FUNCs" "got '$got', pahole $v '$want'"
	fi
	same "param_pieces: frugal --pahole_compat=$v is pahole $v's BTF" "$W/pp.p$v.btf" "$W/pp.f$v.btf"
done

# ---- the arm64 module -------------------------------------------------------------
MOD=kernel/drivers/net/ethernet/mellanox/mlx5/core/mlx5_core.ko
if [ "${FRUGAL_SKIP_KERNEL:-0}" = 1 ]; then
	skip "arm64 mlx5_core" "FRUGAL_SKIP_KERNEL=1"
	finish
fi
fetch "arm64 mlx5_core (Debian 13's arm64 cloud kernel debug package)" \
	fetch-trixie.sh --arm64 --modules <<< "$MOD" || finish
K=$fetched/kernel-dbg
KO=$K/modules/$MOD

# The same vmlinux BTF under both encoders' module, per release: the
# module's difference is then the module's alone.
for v in 1.30 1.32; do
	case $v in 1.30) P=$P130 ;; *) P=$P132 ;; esac
	base=$W/vmlinux.$v.btf
	if ! "$FRUGAL" btf encode -j2 --pahole_compat=$v $FEATS --lang_exclude=rust \
		--btf_encode_detached="$base" "$K/vmlinux" 2>"$W/enc.err"; then
		fail "arm64 vmlinux: frugal --pahole_compat=$v encodes it" "$(head -1 "$W/enc.err")"
		continue
	fi
	if ! "$P" -J -j1 $FEATS --lang_exclude=rust --btf_base="$base" \
		--btf_encode_detached="$W/mlx.p$v.btf" "$KO" >/dev/null 2>&1; then
		fail "arm64 mlx5_core: pahole $v encodes it" "pahole failed"
		continue
	fi
	if ! "$FRUGAL" btf encode -j1 --pahole_compat=$v $FEATS --lang_exclude=rust \
		--btf_base="$base" --btf_encode_detached="$W/mlx.f$v.btf" "$KO" 2>"$W/enc.err"; then
		fail "arm64 mlx5_core: frugal --pahole_compat=$v encodes it" "$(head -1 "$W/enc.err")"
		continue
	fi
	same "arm64 mlx5_core: frugal --pahole_compat=$v is pahole $v's BTF in every kind" \
		"$W/mlx.p$v.btf" "$W/mlx.f$v.btf" --base "$base"
	norm "$W/mlx.p$v.btf" "$base" > "$W/mlx.p$v.txt"
	norm "$W/mlx.f$v.btf" "$base" > "$W/mlx.f$v.txt"
	if [ ! -s "$W/mlx.p$v.txt" ]; then
		fail "arm64 mlx5_core, $v: type by type (bpftool)" "bpftool cannot dump pahole's output"
	elif cmp -s "$W/mlx.p$v.txt" "$W/mlx.f$v.txt"; then
		pass "arm64 mlx5_core, $v: type by type (bpftool), $(grep -c '^\[' "$W/mlx.f$v.txt") types the same"
	else
		fail "arm64 mlx5_core, $v: type by type (bpftool)" \
			"$(diff "$W/mlx.p$v.txt" "$W/mlx.f$v.txt" | grep '^[<>]' | head -3 | cut -c1-120 | tr '\n' '|')"
	fi
	n=$(funcs "$W/mlx.f$v.btf" "$base" | tr ' ' '\n' | grep -cx mlx5_devlink_max_uc_list_validate)
	case $v in 1.30) want=1 ;; *) want=0 ;; esac
	if [ "$n" = "$want" ]; then
		pass "arm64 mlx5_core, $v: mlx5_devlink_max_uc_list_validate has $want FUNC (its union passed by reference)"
	else
		fail "arm64 mlx5_core, $v: mlx5_devlink_max_uc_list_validate has $want FUNC" "it has $n"
	fi
done

# An x86_64 base (a program of ours with .BTF) under it: one line naming
# the base and both machines, exit 1, no output file.
if gcc -g -O2 "$FX/types.c" "$FX/dup_a.c" "$FX/dup_b.c" -o "$W/x86-base" 2>"$W/cc.err" &&
   "$FRUGAL" btf encode "$W/x86-base" 2>"$W/enc.err"; then
	rm -f "$W/bad.btf"
	"$FRUGAL" btf encode $FEATS --btf_base="$W/x86-base" --btf_encode_detached="$W/bad.btf" \
		"$KO" >/dev/null 2>"$W/bad.err"
	rc=$?
	if [ $rc = 1 ] && [ "$(wc -l < "$W/bad.err")" = 1 ] && [ ! -e "$W/bad.btf" ] &&
	   grep -qF "$W/x86-base: base is for x86_64, $KO is for aarch64" "$W/bad.err"; then
		pass "arm64 mlx5_core on an x86_64 base: refused in one line, no output"
	else
		fail "arm64 mlx5_core on an x86_64 base: refused in one line, no output" \
			"exit $rc, $(ls "$W/bad.btf" 2>/dev/null) $(head -2 "$W/bad.err" | tr '\n' '|')"
	fi
else
	fail "arm64 mlx5_core on an x86_64 base" "no x86_64 base: $(head -1 "$W/cc.err" "$W/enc.err" 2>/dev/null | tr '\n' ' ')"
fi
finish
