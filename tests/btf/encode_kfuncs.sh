#!/usr/bin/env bash
# decl_tag_kfuncs: a "bpf_kfunc" DECL_TAG on the FUNC of each function that
# a kfunc set (BTF_KFUNCS_START: a __BTF_ID__set8__ symbol in .BTF_ids whose
# flags have BTF_SET8_KFUNCS) lists, and on no other; one tag for a function
# two kfunc sets list (6.12's bpf_modify_return_test_tp); a "bpf_fastcall"
# tag too when its BTF_ID_FLAGS have KF_FASTCALL (6.13+, pahole 1.28+); none
# without decl_tag.  The fixture lays out .BTF_ids as the kernel's macros
# do: two flagged sets and one plain set.  Where scripts/fetch-trixie.sh has
# cached pahole 1.30, its tags on the fixture must be ours.
. "$(dirname "$0")/../lib.sh"

W=$_tmp
cat > "$W/kf.c" <<'SRC'
int my_kfunc(int x) { return x + 1; }
int fast_kfunc(int x) { return x + 2; }
int not_kfunc(int x) { return x - 1; }
int main(void) { return my_kfunc(0) + fast_kfunc(0) + not_kfunc(1) - 4; }
__asm__(
"	.pushsection .BTF_ids,\"a\"\n"
"	.local __BTF_ID__set8__kfuncs\n"
"	.type __BTF_ID__set8__kfuncs, @object\n"
"__BTF_ID__set8__kfuncs:\n"
"	.zero 4\n"
"	.long 1\n"			/* flags: BTF_SET8_KFUNCS */
"__BTF_ID__func__my_kfunc__1:\n"
"	.zero 4\n"
"	.long 0\n"
"__BTF_ID__func__fast_kfunc__3:\n"
"	.zero 4\n"
"	.long 0x1000\n"		/* KF_FASTCALL */
"	.size __BTF_ID__set8__kfuncs, . - __BTF_ID__set8__kfuncs\n"
"	.local __BTF_ID__set8__plain\n"
"	.type __BTF_ID__set8__plain, @object\n"
"__BTF_ID__set8__plain:\n"
"	.zero 4\n"
"	.long 0\n"			/* flags: none, not kfuncs */
"__BTF_ID__func__not_kfunc__2:\n"
"	.zero 4\n"
"	.long 0\n"
"	.size __BTF_ID__set8__plain, . - __BTF_ID__set8__plain\n"
"	.local __BTF_ID__set8__more\n"
"	.type __BTF_ID__set8__more, @object\n"
"__BTF_ID__set8__more:\n"
"	.zero 4\n"
"	.long 1\n"			/* a second kfunc set, my_kfunc again */
"__BTF_ID__func__my_kfunc__4:\n"
"	.zero 4\n"
"	.long 0\n"
"	.size __BTF_ID__set8__more, . - __BTF_ID__set8__more\n"
"	.popsection\n");
SRC
if ! gcc -g -O1 -c "$W/kf.c" -o "$W/kf.o" 2>"$W/cc.err" ||
   ! gcc -g -O1 "$W/kf.c" -o "$W/kf" 2>>"$W/cc.err"; then
	fail "build the kfunc fixture" "$(head -1 "$W/cc.err")"
	finish
fi

# tags FILE FEATURES...: "FUNC-name:tag" for each kfunc DECL_TAG, sorted.
# An encoder that fails says so in the output, which then matches neither a
# tag list nor the empty "no tag": the checks of no tag cannot pass on it.
PAHOLE=${PAHOLE:-}
tags() {
	local f=$1 rc=0
	shift
	rm -f "$W/out.btf"
	if [ -n "$PAHOLE" ]; then
		"$PAHOLE" -J "$@" --btf_encode_detached="$W/out.btf" "$f" >/dev/null 2>&1 || rc=$?
	else
		"$FRUGAL" btf encode "$@" --btf_encode_detached="$W/out.btf" "$f" || rc=$?
	fi
	if [ $rc != 0 ] || [ ! -s "$W/out.btf" ]; then
		echo "(the encoder failed: exit $rc)"
		return 1
	fi
	bpftool btf dump file "$W/out.btf" | awk '
		/^\[[0-9]+\] FUNC / { id = substr($1, 2, length($1) - 2); gsub("\x27", "", $3); fn[id] = $3 }
		/DECL_TAG .bpf_(kfunc|fastcall)./ { split($4, a, "="); gsub("\x27", "", $3); print fn[a[2]] ":" $3 }' |
		sort | tr '\n' ' '
}

want="fast_kfunc:bpf_fastcall fast_kfunc:bpf_kfunc my_kfunc:bpf_kfunc "
for f in kf.o kf; do
	got=$(tags "$W/$f" --btf_features=default)
	if [ "$got" = "$want" ]; then pass "decl_tag_kfuncs on $f: the kfunc sets' functions, once each, fastcall too"
	else fail "decl_tag_kfuncs on $f: the kfunc sets' functions, once each, fastcall too" "tagged: '$got'"; fi
	got=$(tags "$W/$f")
	if [ -z "$got" ]; then pass "without decl_tag_kfuncs on $f: no tag"
	else fail "without decl_tag_kfuncs on $f: no tag" "tagged: '$got'"; fi
	got=$(tags "$W/$f" --btf_features=var,decl_tag_kfuncs)
	if [ -z "$got" ]; then pass "decl_tag_kfuncs without decl_tag on $f: no tag"
	else fail "decl_tag_kfuncs without decl_tag on $f: no tag" "tagged: '$got'"; fi
done

# The same against pahole 1.30 (Debian trixie's, scripts/fetch-trixie.sh).
T130=$(bash "$TOP/scripts/fetch-trixie.sh" --pahole 2>"$W/fetch.err")
case $? in
0) P130=$T130/pahole/bin/pahole ;;
3) skip "kfunc tags as pahole 1.30's" "Debian trixie unreachable: $(tail -1 "$W/fetch.err")"
   finish ;;
*) fail "fetch pahole 1.30" "$(tail -1 "$W/fetch.err")"
   finish ;;
esac
for f in kf.o kf; do
	for feats in default var,decl_tag_kfuncs; do
		ours=$(tags "$W/$f" --btf_features=$feats)
		theirs=$(PAHOLE=$P130 tags "$W/$f" --btf_features=$feats)
		if [ "$ours" = "$theirs" ]; then pass "kfunc tags on $f with $feats: as pahole 1.30's"
		else fail "kfunc tags on $f with $feats: as pahole 1.30's" "ours '$ours', pahole's '$theirs'"; fi
	done
done
finish
