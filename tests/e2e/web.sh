#!/usr/bin/env bash
# lib/web over TLS, against real clients: test_web --serve loads a
# --web.config.file (a self-signed certificate made here by openssl, named
# relative to the file's folder; a bcrypt user made by test_web --bcrypt)
# and curl checks the certificate with --cacert: the right password
# answers, no or a wrong password gets 401 with a challenge, plain HTTP to
# the HTTPS port gets nothing, and SIGTERM while a handler runs stops the
# server cleanly.  The server runs under valgrind when it is installed
# (leaks and invalid accesses fail the test).
. "$(dirname "$0")/../lib.sh"
T=$O/tests/test_web
if [ ! -x "$T" ]; then
	skip "web" "no $T (make check-build)"
	finish
fi
for tool in openssl curl; do
	if ! command -v "$tool" >/dev/null; then
		skip "web" "$tool is not installed (scripts/install-deps.sh check)"
		finish
	fi
done

mkdir -p "$_tmp/conf/tls"
if ! openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
	-subj /CN=localhost -addext "subjectAltName=IP:127.0.0.1,DNS:localhost" \
	-keyout "$_tmp/conf/tls/key.pem" -out "$_tmp/conf/tls/cert.pem" 2>"$_tmp/openssl.err"; then
	fail "web: a test certificate" "openssl: $(tail -1 "$_tmp/openssl.err")"
	finish
fi
hash=$("$T" --bcrypt 's3cret')
check "web: test_web --bcrypt makes a \$2b\$ hash" eval '[[ "$hash" == \$2b\$05\$* ]]'
cat >"$_tmp/conf/web.yml" <<EOF
# names relative to this file's folder
tls_server_config:
  cert_file: tls/cert.pem
  key_file: tls/key.pem
basic_auth_users:
  alice: '$hash'
EOF

run=("$T")
if command -v valgrind >/dev/null && [ "${VALGRIND:-1}" != 0 ]; then
	run=(valgrind -q --leak-check=full --errors-for-leak-kinds=definite,indirect --error-exitcode=99 "$T")
fi
# From another folder: the certificate's names resolve against web.yml's.
(cd / && exec "${run[@]}" --serve "$_tmp/conf/web.yml") >"$_tmp/port" 2>"$_tmp/server.err" &
pid=$!
# Bounded by the server itself: it prints its port once listening, or exits.
for _ in $(seq 600); do
	[ -s "$_tmp/port" ] && break
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.1
done
port=$(head -1 "$_tmp/port")
if [ -z "$port" ]; then
	fail "web: test_web --serve starts" "no port; stderr: $(tail -3 "$_tmp/server.err")"
	kill "$pid" 2>/dev/null
	finish
fi
pass "web: test_web --serve listens over TLS on 127.0.0.1:$port"
url=https://127.0.0.1:$port

# code URL [curl options]: the HTTP status curl saw (000: none), body in $_tmp/body.
code() {
	local u=$1; shift
	curl -sS -o "$_tmp/body" -D "$_tmp/headers" -w '%{http_code}' --max-time 20 "$@" "$u" 2>"$_tmp/curl.err"
}
c=$(code "$url/metrics" --cacert "$_tmp/conf/tls/cert.pem" -u alice:s3cret)
check "web: HTTPS with the right password: 200 (certificate checked with --cacert)" [ "$c" = 200 ]
check "web: ... and the route's body" grep -qx 'frugal_test_up 1' "$_tmp/body"
c=$(code "$url/metrics" --cacert "$_tmp/conf/tls/cert.pem")
check "web: no credentials: 401" [ "$c" = 401 ]
check "web: ... with a Basic challenge" grep -qi '^WWW-Authenticate: Basic realm="frugal"' "$_tmp/headers"
c=$(code "$url/metrics" --cacert "$_tmp/conf/tls/cert.pem" -u alice:wrong)
check "web: a wrong password: 401" [ "$c" = 401 ]
c=$(code "$url/metrics" --cacert "$_tmp/conf/tls/cert.pem" -u mallory:s3cret)
check "web: an unknown user: 401" [ "$c" = 401 ]
c=$(code "$url/nope" --cacert "$_tmp/conf/tls/cert.pem" -u alice:s3cret)
check "web: an unknown path over TLS: 404" [ "$c" = 404 ]
c=$(code "http://127.0.0.1:$port/metrics" -u alice:s3cret)
check "web: plain HTTP to the HTTPS port: no answer" [ "$c" = 000 ]
c=$(code "$url/metrics" -u alice:s3cret)
check "web: a client that does not trust the certificate refuses it" [ "$c" = 000 ]

# SIGTERM while /slow's handler runs: the server waits for it, then exits 0.
curl -sS -o /dev/null --max-time 20 --cacert "$_tmp/conf/tls/cert.pem" -u alice:s3cret "$url/slow" \
	2>/dev/null &
cpid=$!
for _ in $(seq 600); do
	grep -q '^slow: in' "$_tmp/server.err" && break
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.1
done
check "web: /slow's handler running" grep -q '^slow: in' "$_tmp/server.err"
kill -TERM "$pid"
wait "$pid"
rc=$?
wait "$cpid"
check "web: SIGTERM while a handler runs: exit 0, no leak (${run[0]##*/})" [ "$rc" = 0 ]
check "web: ... after the handler ended" eval 'grep -n "" "$_tmp/server.err" | grep -A99 "slow: out" | grep -q stopped'
check "web: a wrong password logged in one line, no password in the log" \
	eval 'grep -q "401 wrong password for user \"alice\"" "$_tmp/server.err" && ! grep -q s3cret "$_tmp/server.err"'
check "web: plain HTTP to the HTTPS port logged" grep -q 'closed: no TLS handshake' "$_tmp/server.err"
[ "$rc" != 0 ] && sed 's/^/    /' "$_tmp/server.err" | tail -30
finish
