#!/usr/bin/env bash
# Seeds for fuzz_abi_base: a module's split BTF on the harness's own base
# (int, int *, struct s { int x; }): f(int *p), made by python3; the same
# with a name off a string's start; tests/btf/fixtures/abi_mod.c's object
# (.modinfo with a vermagic) and abi_old.c's (a banner in .rodata).
#   fuzz/seeds-fuzz_abi_base.sh DIR
set -eu
dir=$1
FX=tests/btf/fixtures
python3 - "$dir" <<'PY'
import struct, sys
BASE_STR = 9	# "\0int\0s\0x\0"
def split(name_f):
    strs = b"p\0f\0"
    t = struct.pack("<IIIII", 0, (13 << 24) | 1, 1, BASE_STR, 2)	# [4] int (int *p)
    t += struct.pack("<III", name_f, 12 << 24, 4)			# [5] f
    return struct.pack("<HBBIIIII", 0xeB9F, 1, 0, 24, 0, len(t), len(t), len(strs)) + t + strs
open(sys.argv[1] + "/split.btf", "wb").write(split(BASE_STR + 2))
open(sys.argv[1] + "/split-mid.btf", "wb").write(split(BASE_STR + 3))
PY
if command -v gcc >/dev/null; then
	gcc -g -c "$FX/abi_mod.c" -o "$dir/module.o"
	gcc -g -c "$FX/abi_old.c" -o "$dir/banner.o"
fi
