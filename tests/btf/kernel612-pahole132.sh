#!/usr/bin/env bash
# Equivalence with pahole 1.32 in --pahole_compat=1.32: Debian 13's 6.12
# vmlinux (scripts/fetch-trixie.sh) encoded by Debian sid's pahole 1.32
# (scripts/fetch-sid.sh, run through sid's own loader, nothing installed)
# and by frugal with the flags a 6.12 build passes, compared with `frugal
# btf diff` in every kind.  Each difference must match a line of
# tests/btf/kernel-pahole132-known.txt (rules of 1.32 not followed yet), and
# each line there must still match one, so the list only shrinks.
#
# pahole's output is cached beside 1.30's (tests/btf/refs.inc's layout),
# keyed by package version, pahole version and flags.  FRUGAL_SKIP_KERNEL=1
# skips the check, as does an archive that cannot be reached.
. "$(dirname "$0")/../lib.sh"

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

REF=$CACHE/btf-ref/$PKGVER-pahole-$pver-$(printf '%s' "$FEATS" | md5sum | cut -c1-12)
mkdir -p "$REF"
exec 8>"$REF.lock"
flock 8
if [ ! -s "$REF/vmlinux.btf" ]; then
	"$PAHOLE" -J -j2 $FEATS --btf_encode_detached="$REF/vmlinux.btf.tmp" "$VMLINUX" \
		>/dev/null 2>&1 && mv "$REF/vmlinux.btf.tmp" "$REF/vmlinux.btf"
fi
flock -u 8
if [ ! -s "$REF/vmlinux.btf" ]; then
	fail "pahole 1.32 reference for vmlinux" "pahole -J failed on $VMLINUX"
	finish
fi

if ! "$FRUGAL" btf encode -j2 --pahole_compat=1.32 $FEATS --btf_encode_detached="$W/vmlinux.btf" \
	"$VMLINUX" 2>"$W/enc.err"; then
	fail "6.12 vmlinux: frugal --pahole_compat=1.32 encodes it" "$(head -1 "$W/enc.err")"
	finish
fi
"$FRUGAL" btf diff "$REF/vmlinux.btf" "$W/vmlinux.btf" > "$W/diff" 2>&1
rc=$?
if [ $rc -gt 1 ]; then
	fail "6.12 vmlinux: frugal btf diff against pahole 1.32" "$(tail -1 "$W/diff")"
	finish
fi
grep -v '^[[:space:]]*\(#\|$\)' "$KNOWN" > "$W/known"
grep -E '^[-+~] ' "$W/diff" > "$W/lines" || :
grep -vxEf "$W/known" "$W/lines" > "$W/unexplained" || :
n=$(wc -l < "$W/lines")
if [ ! -s "$W/unexplained" ]; then
	pass "6.12 vmlinux: every difference from pahole 1.32 is a known one ($n)"
else
	fail "6.12 vmlinux: every difference from pahole 1.32 is a known one" \
		"$(wc -l < "$W/unexplained") not: $(head -5 "$W/unexplained" | tr '\n' '|')"
fi
# A known line that matches nothing: that rule is followed now, the line goes.
stale=$(while IFS= read -r re; do grep -qxE -- "$re" "$W/lines" || echo "$re"; done < "$W/known")
if [ -z "$stale" ]; then
	pass "6.12 vmlinux: every known difference from pahole 1.32 still occurs"
else
	fail "6.12 vmlinux: every known difference from pahole 1.32 still occurs" \
		"$(echo "$stale" | wc -l) no longer do (delete them): $(echo "$stale" | head -3 | tr '\n' '|')"
fi
echo "# 6.12 vmlinux against pahole 1.32: $n canonical differences, all listed in $(basename "$KNOWN")"
finish
