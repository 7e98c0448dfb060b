# shellcheck shell=bash
# A private apt, for the fetch scripts; sourced, never run.  apt reads its
# own sources list, package lists and cache under one directory, sees an
# empty status (nothing installed), and only ever downloads: nothing on the
# system changes.
#
# The caller sets WHO (its name, for messages) and calls
#   apt_private DIR SUITE...    DIR holds the state; SUITE is e.g. bookworm
#                               or bookworm-security (the latter from the
#                               security mirror)
# (APT_ARCH, default amd64, set before apt_private: the architecture whose
# packages it lists and downloads, e.g. arm64 for another machine's kernel)
# then apt_ready (reads the package lists unless read before), apt_download
# PKG..., apt_dep PKG REGEX (prints the first dependency of PKG matching
# REGEX; call apt_ready first, outside the $(...), so that its exit status
# is the script's).  With APT_SOURCES=1 set before apt_private, the lists
# are of source packages, and apt_source PKG downloads one.  Failures: die (exit 1), and
# unreachable (exit 3) when the archive cannot be reached, which the tests
# report as a skip rather than a failure.
#
# FRUGAL_DEBIAN_MIRROR and FRUGAL_DEBIAN_SECURITY_MIRROR override the
# mirrors (default: those this machine's own apt sources name, else
# deb.debian.org).
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg

die() { echo "$WHO: $*" >&2; exit 1; }
unreachable() { echo "$WHO: $*" >&2; exit 3; }

# apt_mirror [security]: the Debian mirror this machine uses.
apt_mirror() {
	local m want=/debian/ skip=security
	if [ "${1-}" = security ]; then
		m=${FRUGAL_DEBIAN_SECURITY_MIRROR:-} want=/debian-security skip=NONE
	else
		m=${FRUGAL_DEBIAN_MIRROR:-}
	fi
	if [ -z "$m" ]; then
		m=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.sources \
			/etc/apt/sources.list.d/*.list 2>/dev/null |
			grep -oE "https?://[^ ]+${want}?( |$)" | grep -v "$skip" | head -1 | tr -d ' ')
	fi
	echo "${m:-http://deb.debian.org$want}"
}

apt_private() {
	APT=$1; shift
	APT_SUITES="$*"
	APT_OPTS=(-o "Dir::Etc::sourcelist=$APT/sources.list" -o Dir::Etc::sourceparts=/nonexistent
		-o "Dir::State::Lists=$APT/lists" -o "Dir::Cache=$APT/cache"
		-o Dir::State::status=/dev/null -o "APT::Architecture=${APT_ARCH:-amd64}"
		-o Debug::NoLocking=1 -o APT::Sandbox::User=root -q=2)
}

apt_update() {
	local s kind=deb list=binary-${APT_ARCH:-amd64}_Packages
	[ -n "${APT_SOURCES:-}" ] && kind=deb-src list=source_Sources
	mkdir -p "$APT/lists/partial" "$APT/cache/archives/partial"
	for s in $APT_SUITES; do
		case $s in
		*-security) echo "$kind [signed-by=$KEYRING] $(apt_mirror security) $s main" ;;
		*) echo "$kind [signed-by=$KEYRING] $(apt_mirror) $s main" ;;
		esac
	done > "$APT/sources.list"
	# apt-get update may say only "W: Failed to fetch" and exit 0: the
	# first suite's package list must be there.
	s=${APT_SUITES%% *}
	if ! timeout 600 apt-get "${APT_OPTS[@]}" update >/dev/null 2>"$APT/update.err" ||
	   ! ls "$APT"/lists/*_"${s}"_main_"$list"* >/dev/null 2>&1; then
		rm -f "$APT/sources.list"	# try again next time
		unreachable "apt-get update ($APT_SUITES, $(apt_mirror)): $(grep -v 'unsandboxed' "$APT/update.err" | tail -1)"
	fi
}

apt_ready() { [ -s "$APT/sources.list" ] || apt_update; }

# apt_download PKG...: into the current directory; the lists refreshed once
# if stale (the archive moved on since they were read).
apt_download() {
	apt_ready
	if ! timeout 900 apt-get "${APT_OPTS[@]}" download "$@" >/dev/null 2>&1; then
		apt_update
		timeout 900 apt-get "${APT_OPTS[@]}" download "$@" >/dev/null 2>"$APT/download.err" ||
			unreachable "apt-get download $*: $(grep -v '^W:' "$APT/download.err" | tail -1)"
	fi
}

# apt_source PKG: PKG's source package (its .dsc and the files it names,
# checked against the archive's signed index) into the current directory.
apt_source() {
	apt_ready
	timeout 900 apt-get "${APT_OPTS[@]}" source --download-only "$1" >/dev/null 2>"$APT/source.err" ||
		unreachable "apt-get source $1: $(grep -v '^W:' "$APT/source.err" | tail -1)"
}

# apt_dep PKG REGEX: the first package PKG depends on whose name matches
# REGEX (a meta package's Depends name the versioned package behind it).
apt_dep() {
	apt-cache "${APT_OPTS[@]}" depends "$1" 2>/dev/null |
		awk -v re="$2" '$1 == "Depends:" && $2 ~ re { print $2; exit }'
}

# apt_pahole DIR SUITE VERSION PKG...: SUITE's pahole and the libraries it
# runs on, unpacked into DIR/root, run by DIR/bin/pahole through SUITE's
# own loader; DIR/VERSION ("pahole v1.30") says it is there.  Once: an
# existing DIR/VERSION is kept.  VERSION, if not empty, is what its
# --version must say.
apt_pahole() {
	local P=$1 suite=$2 want=$3 d
	shift 3
	[ -s "$P/VERSION" ] && return 0
	rm -rf "$P"
	mkdir -p "$P/dl" "$P/bin"
	(cd "$P/dl" && apt_download "$@")
	for d in "$P"/dl/*.deb; do
		dpkg-deb -x "$d" "$P/root"
	done
	rm -rf "$P/dl"
	cat > "$P/bin/pahole" <<EOS
#!/bin/sh
# pahole from Debian $suite, through $suite's own loader and libraries.
R=\$(dirname "\$(dirname "\$(readlink -f "\$0")")")/root
L=\$R/usr/lib/x86_64-linux-gnu
exec "\$L/ld-linux-x86-64.so.2" --library-path "\$L" "\$R/usr/bin/pahole" "\$@"
EOS
	chmod +x "$P/bin/pahole"
	"$P/bin/pahole" --version > "$P/VERSION.tmp" 2>&1 ||
		die "$suite's pahole does not run: $(head -1 "$P/VERSION.tmp")"
	[ -z "$want" ] || grep -qx "$want" "$P/VERSION.tmp" ||
		die "$suite's pahole says $(head -1 "$P/VERSION.tmp"), not $want"
	sed -i 's/^/pahole /' "$P/VERSION.tmp"
	mv "$P/VERSION.tmp" "$P/VERSION"
}
