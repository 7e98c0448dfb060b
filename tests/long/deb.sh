#!/usr/bin/env bash
# The Debian package, as a user meets it (make check-deb, which builds it
# with make deb first; not in check: it installs into this system).
# lintian must report no error; the package installs with apt, holds the
# binary, the pahole link for kernel builds, the man pages and the bash
# completion (each checked once the package has them), and goes away on
# remove and purge with nothing left behind.
. "$(dirname "$0")/../lib.sh"
DIR=$O/deb
DEB=$(ls "$DIR"/frugal_*.deb 2>/dev/null | head -1)

if [ -z "$DEB" ]; then
	fail "deb: built" "no $DIR/frugal_*.deb (make deb)"
	finish
fi
if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null; then
	skip "deb" "installing a package needs root and apt"
	finish
fi
# Never replace (and then purge) a frugal the machine had before.
if dpkg-query -W -f='${Status}' frugal 2>/dev/null | grep -q 'ok installed'; then
	skip "deb" "a frugal package is installed already; this check would replace and purge it"
	finish
fi
VERSION=$(dpkg-deb -f "$DEB" Version)
dpkg-deb -c "$DEB" | awk '{ print $6 }' | sed 's|^\.||' >"$_tmp/files"
has() { grep -qx "$1" "$_tmp/files"; }

# lintian: no error; warnings and notes shown, each explained in
# docs/install.md.
if command -v lintian >/dev/null; then
	lintian --pedantic "$DIR"/frugal_*.changes >"$_tmp/lintian" 2>&1
	sed -n 's/^\([WIP]\): /# lintian \1: /p' "$_tmp/lintian"
	check "deb: lintian reports no error" eval '! grep -q "^E:" "$_tmp/lintian"'
else
	skip "deb: lintian" "lintian is not installed (scripts/install-deps.sh installs it)"
fi

export DEBIAN_FRONTEND=noninteractive
case $DEB in /*) ;; *) DEB=$PWD/$DEB ;; esac
check "deb: apt installs it" eval 'apt-get install -y -qq "$DEB" >"$_tmp/apt.out" 2>&1'
check "deb: /usr/bin/frugal --version says $VERSION" \
	test "$(/usr/bin/frugal --version 2>&1)" = "frugal $VERSION"
check "deb: every library it loads is there" eval '! ldd /usr/bin/frugal | grep -q "not found"'
check "deb: /usr/libexec/frugal/pahole is a link to frugal" \
	test "$(readlink -f /usr/libexec/frugal/pahole)" = /usr/bin/frugal
check "deb: the pahole link answers as pahole (--version: $(/usr/libexec/frugal/pahole --version 2>&1))" \
	eval '/usr/libexec/frugal/pahole --version | grep -q "^v1\."'
if has /usr/share/man/man1/frugal-lock.1.gz; then
	check "deb: man -w frugal-lock finds the package's page" \
		test "$(man -w frugal-lock 2>/dev/null)" = /usr/share/man/man1/frugal-lock.1.gz
	check "deb: man frugal-lock renders" eval 'MANWIDTH=80 man frugal-lock 2>/dev/null | grep -q -- --type-filter'
else
	skip "deb: man pages" "the package has no man pages yet (make install installs them once make man exists)"
fi
if has /usr/share/bash-completion/completions/frugal; then
	check "deb: the bash completion defines frugal's" bash -c \
		'. /usr/share/bash-completion/completions/frugal && complete -p frugal >/dev/null'
else
	skip "deb: bash completion" "the package has none yet (make install installs it once make completion exists)"
fi

# Nothing of the package's may be left: each file, and its own directories.
left() {
	local f
	while read -r f; do
		case $f in
		*/) ;;
		*) [ -e "$f" ] || [ -L "$f" ] && echo "$f" ;;
		esac
	done <"$_tmp/files"
	for f in /usr/libexec/frugal /usr/share/doc/frugal; do
		[ -e "$f" ] && echo "$f"
	done
	return 0
}
check "deb: apt removes it" eval 'apt-get remove -y -qq frugal >"$_tmp/apt.out" 2>&1'
check "deb: after remove, no file of it left" test -z "$(left)"
check "deb: dpkg --purge purges it" eval 'dpkg --purge frugal >"$_tmp/dpkg.out" 2>&1'
check "deb: after purge, dpkg knows nothing of it" \
	eval '! dpkg-query -W -f="\${Status}" frugal 2>/dev/null | grep -q .'
finish
