#!/usr/bin/env bash
# The real-kernel equivalence check: Debian's cloud kernel debug package
# (scripts/fetch-kernel-dbg.sh), vmlinux and a spread of modules, encoded by
# pahole 1.24 and by frugal with the same features and compared with
# `frugal btf diff`.  Types must match exactly; FUNC/VAR/DATASEC/DECL_TAG
# differences must each match a known, documented pattern
# (tests/btf/kernel-known-diffs.txt, explained in docs/btf.md).  Modules are
# split BTF: pahole's on pahole's vmlinux BTF, ours on our own.  The .BTF
# Debian ships is a further reference: frugal must be no further from it
# than pahole is.
#
# pahole's outputs are cached beside the package, keyed by its version.
# FRUGAL_KERNEL_MODULES (default 60) sets how many modules are checked;
# FRUGAL_SKIP_KERNEL=1 skips the whole check (say so: it is CI's job).
. "$(dirname "$0")/../lib.sh"

PAHOLE=${PAHOLE:-/usr/bin/pahole}
NMOD=${FRUGAL_KERNEL_MODULES:-60}
CACHE=${FRUGAL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/frugal}
KNOWN=$TOP/tests/btf/kernel-known-diffs.txt
# What a 6.1 kernel build passes to pahole 1.24 (scripts/pahole-flags.sh):
# pahole 1.24's switches only, so frugal follows pahole 1.24's rules here
# (BTF_RULES_PAHOLE_1_24; kernel612.sh checks pahole 1.30's).
FEATS="--btf_gen_floats --lang_exclude=rust"
W=$_tmp

if [ "${FRUGAL_SKIP_KERNEL:-0}" = 1 ]; then
	skip "kernel equivalence" "FRUGAL_SKIP_KERNEL=1"
	finish
fi
. "$(dirname "$0")/fetch.inc"
fetch "kernel equivalence (the kernel debug package)" fetch-kernel-dbg.sh || finish
KDIR=$fetched
read -r PKG PKGVER < "$KDIR/PACKAGE"
VMLINUX=$KDIR/vmlinux

# ---- pahole's reference outputs, cached --------------------------------------
pver=$("$PAHOLE" --version)
REF=$CACHE/btf-ref/$PKGVER-pahole-$pver-$(printf '%s' "$FEATS" | tr -c 'a-z0-9' _)
mkdir -p "$REF/modules"
exec 8>"$REF.lock"
flock 8	# another run filling the same cache: wait for it, then reuse its work

# The modules: NMOD spread evenly over all of them sorted by size.
find -L "$KDIR/modules" -name '*.ko' -printf '%s %P\n' | sort -n -k1,1 -k2 > "$W/all-mods"
total=$(wc -l < "$W/all-mods")
awk -v n="$NMOD" -v t="$total" 'BEGIN { for (i = 0; i < n && i < t; i++) pick[int(i * (t - 1) / (n > 1 ? n - 1 : 1)) + 1] = 1 }
	pick[NR] { print $2 }' "$W/all-mods" > "$W/mods"
nmods=$(wc -l < "$W/mods")
. "$(dirname "$0")/refs.inc"

# pahole -j1: pahole 1.24 with -j2 or more gives a different set of FUNCs
# from run to run; single-threaded it is deterministic.
make_refs 1 || finish

flock -u 8

# ---- frugal ----------------------------------------------------------------------
t0=$(date +%s)
if ! "$FRUGAL" btf encode -j2 $FEATS --btf_encode_detached="$W/vmlinux.btf" "$VMLINUX" \
	2>"$W/enc.err"; then
	fail "frugal encodes vmlinux" "$(head -1 "$W/enc.err")"
	finish
fi
pass "frugal encodes vmlinux ($(( $(date +%s) - t0 )) s at -j2)"

# Known decl differences: each non-comment line of KNOWN is an extended
# regex matched against whole lines of the diff: "- func NAME",
# "+ var NAME", "~ datasec NAME" and the changed lines under it.
grep -v '^[[:space:]]*\(#\|$\)' "$KNOWN" 2>/dev/null > "$W/known" || : > "$W/known"
unexplained() { # diff output on stdin -> lines no known pattern explains
	grep -v '^[0-9]* differences*$' | if [ -s "$W/known" ]; then grep -vxEf "$W/known"; else cat; fi
}
count_diffs() { # diff's differences; an unreadable input counts as very different
	local out rc
	out=$("$FRUGAL" btf diff "$@" 2>&1)
	rc=$?
	if [ $rc -gt 1 ]; then echo 999999; return; fi
	printf '%s\n' "$out" | grep -c '^[-+~] '
}

d=$("$FRUGAL" btf diff --kinds types "$REF/vmlinux.btf" "$W/vmlinux.btf" 2>&1)
case $? in
0) pass "vmlinux: no type differs from pahole's" ;;
*) fail "vmlinux: no type differs from pahole's" \
	"$(echo "$d" | tail -1): $(echo "$d" | grep '^[-+~] ' | head -5 | tr '\n' '|')" ;;
esac
"$FRUGAL" btf diff --kinds decls "$REF/vmlinux.btf" "$W/vmlinux.btf" > "$W/vmlinux.decls" 2>&1
ndecl=$(grep -c '^[-+~] ' "$W/vmlinux.decls")
bad=$(unexplained < "$W/vmlinux.decls")
if [ -z "$bad" ]; then
	pass "vmlinux: every FUNC/VAR difference is a known one ($ndecl)"
else
	fail "vmlinux: every FUNC/VAR difference is a known one" \
		"$(echo "$bad" | wc -l) lines of $ndecl differences unexplained: $(echo "$bad" | head -5 | tr '\n' '|')"
fi

# Determinism on a real input: -j1 gives the same bytes as -j2.
if "$FRUGAL" btf encode -j1 $FEATS --btf_encode_detached="$W/vmlinux-j1.btf" "$VMLINUX" 2>/dev/null &&
   cmp -s "$W/vmlinux.btf" "$W/vmlinux-j1.btf"; then
	pass "vmlinux: -j1 and -j2 give byte-identical BTF"
else
	fail "vmlinux: -j1 and -j2 give byte-identical BTF" "outputs differ (or -j1 failed)"
fi
rm -f "$W/vmlinux-j1.btf"

# Debian's own .BTF: frugal no further from it than pahole 1.24 -j1 is.
# Debian's build ran pahole with -j (whose FUNC set varies with threads),
# so both differ from it a little; we must not differ more, type by type.
pt=$(count_diffs --kinds types "$VMLINUX" "$REF/vmlinux.btf")
ft=$(count_diffs --kinds types "$VMLINUX" "$W/vmlinux.btf")
pd=$(count_diffs --kinds decls "$VMLINUX" "$REF/vmlinux.btf")
fd=$(count_diffs --kinds decls "$VMLINUX" "$W/vmlinux.btf")
if [ "$ft" -le "$pt" ]; then
	pass "vmlinux vs Debian's .BTF: $ft type differences (pahole: $pt); decls $fd (pahole: $pd)"
else
	fail "vmlinux vs Debian's .BTF: no more type differences than pahole" \
		"frugal $ft, pahole $pt; decls frugal $fd, pahole $pd"
fi

# ---- modules: split BTF, ours on our vmlinux, pahole's on pahole's ----------------
# One job per module, two at a time: encode, compare types, compare decls,
# and count differences from the .BTF Debian ships in the module.  Each job
# leaves "$W/res/NAME": a verdict line ("ok" or "fail REASON"), then
# "PAHOLE_DEBIAN_DIFFS FRUGAL_DEBIAN_DIFFS".
check_module() {
	local mod=$1 m d bad pt ft
	m=$(modname "$mod")
	local ref=$REF/modules/$m.btf out=$W/mods.out/$m.btf res=$W/res/$m
	local bases=(--base-a "$REF/vmlinux.btf" --base-b "$W/vmlinux.btf")
	if [ ! -s "$ref" ]; then
		echo "fail no pahole reference" > "$res"
		return
	fi
	if ! "$FRUGAL" btf encode -j1 $FEATS --btf_base="$W/vmlinux.btf" \
		--btf_encode_detached="$out" "$KDIR/modules/$mod" 2>"$out.err" || [ ! -s "$out" ]; then
		echo "fail frugal btf encode failed: $(head -1 "$out.err")" > "$res"
		return
	fi
	d=$("$FRUGAL" btf diff --kinds types "${bases[@]}" "$ref" "$out" 2>&1)
	if [ $? -ne 0 ]; then
		echo "fail types differ: $(echo "$d" | grep '^[-+~] ' | head -4 | tr '\n' '|')" > "$res"
		return
	fi
	bad=$("$FRUGAL" btf diff --kinds decls "${bases[@]}" "$ref" "$out" 2>&1 | unexplained)
	if [ -n "$bad" ]; then
		echo "fail unexplained FUNC/VAR differences: $(echo "$bad" | head -4 | tr '\n' '|')" > "$res"
		return
	fi
	pt=$(count_diffs --kinds types --base-a "$VMLINUX" --base-b "$REF/vmlinux.btf" \
		"$KDIR/modules/$mod" "$ref")
	ft=$(count_diffs --kinds types --base-a "$VMLINUX" --base-b "$W/vmlinux.btf" \
		"$KDIR/modules/$mod" "$out")
	printf 'ok\n%s %s\n' "$pt" "$ft" > "$res"
}
mkdir -p "$W/mods.out" "$W/res"
export FRUGAL W VMLINUX
export -f check_module unexplained count_diffs
xargs -P2 -I{} bash -c 'check_module "$1"' _ {} < "$W/mods"

nok=0 nfail=0 pt=0 ft=0
while read -r mod; do
	m=$(modname "$mod")
	verdict=$(head -1 "$W/res/$m" 2>/dev/null)
	if [ "$verdict" = ok ]; then
		nok=$((nok + 1))
		read -r a b < <(sed -n 2p "$W/res/$m")
		pt=$((pt + a)) ft=$((ft + b))
	else
		fail "module $mod ($(stat -L -c %s "$KDIR/modules/$mod") bytes)" "${verdict#fail }"
		nfail=$((nfail + 1))
	fi
done < "$W/mods"
if [ "$nok" -eq "$nmods" ] && [ "$nmods" -ge 50 ]; then
	pass "modules: all $nmods (of $total) equivalent to pahole's"
else
	fail "modules: all $nmods (of $total) equivalent to pahole's" "$nok equivalent, $nfail not"
fi
if [ "$nok" -gt 0 ] && [ "$ft" -le "$pt" ]; then
	pass "modules vs Debian's .BTF: $ft type differences in all $nok (pahole: $pt)"
else
	fail "modules vs Debian's .BTF: no more type differences than pahole" "frugal $ft, pahole $pt, in $nok modules"
fi

finish
