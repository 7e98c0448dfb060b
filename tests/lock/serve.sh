#!/usr/bin/env bash
# frugal lock serve with its real consumers.  Over one run of the built-in
# workload, traced by the service and by a one-shot `frugal lock` at once
# (both attached before the workload starts, both stopped after its run is
# over): Debian's prometheus scrapes the service every second, and its
# HTTP API's totals, per lock type and caller, equal the one-shot report's
# and the service's own accounting, once prometheus has scraped a tick
# taken after the run (the scrape edge: no sleep decides it).  promtool
# finds nothing in a scrape; go tool pprof reads /debug/pprof/mutex over
# HTTP.  Then bad input (a malformed request, a huge header, a client
# sending a byte a second, a wrong password, SIGTERM in a profile's
# window): a log line each, no crash, nothing of ours left in the kernel;
# the refusal of a non-loopback address; one short run under ASan.  The
# wait-time histogram against the rows of the same scrape.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lock.inc"
can_bpf "lock serve" || finish
# make static's binary has no web server (lib/web_none.c): it says so in
# one line, before anything is loaded, and that is all there is to test.
if "$FRUGAL" lock serve --web.config.file=/nonexistent 2>&1 | grep -q "has no web server; use the package"; then
	pass "lock serve: this binary (the static build) has no web server, and says so"
	finish
fi
for t in prometheus promtool curl; do
	if ! command -v $t >/dev/null; then
		skip "lock serve" "$t is not installed (scripts/install-deps.sh, group check)"
		finish
	fi
done
GO=$(command -v go || echo /usr/lib/go/bin/go)
export HOME="$_tmp/home" GOCACHE="$_tmp/gocache" GOPATH="$_tmp/gopath" \
	GOTOOLCHAIN=local GOTELEMETRY=off GOFLAGS=
mkdir -p "$HOME"

# The refusal first: beyond loopback without a configuration file.
"$FRUGAL" lock serve --web.listen-address=0.0.0.0:0 -d 1 >"$_tmp/out" 2>"$_tmp/refused"; rc=$?
check "serve refuses a non-loopback address without --web.config.file (exit 2)" [ $rc -eq 2 ]
check "... in one line that names the way out" \
	bash -c "[ \$(grep -c . '$_tmp/refused') -le 2 ] && grep -q 'web.listen-remote' '$_tmp/refused'"
expect_exit "serve refuses -t (thread ids in labels)" 2 "$FRUGAL" lock serve -t -d 1

# port FILE: the port the service said it listens on.
port_of() { wait_for "$1" "listening on" 60 && sed -n 's/.*(port \([0-9]*\)).*/\1/p' "$1" | head -1; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
# metric TEXT NAME LABELS-REGEX: the sum of NAME's samples whose labels match.
msum() { awk -v n="$2" -v re="$3" '$1 ~ "^"n"({|$)" && $1 ~ re { s += $NF } END { printf "%.0f\n", s }' <<<"$1"; }
# raw PORT TEXT: TEXT sent as is, the answer read until the server closes.
raw() { timeout 15 bash -c 'exec 3<>/dev/tcp/127.0.0.1/$0; printf "$1" >&3; cat <&3' "$1" "$2" >/dev/null 2>&1; }
scrape() { curl -sf --max-time 10 "http://127.0.0.1:$1/metrics"; }

# ---- the run: the workload, the service, a one-shot run, prometheus ----
"$FRUGAL" bench lock -T 4 -P 4 -d 4 --start-on-usr1 --hold 20 2>"$_tmp/bench" & b=$!
pids=$(bench_ready "$_tmp/bench" $b) || fail "the bench said it was ready" "$(cat "$_tmp/bench")"
"$FRUGAL" lock serve -v -p "$pids" --web.listen-address=127.0.0.1:0 2>"$_tmp/serve.err" & s=$!
P=$(port_of "$_tmp/serve.err") || fail "the service listens" "$(tail -3 "$_tmp/serve.err")"
wait_for "$_tmp/serve.err" attached 120 || fail "the service attached" "$(tail -3 "$_tmp/serve.err")"
sprogs=$(ids_of_pid prog $s); slinks=$(ids_of_pid link $s)
"$FRUGAL" lock -v --max-stack 16 --json -p "$pids" >"$_tmp/oneshot.json" 2>"$_tmp/oneshot.err" & f=$!
wait_for "$_tmp/oneshot.err" attached 120 || fail "the one-shot run attached" "$(tail -3 "$_tmp/oneshot.err")"

PP=$(free_port)
cat >"$_tmp/prom.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: frugal
    static_configs:
      - targets: ['127.0.0.1:$P']
EOF
prometheus --config.file="$_tmp/prom.yml" --storage.tsdb.path="$_tmp/tsdb" \
	--web.listen-address=127.0.0.1:$PP >"$_tmp/prom.log" 2>&1 & pr=$!
q() { curl -sf --max-time 10 "http://127.0.0.1:$PP/api/v1/query" --data-urlencode "query=$1" |
	python3 -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print("%.0f" % sum(float(x["value"][1]) for x in r) if r else -1)'; }

kill -USR1 $b
# A profile over HTTP while the workload runs.
if [ -x "$GO" ]; then
	"$GO" tool pprof -raw "http://127.0.0.1:$P/debug/pprof/mutex?seconds=2" >"$_tmp/raw" 2>"$_tmp/pprof.err" &
	gp=$!
fi
run_over "$_tmp/bench" $b
check "the bench's run was over before the tracers stopped" grep -q "run over" "$_tmp/bench"
stop_tracer $f
C1=$(json "$_tmp/oneshot.json" 'd["accounting"]["completed"]')
R1=$(json "$_tmp/oneshot.json" 'd["accounting"]["in_rows"]')

# The service's own accounting, once two ticks in a row add nothing (the
# workload is parked): its final counts.  The sleeping locks the workload
# takes (mutex, rwsem) happen only in its run, so for them the one-shot
# run's rows are exact; spinlocks of its idle tasks may come in either
# tracer's margin.
last=; same=0
for i in $(seq 100); do
	m=$(scrape $P) || break
	cur="$(msum "$m" frugal_lock_events_total 'outcome="completed"') $(msum "$m" frugal_lock_ticks_total '')"
	if [ "${cur% *}" = "${last% *}" ] && [ "${cur#* }" != "${last#* }" ]; then
		same=$((same + 1)); [ $same -ge 2 ] && break
	fi
	[ "${cur% *}" = "${last% *}" ] || same=0
	last=$cur; sleep 0.5
done
S=$(msum "$m" frugal_lock_events_total 'outcome="completed"')
SR=$(msum "$m" frugal_lock_events_total 'outcome="in_rows"')
check "the service's counts settle once the workload is parked" [ $same -ge 2 ]
check "its contentions in series equal its accounting's in_rows ($SR)" \
	[ "$(msum "$m" frugal_lock_contentions_total '')" = "$SR" ]
# Every end in the one-shot run's window is in the service's longer one:
# completed, or counted as an end its program was skipped for.
SK=$(msum "$m" frugal_lock_events_total 'outcome="lost_skipped_end"')
check "its ends seen ($S + $SK skipped) are the one-shot run's completed ($C1) or more" \
	[ $((S + SK)) -ge "$C1" ]
printf '%s\n' "$m" >"$_tmp/m1"
check "no pid, tid or address in the labels" \
	bash -c "! grep -E '^frugal_lock_(contentions|wait_seconds)_total\{.*(pid|tid|address)=' '$_tmp/m1'"
# The wait-time histogram beside the rows of the same scrape: every end
# that is a contention adds to its type's buckets as to one row (lost_ringbuf's
# only to the buckets), so once the counts settle a type's _count is its
# contentions' sum, exactly; the buckets only grow with their bound, +Inf is
# the count, _sum is the wait's.
res=$(python3 - "$_tmp/m1" 2>&1 <<'PY'
import collections, re, sys
lab = re.compile(r'(\w+)="((?:[^"\\]|\\.)*)"')
cont, wait, lost = collections.Counter(), collections.Counter(), 0
hc, hs, hb = {}, {}, collections.defaultdict(list)
for line in open(sys.argv[1]):
    if line.startswith("#") or not line.strip():
        continue
    head, v = line.rsplit(" ", 1)
    name, l = head.split("{", 1) if "{" in head else (head, "")
    l, v = dict(lab.findall(l)), float(v)
    if name == "frugal_lock_contentions_total":
        cont[l["type"]] += v
    elif name == "frugal_lock_wait_seconds_total":
        wait[l["type"]] += v
    elif name == "frugal_lock_events_total" and l["outcome"] == "lost_ringbuf":
        lost = v
    elif name == "frugal_lock_wait_duration_seconds_count":
        hc[l["type"]] = v
    elif name == "frugal_lock_wait_duration_seconds_sum":
        hs[l["type"]] = v
    elif name == "frugal_lock_wait_duration_seconds_bucket":
        hb[l["type"]].append((float(l["le"]), v))
assert hc, "no histogram"
assert lost == 0, "lost_ringbuf %d" % lost
assert sorted(hc) == sorted(cont), ("types", sorted(hc), sorted(cont))
for t, n in hc.items():
    assert n == cont[t], (t, "count", n, cont[t])
    assert abs(hs[t] - wait[t]) <= 1e-6 * max(1, wait[t]), (t, "sum", hs[t], wait[t])
    b = sorted(hb[t])
    assert len(b) == 9 and b[-1][0] == float("inf") and b[-1][1] == n, (t, b)
    assert all(x[1] <= y[1] for x, y in zip(b, b[1:])), (t, "not cumulative", b)
print("ok %d types, %d waits" % (len(hc), sum(hc.values())))
PY
)
check "the wait histogram per type: _count the type's contentions, buckets cumulative to +Inf, _sum its wait ($res)" \
	test "${res%% *}" = ok

# Prometheus' view, once it has scraped that far (the scrape edge).
for i in $(seq 150); do
	[ "$(q 'sum(frugal_lock_events_total{outcome="completed"})')" = "$S" ] && break
	sleep 0.2
done
check "prometheus' completed count equals the service's ($S)" \
	[ "$(q 'sum(frugal_lock_events_total{outcome="completed"})')" = "$S" ]
check "prometheus' contentions sum equals the service's rows ($SR)" \
	[ "$(q 'sum(frugal_lock_contentions_total)')" = "$SR" ]
# Per lock type and caller function, the one-shot report's rows summed.
python3 - "$_tmp/oneshot.json" >"$_tmp/expect" <<'PY'
import json, sys, collections
d = json.load(open(sys.argv[1])); c = collections.Counter()
for r in d["rows"]:
    if r["type"].split(":")[0] in ("mutex", "rwsem"):
        c[(r["type"], r["caller"].split("+")[0])] += r["contended"]
for (t, f), n in sorted(c.items()):
    print("%s\t%s\t%d" % (t, f, n))
PY
bad=
while IFS=$'\t' read -r t fn n; do
	got=$(q "sum(frugal_lock_contentions_total{type=\"$t\",caller=\"$fn\"})")
	[ "$got" = "$n" ] || [ "$got" = "$n.0" ] || bad="$bad $t/$fn:$n/$got"
done <"$_tmp/expect"
check "prometheus finds the workload's mutexes and rwsems by caller, each as the one-shot run counts it" \
	bash -c "[ -s '$_tmp/expect' ] && [ -z '$bad' ]" || echo "# $bad"

scrape $P >"$_tmp/metrics.txt"
check "promtool check metrics finds nothing" promtool check metrics <"$_tmp/metrics.txt"
curl -sf -H 'Accept: application/openmetrics-text; version=1.0.0' "http://127.0.0.1:$P/metrics" >"$_tmp/om.txt"
check "OpenMetrics when asked, ending in # EOF" bash -c "tail -1 '$_tmp/om.txt' | grep -qx '# EOF'"
if [ -x "$GO" ]; then
	wait $gp
	check "go tool pprof -raw reads /debug/pprof/mutex?seconds=2 over HTTP" \
		grep -q "^Samples:" "$_tmp/raw"
else
	skip "go tool pprof over HTTP" "go (golang-go) is not installed"
fi
check "the landing page lists the endpoints" \
	bash -c "curl -sf http://127.0.0.1:$P/ | grep -q /debug/pprof/mutex"

# ---- bad input: a log line each, the service alive ----
lines0=$(wc -l <"$_tmp/serve.err")
raw $P 'NOT HTTP AT ALL\r\n\r\n'
curl -s -o /dev/null -w '%{http_code}' -H "X-Big: $(head -c 100000 /dev/zero | tr '\0' a)" \
	"http://127.0.0.1:$P/metrics" >"$_tmp/big.code"
check "a huge header is refused (431 or 413), not served" grep -qE '^(431|413|400)$' "$_tmp/big.code"
python3 - $P >"$_tmp/slow" 2>&1 <<'PY' &
import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
for c in b"GET /metrics HTTP/1.1\r\n":
    try:
        s.send(bytes([c])); time.sleep(1)
    except OSError:
        print("cut"); break
PY
slow=$!
t0=$(date +%s%N); scrape $P >/dev/null; t1=$(date +%s%N)
check "a client sending a byte a second stalls no scrape" [ $(((t1 - t0) / 1000000)) -lt 2000 ]
wait $slow
check "... and is cut" grep -q cut "$_tmp/slow"
check "the service survived the bad requests" kill -0 $s
check "each bad request is logged" [ "$(wc -l <"$_tmp/serve.err")" -gt "$lines0" ]

# SIGTERM in a profile's window: answered with what it has, exit 0, nothing left.
# The signal goes once the service says the window is open (its gauge),
# not after a sleep that a loaded machine can outlast before curl connects.
curl -s -o "$_tmp/cut.pb.gz" -w '%{http_code}' "http://127.0.0.1:$P/debug/pprof/mutex?seconds=60" >"$_tmp/cut.code" & c=$!
for i in $(seq 300); do
	scrape $P | grep -qx 'frugal_lock_profile_windows 1' && break
	kill -0 $c 2>/dev/null || break
	sleep 0.1
done
check "the window is open before the signal (frugal_lock_profile_windows 1)" \
	bash -c "curl -sf --max-time 10 http://127.0.0.1:$P/metrics | grep -qx 'frugal_lock_profile_windows 1'"
kill -TERM $s
wait $s; rc=$?
wait $c
check "SIGTERM during a profile's window: exit 0" [ $rc -eq 0 ]
check "... the profile is answered" grep -qx 200 "$_tmp/cut.code"
check "... and no program or link of the service is left" all_gone "$sprogs" "$slinks"
kill $pr 2>/dev/null; wait $pr 2>/dev/null
kill $b 2>/dev/null; wait $b 2>/dev/null

# ---- a wrong password, through --web.config.file with a bcrypt hash ----
H=$(python3 -c 'import crypt; print(crypt.crypt("right", crypt.mksalt(crypt.METHOD_BLOWFISH)))' 2>/dev/null)
if [ -n "$H" ]; then
	printf 'basic_auth_users:\n  alice: %s\n' "$H" >"$_tmp/web.yml"
	"$FRUGAL" lock serve --web.config.file="$_tmp/web.yml" --web.listen-address=127.0.0.1:0 \
		2>"$_tmp/auth.err" & a=$!
	AP=$(port_of "$_tmp/auth.err")
	check "a wrong password gets 401" bash -c \
		"[ \$(curl -s -o /dev/null -w '%{http_code}' -u alice:wrong http://127.0.0.1:$AP/metrics) = 401 ]"
	check "the right one gets the metrics" bash -c \
		"curl -sf -u alice:right http://127.0.0.1:$AP/metrics | grep -q frugal_lock_events_total"
	kill -TERM $a; wait $a
	check "... and the service stops cleanly (exit 0)" [ $? -eq 0 ]
else
	skip "lock serve: a wrong password" "python3 cannot make a bcrypt hash"
fi

# ---- under ASan: one short run, scraped ----
ASAN=${ASAN_FRUGAL:-$(dirname "$FRUGAL")/asan/frugal}
if [ -x "$ASAN" ]; then
	ASAN_OPTIONS=detect_leaks=1 "$ASAN" lock serve --web.listen-address=127.0.0.1:0 2>"$_tmp/asan.err" & a=$!
	AP=$(port_of "$_tmp/asan.err")
	wait_for "$_tmp/asan.err" attached 120 || true
	scrape "$AP" >/dev/null
	curl -s -o /dev/null "http://127.0.0.1:$AP/debug/pprof/mutex?seconds=1"
	raw "$AP" 'BAD\r\n\r\n'
	kill -TERM $a; wait $a; rc=$?
	check "under ASan: exit 0, no report" bash -c "[ $rc -eq 0 ] && ! grep -q 'ERROR: \\(Address\\|Leak\\)Sanitizer' '$_tmp/asan.err'"
else
	skip "lock serve under ASan" "no ASan build at $ASAN (make check-build)"
fi
finish
