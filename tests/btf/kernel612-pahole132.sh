#!/usr/bin/env bash
# Equivalence with pahole 1.32 in --pahole_compat=1.32: Debian 13's 6.12
# vmlinux and a spread of its modules (scripts/fetch-trixie.sh) encoded by
# Debian sid's pahole 1.32 (scripts/fetch-sid.sh, run through sid's own
# loader, nothing installed) and by frugal with the flags a 6.12 build
# passes, compared with `frugal btf diff`: vmlinux in every kind, modules
# (split BTF, each encoder on its own vmlinux BTF) in every kind but
# typedefs and anonymous types, which pahole 1.32's libbpf 1.7 repeats from
# the base (docs/btf.md).  Each difference, as "FILE: LINE", must match a
# line of tests/btf/kernel-pahole132-known.txt, and each line there must
# still match one, so the list only shrinks.
#
# pahole's output is cached beside 1.30's (tests/btf/refs.inc's layout),
# keyed by package version, pahole version and flags.  FRUGAL_SKIP_KERNEL=1
# skips the check, as does an archive that cannot be reached;
# FRUGAL_KERNEL612_MODULES (default 64) sets how many modules.
. "$(dirname "$0")/../lib.sh"

NMOD=${FRUGAL_KERNEL612_MODULES:-64}
CACHE=${FRUGAL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/frugal}
FEATS="--btf_features=encode_force,var,float,enum64,decl_tag,type_tag,optimized_func,consistent_func,decl_tag_kfuncs --lang_exclude=rust"
KNOWN=$TOP/tests/btf/kernel-pahole132-known.txt
W=$_tmp

if [ "${FRUGAL_SKIP_KERNEL:-0}" = 1 ]; then
	skip "pahole 1.32 equivalence" "FRUGAL_SKIP_KERNEL=1"
	finish
fi
SDIR=$(bash "$TOP/scripts/fetch-sid.sh" 2>"$W/fetch.err")
rc=$?
if [ $rc = 0 ]; then
	TDIR=$(bash "$TOP/scripts/fetch-trixie.sh" 2>"$W/fetch.err")
	rc=$?
fi
case $rc in
0) ;;
3) skip "pahole 1.32 equivalence" "Debian unreachable: $(tail -1 "$W/fetch.err")"
   finish ;;
*) fail "fetch sid's pahole 1.32 and trixie's 6.12 kernel" "$(tail -1 "$W/fetch.err")"
   finish ;;
esac
PAHOLE=$SDIR/pahole/bin/pahole
KDIR=$TDIR/kernel-dbg
read -r _ PKGVER < "$KDIR/PACKAGE"
VMLINUX=$KDIR/vmlinux
pver=$("$PAHOLE" --version)
expect_exit "pahole 1.32 anchor: --version says v1.32" 0 test "$pver" = v1.32

# The modules: as kernel612.sh picks them, spread over all of them by size.
total=$(wc -l < "$KDIR/modules.list")
awk -v n="$NMOD" -v t="$total" 'BEGIN { for (i = 0; i < n && i < t; i++) pick[int(i * (t - 1) / (n > 1 ? n - 1 : 1)) + 1] = 1 }
	pick[NR] { print $2 }' "$KDIR/modules.list" > "$W/mods"
if ! bash "$TOP/scripts/fetch-trixie.sh" --modules < "$W/mods" >/dev/null 2>"$W/fetch.err"; then
	fail "unpack $(wc -l < "$W/mods") modules" "$(tail -1 "$W/fetch.err")"
	finish
fi
. "$(dirname "$0")/refs.inc"

REF=$CACHE/btf-ref/$PKGVER-pahole-$pver-$(printf '%s' "$FEATS" | md5sum | cut -c1-12)
mkdir -p "$REF/modules"
exec 8>"$REF.lock"
flock 8
make_refs 2 || finish
flock -u 8

if ! "$FRUGAL" btf encode -j2 --pahole_compat=1.32 $FEATS --btf_encode_detached="$W/vmlinux.btf" \
	"$VMLINUX" 2>"$W/enc.err"; then
	fail "6.12 vmlinux: frugal --pahole_compat=1.32 encodes it" "$(head -1 "$W/enc.err")"
	finish
fi
# The merge order decides which weak FUNC gives way to which strong one:
# the bytes must not depend on the number of workers.
if "$FRUGAL" btf encode -j1 --pahole_compat=1.32 $FEATS --btf_encode_detached="$W/vmlinux1.btf" \
	"$VMLINUX" 2>/dev/null && cmp -s "$W/vmlinux.btf" "$W/vmlinux1.btf"; then
	pass "6.12 vmlinux, --pahole_compat=1.32: the same bytes at -j1 and -j2"
else
	fail "6.12 vmlinux, --pahole_compat=1.32: the same bytes at -j1 and -j2" "they differ"
fi
rm -f "$W/vmlinux1.btf"
# diffs NAME [DIFF ARGS]: the difference lines, as "NAME: LINE", into W/lines.
diffs() {
	local name=$1 rc
	shift
	"$FRUGAL" btf diff "$@" > "$W/diff" 2>&1
	rc=$?
	if [ $rc -gt 1 ]; then
		echo "$name: frugal btf diff failed: $(tail -1 "$W/diff")" >> "$W/lines"
		return
	fi
	grep -E '^[-+~] ' "$W/diff" | sed "s|^|$name: |" >> "$W/lines" || :
}
: > "$W/lines"
diffs vmlinux "$REF/vmlinux.btf" "$W/vmlinux.btf"
mkdir -p "$W/mods.out"
nmods=0
while read -r mod; do
	m=$(modname "$mod")
	if [ ! -s "$REF/modules/$m.btf" ]; then
		echo "$m: no pahole reference" >> "$W/lines"
		continue
	fi
	if ! "$FRUGAL" btf encode -j1 --pahole_compat=1.32 $FEATS --btf_base="$W/vmlinux.btf" \
		--btf_encode_detached="$W/mods.out/$m.btf" "$KDIR/modules/$mod" 2>/dev/null; then
		echo "$m: frugal btf encode failed" >> "$W/lines"
		continue
	fi
	diffs "$m" --kinds int,float,struct,union,enum,fwd,func,var,datasec,decl_tag \
		--base-a "$REF/vmlinux.btf" --base-b "$W/vmlinux.btf" \
		"$REF/modules/$m.btf" "$W/mods.out/$m.btf"
	nmods=$((nmods + 1))
done < "$W/mods"

grep -v '^[[:space:]]*\(#\|$\)' "$KNOWN" > "$W/known" || :
grep -vxEf "$W/known" "$W/lines" > "$W/unexplained" || :
n=$(wc -l < "$W/lines")
if [ ! -s "$W/unexplained" ]; then
	pass "6.12 vmlinux and $nmods modules: every difference from pahole 1.32 is a known one ($n)"
else
	fail "6.12 vmlinux and $nmods modules: every difference from pahole 1.32 is a known one" \
		"$(wc -l < "$W/unexplained") not: $(head -5 "$W/unexplained" | tr '\n' '|')"
fi
# A known line that matches nothing: that rule is followed now, the line goes.
stale=$(while IFS= read -r re; do grep -qxE -- "$re" "$W/lines" || echo "$re"; done < "$W/known")
if [ -z "$stale" ]; then
	pass "every known difference from pahole 1.32 still occurs"
else
	fail "every known difference from pahole 1.32 still occurs" \
		"$(echo "$stale" | wc -l) no longer do (delete them): $(echo "$stale" | head -3 | tr '\n' '|')"
fi
echo "# against pahole 1.32: $n canonical differences ($(grep -c '^vmlinux: ' "$W/lines") in vmlinux), all listed in $(basename "$KNOWN")"
finish
