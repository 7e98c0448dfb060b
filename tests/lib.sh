# Shell helpers for end-to-end tests; sourced, never run.  Each case prints
# one line that tests/run counts: "ok - NAME", "not ok - NAME: why",
# "skip - NAME: why".
set -u
TOP=${TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
O=${O:-build}
case "$O" in /*) ;; *) O="$TOP/$O" ;; esac
FRUGAL=${FRUGAL:-$O/frugal}
_failed=0

pass() { echo "ok - $1"; }
fail() { echo "not ok - $1: $2"; _failed=1; }
skip() { echo "skip - $1: $2"; }
# check NAME COND-COMMAND...: pass if the command succeeds.
check() {
	local name=$1; shift
	if "$@"; then pass "$name"; else fail "$name" "'$*' failed"; fi
}
# expect_exit NAME CODE CMD...: run CMD, compare its exit code; output in $out/$err.
expect_exit() {
	local name=$1 want=$2; shift 2
	out=$("$@" 2>"$_tmp/stderr"); local rc=$?
	err=$(cat "$_tmp/stderr")
	if [ "$rc" -eq "$want" ]; then pass "$name"; else fail "$name" "exit $rc, expected $want; stderr: $err"; fi
}
_tmp=$(mktemp -d)
trap '[ -n "${KEEP_TMP:-}" ] || rm -rf "$_tmp"' EXIT
finish() { exit $_failed; }
