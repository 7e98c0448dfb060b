#!/usr/bin/env bash
# The --btf_features that came after pahole 1.24, on fixtures built here:
#  - consistent_func: a static function defined in two CUs with different
#    prototypes gets no FUNC; without it the first CU's FUNC stays.
#  - optimized_func: gcc -O2 clones (name.constprop.0) get a FUNC named after
#    the function, unless the clone's and the original's prototypes
#    disagree; without it they get none.
#  - global_var: a VAR for every global with an address, in the DATASEC of
#    its section at the symbol's offset and size (checked against readelf),
#    in an executable and in relocatable objects (ET_REL, as modules are).
#  - pahole 1.32's names: --supported_btf_features lists what we honour, in
#    pahole's order; under --btf_features_strict a name pahole knows that we
#    cannot honour (layout, distilled_base, ...) is ignored with exit 0, as
#    pahole ignores what its libbpf cannot encode; an unknown one exits 1
#    with one line naming it and the supported list.
. "$(dirname "$0")/../lib.sh"

W=$_tmp

# funcs FILE FEATURES: "name/nparams" of every FUNC, sorted, under pahole
# 1.30's rules (1.32's, frugal's default, leave out more: below).
funcs() {
	"$FRUGAL" btf encode --pahole_compat=1.30 --btf_features="$2" --btf_encode_detached="$W/out.btf" "$1" ||
		return 1
	bpftool btf dump file "$W/out.btf" | awk '
		/^\[[0-9]+\] FUNC_PROTO / { id = substr($1, 2, length($1) - 2); v = $NF; sub("vlen=", "", v); n[id] = v }
		/^\[[0-9]+\] FUNC / { gsub("\x27", "", $3); t = $4; sub("type_id=", "", t); print $3 "/" n[t] }' |
		sort | tr '\n' ' '
}

# ---- consistent_func --------------------------------------------------------
cat > "$W/a.c" <<'SRC'
static int __attribute__((noipa)) helper(int a, int b) { return a * b + 1; }
int use_a(int v) { return helper(v, 3); }
SRC
cat > "$W/b.c" <<'SRC'
static long __attribute__((noipa)) helper(long a) { return a + 7; }
int use_b(int v) { return (int)helper(v); }
int main(void) { return use_b(1) - 8; }
SRC
cat > "$W/c.c" <<'SRC'
static int __attribute__((noipa)) helper(int x, int y) { return x - y; }
int use_c(int v) { return helper(v, 1); }
int main(void) { return use_c(1); }
SRC
if ! gcc -g -O2 "$W/a.c" "$W/b.c" -o "$W/ab" 2>"$W/cc.err" ||
   ! gcc -g -O2 "$W/a.c" "$W/c.c" -o "$W/ac" 2>>"$W/cc.err"; then
	fail "build the consistent_func fixtures" "$(head -1 "$W/cc.err")"
	finish
fi
got=$(funcs "$W/ab" var)
if [ "$got" = "helper/2 main/0 use_a/1 use_b/1 " ]; then
	pass "without consistent_func: the first CU's helper(a, b) has the FUNC"
else fail "without consistent_func: the first CU's helper(a, b) has the FUNC" "got '$got'"; fi
got=$(funcs "$W/ab" var,consistent_func)
if [ "$got" = "main/0 use_a/1 use_b/1 " ]; then
	pass "consistent_func: helper defined with two prototypes has no FUNC"
else fail "consistent_func: helper defined with two prototypes has no FUNC" "got '$got'"; fi
# Same types, other parameter names: pahole's match looks at types only.
got=$(funcs "$W/ac" var,consistent_func)
if [ "$got" = "helper/2 main/0 use_a/1 use_c/1 " ]; then
	pass "consistent_func: helper defined twice with the same types keeps its FUNC"
else fail "consistent_func: helper defined twice with the same types keeps its FUNC" "got '$got'"; fi

# ---- optimized_func ---------------------------------------------------------
# gcc -O2 clones both: scale() drops 'unused' (its clone's parameters keep
# the order), shift() too, but its clone lists 'v' first, so the clone's
# prototype (int, long) disagrees with shift's (long, int).
cat > "$W/o.c" <<'SRC'
static int __attribute__((noinline)) scale(int v, int unused) { return v * 2; }
static int __attribute__((noinline)) shift(long unused, int v) { return v * 3; }
int run(int x, int y) { return scale(x, y) + scale(y, x) + shift(x, y) + shift(y, x); }
int main(int argc, char **argv) { (void)argv; return run(argc, argc + 1); }
SRC
if ! gcc -g -O2 "$W/o.c" -o "$W/o" 2>"$W/cc.err"; then
	fail "build the optimized_func fixture" "$(head -1 "$W/cc.err")"
	finish
fi
clones=$(nm "$W/o" | awk '$3 ~ /^(scale|shift)\./ { print $3 }' | sort | tr '\n' ' ')
if [ "$clones" != "scale.constprop.0 shift.constprop.0 " ]; then
	skip "optimized_func" "gcc made other clones than expected: '$clones'"
else
	got=$(funcs "$W/o" var)
	if [ "$got" = "main/2 run/2 " ]; then pass "without optimized_func: clones get no FUNC"
	else fail "without optimized_func: clones get no FUNC" "got '$got'"; fi
	got=$(funcs "$W/o" var,optimized_func)
	if [ "$got" = "main/2 run/2 scale/2 " ]; then
		pass "optimized_func: scale.constprop.0 gives FUNC scale(v, unused); shift's prototypes disagree"
	else fail "optimized_func: scale.constprop.0 gives FUNC scale(v, unused); shift's prototypes disagree" "got '$got'"; fi
	got=$(funcs "$W/o" default)
	if [ "$got" = "main/2 run/2 scale/2 " ]; then pass "--btf_features=default includes optimized_func"
	else fail "--btf_features=default includes optimized_func" "got '$got'"; fi
fi

# ---- pahole 1.32's names -----------------------------------------------------
SUPPORTED=encode_force,var,float,decl_tag,type_tag,enum64,optimized_func,consistent_func,decl_tag_kfuncs,reproducible_build,global_var,attributes
expect_exit "--supported_btf_features: exit 0" 0 "$FRUGAL" btf encode --supported_btf_features
if [ "$out" = "$SUPPORTED" ] && [ -z "$err" ]; then pass "--supported_btf_features: the honoured features, pahole's order"
else fail "--supported_btf_features: the honoured features, pahole's order" "got '$out' (stderr '$err')"; fi
# Against sid's pahole 1.32 (scripts/fetch-sid.sh, fetched here if it is
# not cached yet): ours is its list less the names we do not honour, in the
# same order.  Each comparison with it below is made, or this fetch said
# why not (a skip only when Debian cannot be reached).
. "$(dirname "$0")/fetch.inc"
SID=/nonexistent
fetch "pahole 1.32 (sid's), for the comparisons with it" fetch-sid.sh && SID=$fetched/pahole
NOSID="no pahole 1.32 (see its fetch above)"
if [ -s "$SID/VERSION" ]; then
	theirs=$("$SID/bin/pahole" --supported_btf_features |
		tr ',' '\n' | grep -vxE 'distilled_base|true_signature|force_cu_merging|layout' | paste -sd,)
	if [ "$theirs" = "$out" ]; then pass "--supported_btf_features: sid's pahole 1.32's list less what we do not honour"
	else fail "--supported_btf_features: sid's pahole 1.32's list less what we do not honour" "pahole: '$theirs', ours: '$out'"; fi
else
	skip "--supported_btf_features against pahole 1.32" "$NOSID"
fi
"$FRUGAL" btf encode --btf_features=var,optimized_func --btf_encode_detached="$W/plain.btf" "$W/o"
for f in layout distilled_base true_signature force_cu_merging; do
	rm -f "$W/strict.btf"
	expect_exit "--btf_features_strict=...,$f: known to pahole 1.32, ignored, exit 0" 0 \
		"$FRUGAL" btf encode --btf_features_strict=var,optimized_func,$f \
		--btf_encode_detached="$W/strict.btf" "$W/o"
	if cmp -s "$W/plain.btf" "$W/strict.btf"; then pass "--btf_features_strict=...,$f: the same BTF as without it"
	else fail "--btf_features_strict=...,$f: the same BTF as without it" "output differs or missing"; fi
done
rm -f "$W/strict.btf"
expect_exit "--btf_features_strict with an unknown name: exit 1, as pahole 1.32" 1 \
	"$FRUGAL" btf encode --btf_features_strict=var,bogus --btf_encode_detached="$W/strict.btf" "$W/o"
if [ "$(wc -l <<<"$err")" = 1 ] && grep -q "'bogus'.*$SUPPORTED\$" <<<"$err" && [ ! -e "$W/strict.btf" ]; then
	pass "--btf_features_strict with an unknown name: one line naming it and the supported list, no output"
else fail "--btf_features_strict with an unknown name: one line naming it and the supported list, no output" "stderr: $err"; fi
expect_exit "--btf_features with an unknown name: ignored, exit 0" 0 \
	"$FRUGAL" btf encode --btf_features=var,optimized_func,bogus --btf_encode_detached="$W/strict.btf" "$W/o"

# ---- --pahole_compat: which release --version names ------------------------------
ln -sf "$FRUGAL" "$W/pahole"
for v in "" 1.24 1.30 1.32; do
	want=v${v:-1.32}
	got=$("$W/pahole" ${v:+--pahole_compat=$v} --version)
	if [ "$got" = "$want" ]; then pass "pahole ${v:+--pahole_compat=$v }--version: $want"
	else fail "pahole ${v:+--pahole_compat=$v }--version: $want" "got '$got'"; fi
done
expect_exit "--pahole_compat=1.31: a usage error" 2 "$FRUGAL" btf encode --pahole_compat=1.31 "$W/o"
# A kernel build's $(PAHOLE) is one word: the environment carries the choice.
got=$(FRUGAL_PAHOLE_COMPAT=1.30 "$W/pahole" --version)
if [ "$got" = v1.30 ]; then pass "FRUGAL_PAHOLE_COMPAT=1.30 pahole --version: v1.30"
else fail "FRUGAL_PAHOLE_COMPAT=1.30 pahole --version: v1.30" "got '$got'"; fi
got=$(FRUGAL_PAHOLE_COMPAT=1.30 "$W/pahole" --pahole_compat=1.32 --version)
if [ "$got" = v1.32 ]; then pass "--pahole_compat wins over FRUGAL_PAHOLE_COMPAT"
else fail "--pahole_compat wins over FRUGAL_PAHOLE_COMPAT" "got '$got'"; fi
FRUGAL_PAHOLE_COMPAT=1.31 expect_exit "FRUGAL_PAHOLE_COMPAT=1.31: a usage error" 2 "$W/pahole" --version

# ---- multi-dimensional arrays: one ARRAY up to 1.30, nested from 1.32 -----------------
cat > "$W/md.c" <<'SRC'
struct md { char comm[16][16]; int m[2][3][4]; long flex[]; };
struct md g; int one[5];
int main(void) { return g.comm[1][2] + g.m[1][2][3] + one[1]; }
SRC
# arrays FILE COMPAT: each member's array chain, outer to inner, "m:2x3x4".
arrays() {
	"$FRUGAL" btf encode --pahole_compat="$2" --btf_encode_detached="$W/md.btf" "$1" || return 1
	bpftool btf dump file "$W/md.btf" | awk '
		/^\[[0-9]+\] ARRAY / { id = substr($1, 2, length($1) - 2); t = $4; n = $NF
			sub("type_id=", "", t); sub("nr_elems=", "", n); to[id] = t; ne[id] = n; next }
		/^\[[0-9]+\] STRUCT .md./ { in_md = 1; next }
		/^\[/ { in_md = 0 }
		in_md { gsub("\x27", "", $1); t = $2; sub("type_id=", "", t); mt[$1] = t }
		END { for (m in mt) { s = m ":"; t = mt[m]; sep = ""
			while (t in ne) { s = s sep ne[t]; sep = "x"; t = to[t] } print s } }' | sort | tr '\n' ' '
}
if ! gcc -g -O0 "$W/md.c" -o "$W/md" 2>"$W/cc.err"; then
	fail "build the array fixture" "$(head -1 "$W/cc.err")"
else
	got=$(arrays "$W/md" 1.30)
	if [ "$got" = "comm:256 flex:0 m:24 " ]; then pass "--pahole_compat=1.30: T a[16][16] is one ARRAY of 256"
	else fail "--pahole_compat=1.30: T a[16][16] is one ARRAY of 256" "got '$got'"; fi
	got=$(arrays "$W/md" 1.32)
	if [ "$got" = "comm:16x16 flex:0 m:2x3x4 " ]; then pass "--pahole_compat=1.32: T a[2][3][4] is nested ARRAYs, outer first"
	else fail "--pahole_compat=1.32: T a[2][3][4] is nested ARRAYs, outer first" "got '$got'"; fi
	if [ ! -s "$SID/VERSION" ]; then
		skip "arrays against pahole 1.32" "$NOSID"
	elif ! "$SID/bin/pahole" -J --btf_encode_detached="$W/md.ref" "$W/md" 2>"$W/p.err"; then
		fail "--pahole_compat=1.32: the arrays as pahole 1.32 writes them" "pahole 1.32 failed: $(head -1 "$W/p.err")"
	else
		"$FRUGAL" btf encode --pahole_compat=1.32 --btf_encode_detached="$W/md.btf" "$W/md"
		d=$("$FRUGAL" btf diff "$W/md.ref" "$W/md.btf" 2>&1)
		if [ $? = 0 ]; then pass "--pahole_compat=1.32: the arrays as pahole 1.32 writes them"
		else fail "--pahole_compat=1.32: the arrays as pahole 1.32 writes them" "$(echo "$d" | head -5 | tr '\n' '|')"; fi
	fi
fi

# ---- pahole 1.32's function rules ----------------------------------------------------
# hook: a weak stub (parameter 'unused') in a.c, the strong definition
# ('regs') in b.c, linked in that order: 1.30 takes the first CU's
# prototype, 1.32 the one at the symbol's address.  dup: a static function
# of each of two CUs, two symbols at two addresses: 1.32 gives it no FUNC
# ("ambiguous address").  scale.constprop.0 (above): its parameter
# 'unused' is optimized out, so 1.32 gives it no FUNC either.
cat > "$W/wa.c" <<'SRC'
__attribute__((weak, noipa)) int hook(int unused) { return 0; }
int use_a(int v) { return hook(v); }
SRC
cat > "$W/wb.c" <<'SRC'
__attribute__((noipa)) int hook(int regs) { return regs + 1; }
int main(void) { return hook(1); }
SRC
cat > "$W/wc.c" <<'SRC'
static __attribute__((noipa)) int dup(int x) { return x * 3; }
int use_c(int v) { return dup(v); }
SRC
sed 's/x \* 3/x * 5/; s/use_c/use_d/' "$W/wc.c" > "$W/wd.c"
# protos FILE COMPAT: "name(param,...)" of every FUNC, sorted.
protos() {
	"$FRUGAL" btf encode --pahole_compat="$2" --btf_features=var,consistent_func,optimized_func \
		--btf_encode_detached="$W/fr.btf" "$1" || return 1
	bpftool btf dump file "$W/fr.btf" | awk '
		/^\[[0-9]+\] FUNC_PROTO / { id = substr($1, 2, length($1) - 2); cur = id; p[id] = ""; next }
		/^\[[0-9]+\] FUNC / { cur = ""; gsub("\x27", "", $3); t = $4; sub("type_id=", "", t); f[$3] = t; next }
		/^\[/ { cur = "" }
		cur != "" { n = $1; gsub("\x27", "", n); p[cur] = p[cur] (p[cur] == "" ? "" : ",") n }
		END { for (k in f) print k "(" p[f[k]] ")" }' | sort | tr '\n' ' '
}
if ! gcc -g -O2 "$W/wa.c" "$W/wb.c" "$W/wc.c" "$W/wd.c" -o "$W/wk" 2>"$W/cc.err"; then
	fail "build the weak/ambiguous fixture" "$(head -1 "$W/cc.err")"
elif [ "$(nm "$W/wk" | grep -c ' t dup$')" != 2 ]; then
	skip "pahole 1.32's function rules" "gcc did not keep two dup: $(nm "$W/wk" | grep dup | tr '\n' ' ')"
else
	got=$(protos "$W/wk" 1.30)
	want="dup(x) hook(unused) main() use_a(v) use_c(v) use_d(v) "
	if [ "$got" = "$want" ]; then pass "--pahole_compat=1.30: the first CU's hook, dup of two addresses kept"
	else fail "--pahole_compat=1.30: the first CU's hook, dup of two addresses kept" "got '$got'"; fi
	got=$(protos "$W/wk" 1.32)
	want="hook(regs) main() use_a(v) use_c(v) use_d(v) "
	if [ "$got" = "$want" ]; then pass "--pahole_compat=1.32: the strong hook's prototype, no FUNC for an ambiguous address"
	else fail "--pahole_compat=1.32: the strong hook's prototype, no FUNC for an ambiguous address" "got '$got'"; fi
	if [ "$clones" = "scale.constprop.0 shift.constprop.0 " ]; then
		got=$(protos "$W/o" 1.32)
		if [ "$got" = "main(argc,argv) run(x,y) " ]; then
			pass "--pahole_compat=1.32: no FUNC for scale.constprop.0, its parameter optimized out"
		else fail "--pahole_compat=1.32: no FUNC for scale.constprop.0, its parameter optimized out" "got '$got'"; fi
	fi
	# Each fixture against pahole 1.32 itself.
	if [ -s "$SID/VERSION" ]; then
		for fx in wk o md ab ac; do
			"$SID/bin/pahole" -J --btf_features=var,consistent_func,optimized_func \
				--btf_encode_detached="$W/$fx.ref" "$W/$fx" >/dev/null 2>&1
			"$FRUGAL" btf encode --pahole_compat=1.32 --btf_features=var,consistent_func,optimized_func \
				--btf_encode_detached="$W/$fx.132" "$W/$fx"
			d=$("$FRUGAL" btf diff "$W/$fx.ref" "$W/$fx.132" 2>&1)
			if [ $? = 0 ]; then pass "--pahole_compat=1.32 on fixture $fx: as pahole 1.32"
			else fail "--pahole_compat=1.32 on fixture $fx: as pahole 1.32" "$(echo "$d" | head -5 | tr '\n' '|')"; fi
		done
	else
		skip "fixtures against pahole 1.32" "$NOSID"
	fi
fi

# ---- tests/btf/fixtures against pahole 1.32 --------------------------------------------
# The shared fixtures (types, tags, a program of several units), gcc and
# clang, DWARF 4 and 5, -O0 and -O2, with 6.12's feature list.
FX=$TOP/tests/btf/fixtures
KFEATS=--btf_features=encode_force,var,float,enum64,decl_tag,type_tag,optimized_func,consistent_func,decl_tag_kfuncs
if [ ! -s "$SID/VERSION" ]; then
	skip "tests/btf/fixtures against pahole 1.32" "$NOSID"
else
	bad= n=0
	for cc in gcc clang; do
		command -v $cc >/dev/null || continue
		for dv in 4 5; do for o in 0 2; do
			p=$W/fx-$cc-$dv-$o
			$cc -g -gdwarf-$dv -O$o -c "$FX/types.c" -o "$p-types.o" 2>/dev/null
			$cc -g -gdwarf-$dv -O$o -c "$FX/tags.c" -o "$p-tags.o" 2>/dev/null
			$cc -g -gdwarf-$dv -O$o "$FX/dup_a.c" "$FX/dup_b.c" "$FX/types.c" -o "$p-prog" 2>/dev/null
			for f in "$p-types.o" "$p-tags.o" "$p-prog"; do
				[ -s "$f" ] || continue
				"$SID/bin/pahole" -J $KFEATS --btf_encode_detached="$f.ref" "$f" >/dev/null 2>&1
				"$FRUGAL" btf encode --pahole_compat=1.32 $KFEATS --btf_encode_detached="$f.132" "$f"
				"$FRUGAL" btf diff -q "$f.ref" "$f.132" || bad="$bad ${f##*/}"
				n=$((n + 1))
			done
		done; done
	done
	if [ -z "$bad" ] && [ $n -gt 0 ]; then pass "tests/btf/fixtures, $n builds: --pahole_compat=1.32 as pahole 1.32"
	else fail "tests/btf/fixtures, $n builds: --pahole_compat=1.32 as pahole 1.32" "differ:$bad"; fi
fi

# ---- global_var -------------------------------------------------------------
cat > "$W/g.c" <<'SRC'
int counter = 5;
long table[4] = { 1, 2, 3, 4 };
int zeroed;
static char buf[100];
const int limit = 42;
static const char msg[] = "hello";
extern int ext_decl;
char *use(int i) { buf[i] = msg[i]; return buf + counter + zeroed + limit + table[i]; }
int main(void) { return !use(1); }
SRC
if ! gcc -g -O0 "$W/g.c" -o "$W/g" 2>"$W/cc.err"; then
	fail "build the global_var fixture" "$(head -1 "$W/cc.err")"
	finish
fi
NAMES='^(counter|table|zeroed|buf|limit|msg|other)$'
# want FILE: "SECTION NAME OFFSET SIZE" of the NAMES objects, from the symbol
# and section tables.
want() {
	readelf -SW "$1" | sed 's/^ *\[ *\([0-9]*\)\]/\1/' |
		awk '$1 ~ /^[0-9]+$/ && $2 ~ /^\./ { print $1, $2, $4 }' > "$W/secs"
	readelf -sW "$1" | awk -v re="$NAMES" '$4 == "OBJECT" && $8 ~ re { print $7, $8, $2, $3 }' |
		while read -r ndx name value size; do
			read -r _ sec addr < <(awk -v n="$ndx" '$1 == n' "$W/secs")
			echo "$sec $name $((0x$value - 0x$addr)) $size"
		done | sort
}
# got BTF: the same, from the DATASECs.
got() {
	bpftool btf dump file "$1" | awk '
		/^\[[0-9]+\] DATASEC / { gsub("\x27", "", $3); sec = $3; next }
		/^\[/ { sec = "" }
		sec != "" && /type_id=/ { o = $2; s = $3; v = $NF; sub("offset=", "", o); sub("size=", "", s)
				       gsub("[\x27)]", "", v); print sec, v, o, s }' | sort
}
want "$W/g" > "$W/want"
"$FRUGAL" btf encode --btf_features=var,global_var --btf_encode_detached="$W/g.btf" "$W/g"
got "$W/g.btf" > "$W/got"
if [ "$(wc -l < "$W/want")" -eq 6 ] && diff -u "$W/want" "$W/got" > "$W/diff"; then
	pass "global_var: VARs in .data/.bss/.rodata DATASECs at the symbols' offsets and sizes"
else fail "global_var: VARs in .data/.bss/.rodata DATASECs at the symbols' offsets and sizes" \
	"$(tr '\n' ' ' < "$W/diff") want: $(tr '\n' ' ' < "$W/want")"; fi
# Each "none of X" below counts in a dump that must hold the rest: an
# encoder or bpftool that failed dumps nothing, which must not read as none.
got=$(bpftool btf dump file "$W/g.btf" | grep -cE "^\[[0-9]+\] VAR '(ext_decl|counter)'")
if [ "$got" -eq 1 ] && ! bpftool btf dump file "$W/g.btf" | grep -q "VAR 'ext_decl'"; then
	pass "global_var: a declaration only has no VAR"
else fail "global_var: a declaration only has no VAR" "VARs ext_decl and counter: $got (want counter only)"; fi
# Detached into a pipe (as into /dev/null): written into, never replaced.
mkfifo "$W/pipe"
timeout 20 cat "$W/pipe" > "$W/piped.btf" & c=$!
"$FRUGAL" btf encode --btf_features=var,global_var --btf_encode_detached="$W/pipe" "$W/g"
wait $c
if cmp -s "$W/g.btf" "$W/piped.btf" && [ -p "$W/pipe" ]; then
	pass "--btf_encode_detached into a pipe: the same bytes, and still a pipe"
else fail "--btf_encode_detached into a pipe: the same bytes, and still a pipe" "$(ls -l "$W/pipe" "$W/piped.btf")"; fi
rm -f "$W/g0.btf"
"$FRUGAL" btf encode --btf_features=var --btf_encode_detached="$W/g0.btf" "$W/g"; rc=$?
bpftool btf dump file "$W/g0.btf" > "$W/g0.dump" 2>&1
got=$(grep -cE '\] (VAR|DATASEC) ' "$W/g0.dump")
if [ $rc = 0 ] && grep -q '\] FUNC ' "$W/g0.dump" && [ "$got" -eq 0 ]; then
	pass "without global_var: no VAR or DATASEC"
else fail "without global_var: no VAR or DATASEC" "exit $rc, $got found; $(head -c 300 "$W/g0.dump")"; fi
got=$(bpftool btf dump file "$W/g.btf" | awk '/^\[.*VAR .buf./ { print $NF } /^\[.*VAR .counter./ { print $NF }' | tr '\n' ' ')
if [ "$got" = "linkage=global linkage=static " ]; then pass "global_var: static variables have static linkage"
else fail "global_var: static variables have static linkage" "got '$got'"; fi
# ---- global_var in ET_REL ---------------------------------------------------
# Every section of an object file starts at 0, so the address alone does
# not say where a variable is.  h.c has a second static 'buf' (in .data,
# g.c's is in .bss): the linked object must place each at its own symbol.
cat > "$W/h.c" <<'SRC'
static int buf[3] = { 1, 2, 3 };
static int other = 7;
int *use2(int i) { return &buf[i] + other; }
SRC
if ! gcc -g -O0 -c "$W/g.c" -o "$W/g.o" 2>"$W/cc.err" ||
   ! gcc -g -O0 -c "$W/h.c" -o "$W/h.o" 2>>"$W/cc.err" ||
   ! ld -r "$W/g.o" "$W/h.o" -o "$W/gh.o" 2>>"$W/cc.err"; then
	fail "build the ET_REL global_var fixture" "$(head -1 "$W/cc.err")"
	finish
fi
for obj in g.o gh.o; do
	want "$W/$obj" > "$W/want"
	n=$([ "$obj" = g.o ] && echo 6 || echo 8)
	cp "$W/$obj" "$W/$obj.orig"
	if "$FRUGAL" btf encode --btf_features=var,global_var \
		--btf_encode_detached="$W/$obj.btf" "$W/$obj" 2>"$W/enc.err"; then
		got "$W/$obj.btf" > "$W/got"
	else
		cp "$W/enc.err" "$W/got"
	fi
	if [ "$(wc -l < "$W/want")" -eq "$n" ] && diff -u "$W/want" "$W/got" > "$W/diff"; then
		pass "global_var on ET_REL $obj: $n VARs at their symbols' sections, offsets and sizes"
	else fail "global_var on ET_REL $obj: $n VARs at their symbols' sections, offsets and sizes" \
		"$(tr '\n' ' ' < "$W/diff") want: $(tr '\n' ' ' < "$W/want")"; fi
	if cmp -s "$W/$obj" "$W/$obj.orig"; then pass "global_var on ET_REL $obj: input unchanged"
	else fail "global_var on ET_REL $obj: input unchanged" "the object file was modified"; fi
done
finish
