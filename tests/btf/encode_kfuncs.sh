#!/usr/bin/env bash
# decl_tag_kfuncs: a "bpf_kfunc" DECL_TAG on the FUNC of each function that
# a kfunc set (BTF_KFUNCS_START: a __BTF_ID__set8__ symbol in .BTF_ids whose
# flags have BTF_SET8_KFUNCS) lists, and on no other.  The fixture lays out
# .BTF_ids as the kernel's macros do, one flagged set and one plain set.
. "$(dirname "$0")/../lib.sh"

W=$_tmp
cat > "$W/kf.c" <<'SRC'
int my_kfunc(int x) { return x + 1; }
int not_kfunc(int x) { return x - 1; }
int main(void) { return my_kfunc(0) + not_kfunc(1) - 2; }
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
"	.popsection\n");
SRC
if ! gcc -g -O1 -c "$W/kf.c" -o "$W/kf.o" 2>"$W/cc.err" ||
   ! gcc -g -O1 "$W/kf.c" -o "$W/kf" 2>>"$W/cc.err"; then
	fail "build the kfunc fixture" "$(head -1 "$W/cc.err")"
	finish
fi

# tags FILE FEATURES...: "FUNC-name" for each bpf_kfunc DECL_TAG, sorted.
tags() {
	local f=$1
	shift
	"$FRUGAL" btf encode "$@" --btf_encode_detached="$W/out.btf" "$f" || return 1
	bpftool btf dump file "$W/out.btf" | awk '
		/^\[[0-9]+\] FUNC / { id = substr($1, 2, length($1) - 2); gsub("\x27", "", $3); fn[id] = $3 }
		/DECL_TAG .bpf_kfunc./ { split($4, a, "="); print fn[a[2]] }' | sort | tr '\n' ' '
}

for f in kf.o kf; do
	got=$(tags "$W/$f" --btf_features=default)
	if [ "$got" = "my_kfunc " ]; then pass "decl_tag_kfuncs on $f: only the kfunc set's function is tagged"
	else fail "decl_tag_kfuncs on $f: only the kfunc set's function is tagged" "tagged: '$got'"; fi
	got=$(tags "$W/$f")
	if [ -z "$got" ]; then pass "without decl_tag_kfuncs on $f: no tag"
	else fail "without decl_tag_kfuncs on $f: no tag" "tagged: '$got'"; fi
done
finish
