#!/usr/bin/env bash
# The web server's libraries (libmicrohttpd and GnuTLS, libyaml, libcrypt)
# are lib/web.c's to dlopen when it is first called, never the binary's to
# load at start: linked, they cost every run of frugal 1.5-1.8 ms (a kernel
# build runs it once per module).  frugal has no NEEDED entry for them and
# opens none of them for --version; test_web, which links lib/web.o from
# the same libfrugal.a, loads them only once it calls in, through dlopen;
# with libmicrohttpd hidden (an overlay whiteout in a mount namespace of
# our own), both entry points fail with the package to install.
. "$(dirname "$0")/../lib.sh"
WEB_LIBS='libmicrohttpd|libgnutls|libyaml|libcrypt'

needed() { readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'; }

if [ ! -x "$FRUGAL" ]; then
	skip "web-libs" "no $FRUGAL (make)"
	finish
fi
needed "$FRUGAL" >"$_tmp/needed"
check "web-libs: frugal's NEEDED has libc (the list was read)" grep -q '^libc\.so' "$_tmp/needed"
check "web-libs: frugal's NEEDED has none of $WEB_LIBS" eval '! grep -Eq "^($WEB_LIBS)" "$_tmp/needed"'
LD_DEBUG=files "$FRUGAL" --version >/dev/null 2>"$_tmp/ld.version"
check "web-libs: frugal --version loads shared objects (LD_DEBUG saw libc)" \
	grep -q 'file=libc\.so' "$_tmp/ld.version"
check "web-libs: frugal --version opens none of them" \
	eval '! grep -Eq "file=($WEB_LIBS)" "$_tmp/ld.version"'

T=$O/tests/test_web
if [ ! -x "$T" ]; then
	skip "web-libs: test_web" "no $T (make check-build)"
	finish
fi
# test_web links libcrypt for bcrypt hashes of its own: the rest only.
check "web-libs: test_web (lib/web.o linked) has no NEEDED libmicrohttpd, GnuTLS or libyaml" \
	eval '! needed "$T" | grep -Eq "^(libmicrohttpd|libgnutls|libyaml)"'
LD_DEBUG=files "$T" --bcrypt x >/dev/null 2>"$_tmp/ld.bcrypt"
check "web-libs: ... nor loads them before calling in" \
	eval 'grep -q "file=libc\.so" "$_tmp/ld.bcrypt" && ! grep -Eq "file=(libmicrohttpd|libgnutls|libyaml)" "$_tmp/ld.bcrypt"'
printf 'tls_server_config: {}\n' >"$_tmp/bad.yml"
LD_DEBUG=files "$T" --serve "$_tmp/bad.yml" >/dev/null 2>"$_tmp/ld.serve"
check "web-libs: web_config__load dlopens libmicrohttpd and libyaml" \
	eval 'grep -q "file=libmicrohttpd\.so\.12 .*dynamically loaded by" "$_tmp/ld.serve" &&
	      grep -q "file=libyaml-0\.so\.2 .*dynamically loaded by" "$_tmp/ld.serve"'
check "web-libs: ... and then reads the file (its error, not a library's)" \
	grep -q 'test_web: .*bad.yml: line 1: tls_server_config: both cert_file and key_file' "$_tmp/ld.serve"

# libmicrohttpd hidden: a whiteout of its soname over its folder, in a
# mount namespace of this test's (the host's folder is untouched).
mhd=$(ldconfig -p | sed -n 's/^[[:space:]]*libmicrohttpd\.so\.12 (libc6,x86-64) => //p' | head -1)
[ -n "$mhd" ] || mhd=$(ldconfig -p | sed -n 's/^[[:space:]]*libmicrohttpd\.so\.12 .*=> //p' | head -1)
dir=$(dirname "$(readlink -f "$mhd" 2>/dev/null || echo /nonexistent/x)")
mkdir -p "$_tmp/up" "$_tmp/work"
if [ -z "$mhd" ] || [ "$(id -u)" != 0 ] || ! command -v unshare >/dev/null ||
   ! mknod "$_tmp/up/libmicrohttpd.so.12" c 0 0 2>/dev/null ||
   ! unshare -m sh -c "mount -t overlay overlay -o lowerdir='$dir',upperdir='$_tmp/up',workdir='$_tmp/work' '$dir' &&
			! test -e '$dir/libmicrohttpd.so.12'" 2>/dev/null; then
	skip "web-libs: libmicrohttpd missing" "cannot hide it here (root, unshare -m and overlayfs needed)"
	finish
fi
hidden() {	# test_web's arguments, with libmicrohttpd.so.12 hidden
	unshare -m sh -c "mount -t overlay overlay -o lowerdir='$dir',upperdir='$_tmp/up',workdir='$_tmp/work' '$dir' &&
			  exec timeout 20 \"\$@\"" sh "$T" "$@"
}
want='test_web: libmicrohttpd.so.12: cannot open shared object file: install libmicrohttpd12'
expect_exit "web-libs: libmicrohttpd missing: web_config__load fails" 1 hidden --serve "$_tmp/bad.yml"
check "web-libs: ... saying which package to install" eval '[ "$err" = "$want" ]'
expect_exit "web-libs: libmicrohttpd missing: web_server__start fails" 1 hidden --serve
check "web-libs: ... saying which package to install" eval '[ "$err" = "$want" ]'
finish
