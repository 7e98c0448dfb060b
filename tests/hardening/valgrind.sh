#!/usr/bin/env bash
# One run of each subcommand under valgrind --leak-check=full: no invalid
# access, no leak (definite or indirect).  BPF-side memory is the kernel's
# and not seen here.  libbpf.supp hides valgrind misreading the bpf(2)
# attr union inside libbpf; nothing else is suppressed.
. "$(dirname "$0")/../lib.sh"
if ! command -v valgrind >/dev/null || [ "${VALGRIND:-1}" = 0 ]; then
	skip "valgrind" "not installed or VALGRIND=0"
	finish
fi
W=$_tmp
VG=(valgrind -q --child-silent-after-fork=yes --suppressions="$TOP/tests/hardening/libbpf.supp" --leak-check=full --errors-for-leak-kinds=definite,indirect --error-exitcode=99)
gcc -g -O2 -c "$TOP/tests/btf/fixtures/types.c" -o "$W/a.o" &&
	gcc -g -O2 -c "$TOP/tests/btf/fixtures/dup_a.c" -o "$W/b.o" || { fail "valgrind" "fixtures do not build"; finish; }

# vg NAME WANT CMD...: the command's own exit status WANT, valgrind silent.
vg() {
	local name=$1 want=$2 rc
	shift 2
	"${VG[@]}" "$@" >/dev/null 2>"$W/vg.err"
	rc=$?
	if [ $rc -eq "$want" ] && ! grep -q '^==[0-9]*==' "$W/vg.err"; then pass "valgrind: $name"
	else fail "valgrind: $name" "exit $rc; $(grep -m3 '^==[0-9]*==' "$W/vg.err" | tr '\n' ' ')$(
		grep -v '^==[0-9]*==\|^--[0-9]*--' "$W/vg.err" | tail -2 | tr '\n' ' ')"; fi
}
vg "btf encode" 0 "$FRUGAL" btf encode -j2 --btf_encode_detached="$W/a.btf" "$W/a.o"
"$FRUGAL" btf encode --btf_encode_detached="$W/b.btf" "$W/b.o"
# Split BTF as pahole 1.32 (the default's rules): through libbpf 1.7's dedup.
vg "btf encode, split BTF deduplicated by libbpf 1.7" 0 "$FRUGAL" btf encode \
	--btf_features=default --btf_base="$W/a.btf" --btf_encode_detached="$W/s.btf" "$W/b.o"
vg "btf diff" 1 "$FRUGAL" btf diff "$W/a.btf" "$W/b.btf"
vg "btf stat" 0 "$FRUGAL" btf stat "$W/a.btf"
vg "btf show -E" 0 "$FRUGAL" btf show -E "$W/a.btf"
vg "btf show -a -i, unknown name" 1 "$FRUGAL" btf show -a -i no_such_type "$W/a.btf"
if [ -r /sys/kernel/btf/vmlinux ]; then
	vg "btf show -C task_struct,sk_buff (the running kernel's BTF)" 0 \
		"$FRUGAL" btf show -C task_struct,sk_buff --hex
fi
vg "btf encode, bad input" 1 "$FRUGAL" btf encode --btf_encode_detached="$W/x.btf" "$W/a.btf"
if [ "$(id -u)" -eq 0 ] && "$FRUGAL" lock -d 0.05 >/dev/null 2>&1; then
	vg "lock -a -- true" 0 "$FRUGAL" lock -a -- true
	vg "lock -t --json -- true" 0 "$FRUGAL" lock -t --json -- true
	# -U: user stacks unwound and named (libdwfl, our CFI walk and its check).
	# (The child -U forks to release the syscall tracepoints exits at once,
	# holding the parent's heap: valgrind is told not to report on children.)
	gcc -O2 -g -o "$W/ucontend" "$TOP/tests/lock/fixtures/ucontend.c" -lpthread &&
		vg "lock -U --stack-check -- fixture" 0 "$FRUGAL" lock -U --stack-check \
			--ring-size 4096 -- "$W/ucontend" mutex 4 200 20
	# -l: objects described (the BTF facts, each row's object kept and freed)
	gcc -O2 -o "$W/fappend" "$TOP/tests/lock/fixtures/fappend.c" -lpthread &&
		vg "lock -l --json -- fixture" 0 "$FRUGAL" lock -l --json -- "$W/fappend" "$W/data" 4 0.3
else
	skip "valgrind: lock" "needs root and BPF"
fi
finish
