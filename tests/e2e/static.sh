# make static's binary ($O/static/frugal, or FRUGAL_STATIC): one file that
# needs no shared library, whose dlopen() calls land in cli/static.c's table.
# Skipped when it is not built (make check-static builds and runs it).
source "$(dirname "$0")/../lib.sh"
S=${FRUGAL_STATIC:-$O/static/frugal}
if [ ! -x "$S" ]; then
	skip "static" "$S is not built (make static; make check-static runs this)"
	finish
fi

check "static: file calls it statically linked" eval 'file -L "$S" | grep -q "statically linked"'
check "static: no interpreter, no NEEDED library" \
	eval '! readelf -ld "$S" | grep -Eq "Requesting program interpreter|\(NEEDED\)"'
expect_exit "static: --version" 0 "$S" --version
check "static: --version as the dynamic build says it" grep -Eq '^frugal [0-9]+\.[0-9]+\.[0-9]+$' <<<"$out"

# libzstd, which the dynamic build dlopens for zstd-compressed DWARF, is
# linked in: the same BTF as the dynamic build's, or as uncompressed DWARF.
cat >"$_tmp/t.c" <<'EOF'
struct pair { int a; long b; };
struct pair g;
int get(struct pair *p) { return p->a + (int)p->b; }
EOF
if gcc -g -c -o "$_tmp/t.o" "$_tmp/t.c" &&
   objcopy --compress-debug-sections=zstd "$_tmp/t.o" "$_tmp/z.o" 2>/dev/null &&
   readelf -t "$_tmp/z.o" | grep -q ZSTD; then
	"$S" btf encode --btf_encode_detached="$_tmp/plain.btf" "$_tmp/t.o"
	expect_exit "static: zstd-compressed DWARF encoded (libzstd linked in)" 0 \
		"$S" btf encode --btf_encode_detached="$_tmp/z.btf" "$_tmp/z.o"
	check "static: zstd-compressed DWARF gives the same BTF" cmp -s "$_tmp/plain.btf" "$_tmp/z.btf"
else
	skip "static: zstd" "objcopy cannot compress with zstd here"
fi

# The wrapped dlopen() itself, linked as make static links it: libzstd
# served from the table, libdebuginfod and any other library refused with
# a line on stderr (never a silent NULL).
cat >"$_tmp/dl.c" <<'EOF'
#include <dlfcn.h>
#include <stdio.h>
int main(void)
{
	void *z = dlopen("libzstd.so.1", RTLD_NOW);
	printf("zstd %d\n", z && dlsym(z, "ZSTD_decompress") && !dlsym(z, "ZSTD_nope"));
	printf("debuginfod %d\n", !dlopen("libdebuginfod.so.1", RTLD_LAZY) && dlerror());
	printf("other %d\n", !dlopen("libfoo.so.1", RTLD_NOW));
	return 0;
}
EOF
if [ -f "$O/cli/static.o" ] &&
   gcc -static -Wl,--wrap=dlopen,--wrap=dlsym,--wrap=dlclose,--wrap=dlerror -o "$_tmp/dl" \
	"$_tmp/dl.c" "$O/cli/static.o" "$O/libfrugal.a" -lbpf -lelf -lz -lzstd 2>"$_tmp/dl.err"; then
	"$_tmp/dl" >"$_tmp/dl.out" 2>"$_tmp/dl.stderr"
	check "static: dlopen(libzstd.so.1) served from the binary" grep -qx 'zstd 1' "$_tmp/dl.out"
	check "static: dlopen(libdebuginfod.so.1) refused" grep -qx 'debuginfod 1' "$_tmp/dl.out"
	check "static: ... and said on stderr" grep -q 'DEBUGINFOD_URLS is set, but this static build does not load libdebuginfod.so.1' "$_tmp/dl.stderr"
	check "static: any other library refused, naming it" eval \
		'grep -qx "other 1" "$_tmp/dl.out" && grep -q "^frugal: libfoo.so.1: not loaded" "$_tmp/dl.stderr"'
else
	skip "static: dlopen table" "could not link a driver with $O/cli/static.o: $(head -1 "$_tmp/dl.err" 2>/dev/null)"
fi
finish
