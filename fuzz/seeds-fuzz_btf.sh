#!/usr/bin/env bash
# Seeds for fuzz_btf: raw BTF of the test fixtures as pahole encodes them
# (when pahole is installed), the same inside an ELF's .BTF section, and a
# few truncated and split-without-base blobs.
#   fuzz/seeds-fuzz_btf.sh DIR
set -eu
dir=$1
FX=$(dirname "$0")/../tests/btf/fixtures
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
PAHOLE=${PAHOLE:-pahole}
command -v "$PAHOLE" >/dev/null || exit 0
for src in types dup_a dup_b; do
	gcc -g -O2 -c "$FX/$src.c" -o "$tmp/$src.o" 2>/dev/null || continue
	"$PAHOLE" -J --btf_gen_floats --btf_encode_detached="$dir/$src.btf" "$tmp/$src.o" \
		>/dev/null 2>&1 || continue
done
if command -v clang >/dev/null && clang -g -O2 -c "$FX/tags.c" -o "$tmp/tags.o" 2>/dev/null &&
   "$PAHOLE" -J --btf_encode_detached="$dir/tags.btf" "$tmp/tags.o" >/dev/null 2>&1; then
	# In place: an ELF file with a .BTF section.
	"$PAHOLE" -J "$tmp/tags.o" >/dev/null 2>&1 && cp "$tmp/tags.o" "$dir/tags-elf.o"
fi
if [ -f "$dir/types.btf" ]; then
	head -c 100 "$dir/types.btf" >"$dir/types-truncated.btf"
fi
# Split BTF without its base must be refused, not crash.
m=$(ls /sys/kernel/btf 2>/dev/null | grep -v '^vmlinux$' | head -1 || true)
if [ -n "$m" ] && [ "$(stat -c %s "/sys/kernel/btf/$m" 2>/dev/null || echo 0)" -lt 65536 ]; then
	cat "/sys/kernel/btf/$m" >"$dir/split-$m.btf" 2>/dev/null || true
fi
