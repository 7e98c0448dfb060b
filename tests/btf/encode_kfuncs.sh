#!/usr/bin/env bash
# decl_tag_kfuncs: a "bpf_kfunc" DECL_TAG on the FUNC of each function that
# a kfunc set (BTF_KFUNCS_START: a __BTF_ID__set8__ symbol in .BTF_ids whose
# flags have BTF_SET8_KFUNCS) lists, and on no other; one tag for a function
# two kfunc sets list (6.12's bpf_modify_return_test_tp); a "bpf_fastcall"
# tag too when its BTF_ID_FLAGS have KF_FASTCALL (6.13+, pahole 1.28+); none
# without decl_tag.  The fixture lays out .BTF_ids as the kernel's macros
# do: two flagged sets and one plain set.  pahole 1.30's tags on the
# fixture (scripts/fetch-trixie.sh) must be ours.
# attributes (pahole 1.32): the pointers a kfunc's KF_ARENA_* flags name
# get "address_space(1)" on their target (a type tag with kind_flag): on
# arena_alloc's own prototype, as the plain function with the same one
# keeps it untouched, and on arena_free's prototype in place (no prototype
# left unused); only with decl_tag_kfuncs, and not as pahole 1.30; as
# sid's pahole 1.32 (scripts/fetch-sid.sh).
. "$(dirname "$0")/../lib.sh"

W=$_tmp
cat > "$W/kf.c" <<'SRC'
int my_kfunc(int x) { return x + 1; }
int fast_kfunc(int x) { return x + 2; }
int not_kfunc(int x) { return x - 1; }
void *arena_alloc(void *map, void *addr, unsigned int cnt) { return cnt ? addr : map; }
void *plain_ptr(void *map, void *addr, unsigned int cnt) { return cnt ? map : addr; }
int arena_free(void *map, void *ptr) { return map == ptr; }
int main(void)
{
	return my_kfunc(0) + fast_kfunc(0) + not_kfunc(1) - 4 + !!arena_alloc(0, 0, 0) +
	       !!plain_ptr(0, 0, 0) + arena_free(0, 0);
}
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
"__BTF_ID__func__arena_alloc__5:\n"
"	.zero 4\n"
"	.long 0xa000\n"		/* KF_ARENA_RET | KF_ARENA_ARG2 */
"__BTF_ID__func__arena_free__6:\n"
"	.zero 4\n"
"	.long 0xc000\n"		/* KF_ARENA_ARG1 | KF_ARENA_ARG2 */
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

want="arena_alloc:bpf_kfunc arena_free:bpf_kfunc fast_kfunc:bpf_fastcall fast_kfunc:bpf_kfunc my_kfunc:bpf_kfunc "
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

# attributes: FILE's BTF with default's features, and with attributes too.
# attrs FILE [MORE]: the `frugal btf diff` lines between the two, sorted.
attrs() {
	"$FRUGAL" btf encode --btf_features=default${2-} --btf_encode_detached="$W/plain.btf" "$1" &&
	"$FRUGAL" btf encode --btf_features=default${2-},attributes --btf_encode_detached="$W/attr.btf" "$1" ||
		{ echo "(the encoder failed)"; return; }
	"$FRUGAL" btf diff --full "$W/plain.btf" "$W/attr.btf" > "$W/attr.diff" 2>&1
	grep -E '^[-+~] ' "$W/attr.diff" | sort | tr '\n' '|'
}
for f in kf.o kf; do
	got=$(attrs "$W/$f")
	if [ "$got" = "~ func arena_alloc|~ func arena_free|" ]; then
		pass "attributes on $f: the two arena kfuncs change, nothing else"
	else fail "attributes on $f: the two arena kfuncs change, nothing else" "'$got'"; fi
	if grep -q 'return \*attr(address_space(1)) void' "$W/attr.diff" &&
	   [ "$(grep -c 'attr(address_space(1))' "$W/attr.diff")" = 4 ]; then
		pass "attributes on $f: arena_alloc's return and second argument, arena_free's two"
	else fail "attributes on $f: arena_alloc's return and second argument, arena_free's two" \
		"$(grep -c 'attr(' "$W/attr.diff") attr( lines: $(tr '\n' '|' < "$W/attr.diff" | head -c 600)"; fi
	# An attribute and a pointer per arena pointer (they come after the
	# last dedup: one each time), and one prototype, arena_alloc's own:
	# arena_free's changed in place.
	n0=$(bpftool btf dump file "$W/plain.btf" | grep -c '^\[')
	n1=$(bpftool btf dump file "$W/attr.btf" | grep -c '^\[')
	if [ "$n1" = $((n0 + 9)) ]; then
		pass "attributes on $f: 8 types (4 attributes, 4 pointers) and one prototype more"
	else fail "attributes on $f: 8 types (4 attributes, 4 pointers) and one prototype more" "$n0 -> $n1"; fi
done
got=$("$FRUGAL" btf encode --btf_features=var,decl_tag,attributes --btf_encode_detached="$W/a.btf" "$W/kf.o" &&
      "$FRUGAL" btf encode --btf_features=var,decl_tag --btf_encode_detached="$W/b.btf" "$W/kf.o" &&
      cmp "$W/a.btf" "$W/b.btf" && echo same)
if [ "$got" = same ]; then pass "attributes without decl_tag_kfuncs: nothing changes"
else fail "attributes without decl_tag_kfuncs: nothing changes" "the outputs differ"; fi
got=$(FRUGAL_PAHOLE_COMPAT=1.30 attrs "$W/kf.o")
if [ -z "$got" ]; then pass "attributes as pahole 1.30 (Debian's, libbpf 1.5): ignored"
else fail "attributes as pahole 1.30 (Debian's, libbpf 1.5): ignored" "'$got'"; fi
# Against sid's pahole 1.32 (scripts/fetch-sid.sh, fetched if not cached).
. "$(dirname "$0")/fetch.inc"
if fetch "attributes against pahole 1.32" fetch-sid.sh; then
	SID=$fetched/pahole
	for f in kf.o kf; do
		"$SID/bin/pahole" -J --btf_features=default,attributes --btf_encode_detached="$W/p132.btf" \
			"$W/$f" >/dev/null 2>&1
		"$FRUGAL" btf encode --pahole_compat=1.32 --btf_features=default,attributes \
			--btf_encode_detached="$W/f132.btf" "$W/$f"
		expect_exit "attributes on $f: no canonical difference from pahole 1.32" 0 \
			"$FRUGAL" btf diff -q "$W/p132.btf" "$W/f132.btf"
	done
fi

# The same against pahole 1.30 (Debian trixie's, scripts/fetch-trixie.sh).
fetch "kfunc tags as pahole 1.30's" fetch-trixie.sh --pahole || finish
P130=$fetched/pahole/bin/pahole
for f in kf.o kf; do
	for feats in default var,decl_tag_kfuncs; do
		ours=$(FRUGAL_PAHOLE_COMPAT=1.30 tags "$W/$f" --btf_features=$feats)
		theirs=$(PAHOLE=$P130 tags "$W/$f" --btf_features=$feats)
		if [ "$ours" = "$theirs" ]; then pass "kfunc tags on $f with $feats: as pahole 1.30's"
		else fail "kfunc tags on $f with $feats: as pahole 1.30's" "ours '$ours', pahole's '$theirs'"; fi
	done
done
finish
