#!/usr/bin/env bash
# frugal btf encode on small C fixtures, checked against pahole -J with the
# same features through `frugal btf diff` (which must find nothing), built
# with gcc and clang at DWARF 4 and 5, as objects (ET_REL: relocations) and
# linked programs (several CUs).  Then: feature switches, determinism across
# runs and -j, writing .BTF in place, compressed debug sections, and bad
# input (one-line error naming the file, exit 1, no output, input intact).
. "$(dirname "$0")/../lib.sh"

FX=$TOP/tests/btf/fixtures
PAHOLE=${PAHOLE:-/usr/bin/pahole}
# The bad-input cases run the sanitizer build when there is one.
FRUGAL_SAN=$FRUGAL
[ -x "$O/asan/frugal" ] && FRUGAL_SAN=$O/asan/frugal
W=$_tmp
# pahole 1.24's spelling of the kernel's feature set (FLOAT on, the rest
# default); frugal takes the same flags with the same meaning.
FEATS="--btf_gen_floats"

have() { command -v "$1" >/dev/null 2>&1; }

if ! have "$PAHOLE"; then
	skip "btf fixtures" "no pahole at $PAHOLE (package dwarves)"
	finish
fi

# diff_ok NAME REF OUT [DIFF OPTS...]: frugal btf diff finds nothing.
diff_ok() {
	local name=$1 ref=$2 outf=$3 d
	shift 3
	if [ ! -s "$outf" ]; then
		fail "$name" "no output from frugal btf encode"
		return
	fi
	d=$("$FRUGAL" btf diff "$@" "$ref" "$outf" 2>&1)
	case $? in
	0) pass "$name" ;;
	*) fail "$name" "$(echo "$d" | head -6 | tr '\n' '|')" ;;
	esac
}

# encode_pair NAME INPUT [FLAGS...]: pahole and frugal on INPUT, compare.
# Outputs: $W/INPUT.FLAGS.{pahole,frugal}.btf
encode_pair() {
	local name=$1 in=$2 base
	shift 2
	base=$W/$(basename "$in").$(printf '%s' "$*" | tr -c 'a-z0-9' _)
	"$PAHOLE" -J "$@" --btf_encode_detached="$base.pahole.btf" "$in" >/dev/null 2>&1 ||
		{ fail "$name" "pahole failed on $in"; return; }
	if ! "$FRUGAL" btf encode "$@" --btf_encode_detached="$base.frugal.btf" "$in" \
		2>"$W/enc.err"; then
		fail "$name" "frugal btf encode failed: $(head -1 "$W/enc.err")"
		return
	fi
	diff_ok "$name" "$base.pahole.btf" "$base.frugal.btf" ${DIFF_OPTS:-}
}

# ---- build the fixtures ----------------------------------------------------
objs=()
for cc in gcc clang; do
	if ! have $cc; then
		skip "fixtures with $cc" "$cc not installed"
		continue
	fi
	for dw in 4 5; do
		t=$W/types-$cc-dwarf$dw.o
		p=$W/prog-$cc-dwarf$dw
		if $cc -g -gdwarf-$dw -O2 -c "$FX/types.c" -o "$t" 2>"$W/cc.err" &&
		   $cc -g -gdwarf-$dw -O2 "$FX/types.c" "$FX/dup_a.c" "$FX/dup_b.c" -o "$p" 2>>"$W/cc.err"; then
			objs+=("$t" "$p")
		else
			fail "compile fixtures with $cc -gdwarf-$dw" "$(head -1 "$W/cc.err")"
		fi
		if [ $cc = clang ]; then
			t=$W/tags-dwarf$dw.o
			if clang -g -gdwarf-$dw -O2 -c "$FX/tags.c" -o "$t" 2>"$W/cc.err"; then
				objs+=("$t")
			else
				fail "compile tags.c with clang -gdwarf-$dw" "$(head -1 "$W/cc.err")"
			fi
		fi
	done
done

# The fixtures must cover what they claim: look at pahole's encoding.
kinds_of() { "$FRUGAL" btf stat "$1" | awk 'NR > 3 && NF == 3 { print $1 }' | sort | tr '\n' ' '; }
if [ -f "$W/types-gcc-dwarf5.o" ] && [ -f "$W/tags-dwarf5.o" ]; then
	"$PAHOLE" -J $FEATS --btf_encode_detached="$W/cover1.btf" "$W/types-gcc-dwarf5.o" >/dev/null 2>&1
	"$PAHOLE" -J $FEATS --btf_encode_detached="$W/cover2.btf" "$W/tags-dwarf5.o" >/dev/null 2>&1
	got="$(kinds_of "$W/cover1.btf") $(kinds_of "$W/cover2.btf")"
	missing=
	for k in INT FLOAT PTR ARRAY STRUCT UNION ENUM ENUM64 FWD TYPEDEF CONST VOLATILE \
		 RESTRICT FUNC FUNC_PROTO VAR DATASEC TYPE_TAG DECL_TAG; do
		case " $got " in *" $k "*) ;; *) missing="$missing $k" ;; esac
	done
	if [ -z "$missing" ]; then pass "fixtures cover every BTF kind"
	else fail "fixtures cover every BTF kind" "pahole's encoding lacks$missing"; fi
fi

# ---- equivalence with pahole ---------------------------------------------
for o in "${objs[@]}"; do
	encode_pair "encode $(basename "$o") like pahole $FEATS" "$o" $FEATS
done

# Again against pahole 1.30 (Debian trixie's, scripts/fetch-trixie.sh) with
# the list a 6.12 build passes.
FEATS130="--btf_features=encode_force,var,float,enum64,decl_tag,type_tag,optimized_func,consistent_func,decl_tag_kfuncs"
T130=$(bash "$TOP/scripts/fetch-trixie.sh" --pahole 2>"$W/fetch.err")
case $? in
0)	for o in "${objs[@]}"; do
		FRUGAL_PAHOLE_COMPAT=1.30 PAHOLE=$T130/pahole/bin/pahole encode_pair \
			"encode $(basename "$o") like pahole 1.30 (6.12's flags)" "$o" $FEATS130
	done ;;
3)	skip "fixtures against pahole 1.30" "Debian trixie unreachable: $(tail -1 "$W/fetch.err")" ;;
*)	fail "fetch pahole 1.30" "$(tail -1 "$W/fetch.err")" ;;
esac

# Each feature switch, on the objects that exercise it.
if [ -f "$W/types-clang-dwarf5.o" ] && [ -f "$W/tags-dwarf5.o" ]; then
	t=$W/types-clang-dwarf5.o
	encode_pair "no flags (pahole's defaults): double is an INT" "$t"
	encode_pair "--skip_encoding_btf_vars" "$t" $FEATS --skip_encoding_btf_vars
	encode_pair "--skip_encoding_btf_enum64" "$t" $FEATS --skip_encoding_btf_enum64
	encode_pair "--skip_encoding_btf_type_tag" "$W/tags-dwarf5.o" $FEATS --skip_encoding_btf_type_tag
	encode_pair "--skip_encoding_btf_decl_tag" "$W/tags-dwarf5.o" $FEATS --skip_encoding_btf_decl_tag
fi

# Split BTF, as for a module: the same base (pahole's BTF of a program) for
# both encoders, the object's own types on top of it.
b=$W/prog-gcc-dwarf5.__btf_gen_floats.pahole.btf
if [ -s "$b" ] && [ -f "$W/types-clang-dwarf5.o" ]; then
	DIFF_OPTS="--base $b" encode_pair "split BTF on a base (--btf_base)" \
		"$W/types-clang-dwarf5.o" $FEATS --btf_base="$b"
fi

# ---- determinism -------------------------------------------------------------
p=$W/prog-clang-dwarf5
if [ -f "$p" ]; then
	ok=1
	for j in 1 2 2 4; do
		"$FRUGAL" btf encode $FEATS -j$j --btf_encode_detached="$W/det-$j.btf" "$p" 2>/dev/null || ok=0
		[ -s "$W/det-$j.btf" ] || ok=0
		cmp -s "$W/det-1.btf" "$W/det-$j.btf" || ok=0
	done
	if [ $ok = 1 ]; then pass "byte-identical output across runs and -j1/-j2/-j4"
	else fail "byte-identical output across runs and -j1/-j2/-j4" "outputs differ or encode failed"; fi
fi

# ---- writing .BTF into the ELF -------------------------------------------
p=$W/prog-gcc-dwarf5
if [ -f "$p" ]; then
	mkdir -p "$W/inplace"
	cp "$p" "$W/inplace/prog"
	ls -A "$W/inplace" > "$W/ls.before"
	if "$FRUGAL" btf encode $FEATS "$W/inplace/prog" 2>"$W/enc.err"; then
		if readelf -S "$W/inplace/prog" | grep -q ' \.BTF '; then
			pass "in place: the ELF gets a .BTF section"
		else
			fail "in place: the ELF gets a .BTF section" "no .BTF in readelf -S"
		fi
		diff_ok "in place: its .BTF is pahole's BTF" \
			"$W/prog-gcc-dwarf5.__btf_gen_floats.pahole.btf" "$W/inplace/prog"
		check "in place: the program still runs" "$W/inplace/prog"
		ls -A "$W/inplace" > "$W/ls.after"
		check "in place: no file left beside it" cmp -s "$W/ls.before" "$W/ls.after"
	else
		fail "in place: the ELF gets a .BTF section" "$(head -1 "$W/enc.err")"
	fi
fi

# ---- compressed debug sections ---------------------------------------------
# compressed KIND HOW WHY CMD...: CMD makes $W/KIND.o, types.c with its
# debug sections KIND-compressed (else a skip, saying WHY); frugal's BTF of
# it must be pahole's of the same object uncompressed ($ref).
compressed() {
	local kind=$1 how=$2 why=$3 obj=$W/$1.o
	shift 3
	if "$@" 2>/dev/null && readelf -t "$obj" | grep -q "${kind^^}"; then
		if "$FRUGAL" btf encode $FEATS --btf_encode_detached="$W/$kind.btf" "$obj" 2>"$W/enc.err"; then
			diff_ok "$kind-compressed DWARF ($how)" "$ref" "$W/$kind.btf"
		else
			fail "$kind-compressed DWARF ($how)" "$(head -1 "$W/enc.err")"
		fi
	else
		skip "$kind-compressed DWARF" "$why"
	fi
}
if [ -f "$W/types-gcc-dwarf5.o" ]; then
	ref=$W/types-gcc-dwarf5.o.__btf_gen_floats.pahole.btf
	compressed zlib "gcc -gz=zlib" "gcc -gz=zlib gives no compressed sections" \
		gcc -g -gdwarf-5 -gz=zlib -O2 -c "$FX/types.c" -o "$W/zlib.o"
	# gcc and clang here lack -gz=zstd; objcopy can compress an object.
	compressed zstd objcopy "objcopy cannot compress with zstd here" \
		objcopy --compress-debug-sections=zstd "$W/types-gcc-dwarf5.o" "$W/zstd.o"
fi

# ---- bad input -----------------------------------------------------------------
# bad_input NAME FILE NAMED [FLAGS...]: exit 1, one line naming NAMED (the
# input, or the base at fault), no output file, FILE unchanged; then the
# same in place: FILE unchanged, nothing left beside it.  Only meaningful
# when the encoder works on the valid counterpart ($good_ok): an encoder
# that fails on everything would pass them.
bad_input() {
	local name=$1 in=$2 named=$3 rc lines
	shift 3
	if [ "$good_ok" != 1 ]; then
		fail "$name" "the encoder fails on the valid counterpart, so this shows nothing"
		return
	fi
	cp "$in" "$W/bad.orig"
	rm -f "$W/bad.btf"
	"$FRUGAL_SAN" btf encode "$@" --btf_encode_detached="$W/bad.btf" "$in" \
		>"$W/bad.out" 2>"$W/bad.err"
	rc=$?
	lines=$(wc -l < "$W/bad.err")
	if [ $rc -ne 1 ]; then
		fail "$name" "exit $rc, expected 1; stderr: $(head -3 "$W/bad.err" | tr '\n' '|')"
	elif [ "$lines" -ne 1 ] || ! grep -qF "$(basename "$named")" "$W/bad.err"; then
		fail "$name" "expected one error line naming $(basename "$named"), got: $(head -3 "$W/bad.err" | tr '\n' '|')"
	elif [ -e "$W/bad.btf" ]; then
		fail "$name" "an output file was left behind"
	elif ! cmp -s "$in" "$W/bad.orig"; then
		fail "$name" "the input was modified"
	else
		pass "$name"
	fi
	ls -A "$(dirname "$in")" > "$W/ls.before"
	"$FRUGAL_SAN" btf encode "$@" "$in" >/dev/null 2>"$W/bad.err"
	rc=$?
	ls -A "$(dirname "$in")" > "$W/ls.after"
	if [ $rc -eq 1 ] && cmp -s "$in" "$W/bad.orig" && cmp -s "$W/ls.before" "$W/ls.after"; then
		pass "$name, in place: input unchanged"
	else
		fail "$name, in place: input unchanged" "exit $rc; $(head -1 "$W/bad.err")"
	fi
}

# good_encodes FILE: good_ok=1 if frugal encodes (a copy of) FILE.
good_encodes() {
	good_ok=0
	[ -f "$1" ] || return
	cp "$1" "$W/good.copy"
	"$FRUGAL" btf encode --btf_encode_detached="$W/good.btf" "$W/good.copy" 2>/dev/null &&
		[ -s "$W/good.btf" ] && good_ok=1
}

mkdir -p "$W/bad"
t=$W/types-gcc-dwarf5.o
good_encodes "$t"
printf 'this is not an ELF file\n' > "$W/bad/not-elf"
bad_input "bad input: not an ELF" "$W/bad/not-elf" "$W/bad/not-elf"
if [ -f "$t" ]; then
	head -c $(( $(stat -c %s "$t") / 2 )) "$t" > "$W/bad/truncated.o"
	bad_input "bad input: truncated ELF" "$W/bad/truncated.o" "$W/bad/truncated.o"
	gcc -O2 -c "$FX/types.c" -o "$W/bad/nodwarf.o"
	bad_input "bad input: ELF without DWARF" "$W/bad/nodwarf.o" "$W/bad/nodwarf.o"
	# .debug_info moved onto the section header table: relocating it in
	# place would rewrite the headers libelf reads (a fuzzer's find).
	python3 - "$t" "$W/bad/overlap.o" "$W/bad/overlap-riscv.o" <<'PY'
import struct, sys
e = bytearray(open(sys.argv[1], 'rb').read())
shoff, = struct.unpack_from('<Q', e, 0x28)
shnum, shstrndx = struct.unpack_from('<HH', e, 0x3c)
strs = struct.unpack_from('<Q', e, shoff + shstrndx * 64 + 24)[0]
for i in range(shnum):
    name = struct.unpack_from('<I', e, shoff + i * 64)[0]
    if e[strs + name:].startswith(b'.debug_info\0'):
        struct.pack_into('<Q', e, shoff + i * 64 + 24, shoff)
open(sys.argv[2], 'wb').write(e)
struct.pack_into('<H', e, 0x12, 243)	# EM_RISCV: libdwfl relocates it
open(sys.argv[3], 'wb').write(e)
PY
	bad_input "bad input: relocated section over the section headers" \
		"$W/bad/overlap.o" "$W/bad/overlap.o"
	check "bad input: the overlap is named" grep -q "sections overlap" "$W/bad.err"
	bad_input "bad input: the same, relocated by libdwfl (EM_RISCV)" \
		"$W/bad/overlap-riscv.o" "$W/bad/overlap-riscv.o"
	check "bad input: the overlap is named (libdwfl)" grep -q "sections overlap" "$W/bad.err"
	printf 'garbage, not BTF\n' > "$W/bad/base.btf"
	cp "$t" "$W/bad/module.o"
	bad_input "bad input: --btf_base does not exist" "$W/bad/module.o" \
		"$W/bad/nonexistent" --btf_base="$W/bad/nonexistent"
	bad_input "bad input: --btf_base is not BTF" "$W/bad/module.o" \
		"$W/bad/base.btf" --btf_base="$W/bad/base.btf"
	# An ELF without .BTF cannot be the base of anything.
	bad_input "bad input: --btf_base ELF has no .BTF" "$W/bad/module.o" \
		"$t" --btf_base="$t"
fi
# A base of another machine: an x86_64 program's .BTF under an aarch64
# object (clang cross-compiles; no aarch64 gcc needed), refused naming the
# base and both machines; the same base under an x86_64 object is fine.
# Raw BTF names no machine, only its byte order: a big-endian header under
# a little-endian object is refused too.
x86base=$W/prog-gcc-dwarf5.__btf_gen_floats.pahole.btf
if ! have clang || ! clang --target=aarch64-linux-gnu -g -O2 -c "$FX/types.c" -o "$W/a64.o" 2>"$W/cc.err"; then
	skip "bad input: --btf_base of another machine" "clang cannot build for aarch64 here: $(head -1 "$W/cc.err" 2>/dev/null)"
elif [ ! -f "$t" ] || [ ! -s "$x86base" ] || ! cp "$W/prog-gcc-dwarf5" "$W/bad/x86-base" ||
     ! "$FRUGAL" btf encode $FEATS "$W/bad/x86-base" 2>"$W/enc.err"; then
	fail "bad input: --btf_base of another machine" "no x86_64 base to try: $(head -1 "$W/enc.err")"
else
	good_encodes "$W/a64.o"
	bad_input "bad input: --btf_base of another machine (x86_64 under aarch64)" "$W/a64.o" \
		"$W/bad/x86-base" --btf_base="$W/bad/x86-base"
	check "bad input: both machines are named" grep -q "x86_64.*aarch64" "$W/bad.err"
	expect_exit "the same x86_64 base under an x86_64 object is taken" 0 \
		"$FRUGAL" btf encode $FEATS --btf_base="$W/bad/x86-base" --btf_encode_detached="$W/x86.btf" "$t"
	{ printf '\xeb\x9f'; tail -c +3 "$x86base"; } > "$W/bad/be.btf"
	good_encodes "$t"
	bad_input "bad input: big-endian raw BTF base under a little-endian object" "$t" \
		"$W/bad/be.btf" --btf_base="$W/bad/be.btf"
	check "bad input: the byte orders are named" grep -q "big-endian BTF.*little-endian" "$W/bad.err"
fi
if gcc -c "$FX/bad_dwarf.S" -o "$W/good_dwarf.o" 2>/dev/null; then
	encode_pair "hand-made DWARF unit (the bad ones' template)" "$W/good_dwarf.o"
	good_encodes "$W/good_dwarf.o"
	gcc -c -DBAD_REF "$FX/bad_dwarf.S" -o "$W/bad/bad_ref.o"
	bad_input "bad input: DIE reference out of range" "$W/bad/bad_ref.o" "$W/bad/bad_ref.o"
	gcc -c -DBAD_ABBREV "$FX/bad_dwarf.S" -o "$W/bad/bad_abbrev.o"
	bad_input "bad input: undefined abbreviation code" "$W/bad/bad_abbrev.o" "$W/bad/bad_abbrev.o"
fi

finish
