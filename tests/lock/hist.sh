#!/usr/bin/env bash
# --histogram: the kernel's wait-time histogram per lock type (lock.h,
# struct lock_hist), beside the rows of the same run.  Every end that is a
# contention adds to one bucket of its type and its wait to the type's
# total, as it adds to one row, so the accounting makes the comparison
# exact: per type, the histogram's count is the rows' contentions and its
# total their wait, and its lowest and highest buckets are those of the
# type's shortest and longest wait.  An end the buffers had no room for
# (lost_ringbuf) is in the histogram and in no row: the counts then match
# with the losses added (exact), and the waits, the per-type counts and the
# buckets, whose share of the losses is not known, only bound the rows'.  Caller mode (ends
# added to the kernel's rows), then -t -M 8 over many tasks (most ends sent
# through the buffers), the same with the smallest buffers (losses), then
# --nested (the second copy's half of the map).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lock.inc"
can_bpf "lock --histogram" || finish

expect_exit "lock --histogram: refused without --json" 2 "$FRUGAL" lock --histogram -d 0.01

# hist_matches FILE [total]: the histogram against the rows, per type; with
# "total", only over all types (-t: a task's row takes the type of its
# first wait, and a task waits on locks of several types).
hist_matches() {
	python3 - "$1" "${2:-}" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
h, a = d["wait_histogram"], d["accounting"]
lost = a["lost_ringbuf"]
rows = {}
for r in d["rows"]:
    t = rows.setdefault(r["type"], [0, 0, None, 0])
    t[0] += r["contended"]; t[1] += r["wait_total_ns"]
    t[2] = r["wait_min_ns"] if t[2] is None else min(t[2], r["wait_min_ns"])
    t[3] = max(t[3], r["wait_max_ns"])
assert rows, "no rows"
n = sum(x["count"] for x in h.values())
ns = sum(x["sum_ns"] for x in h.values())
rn = sum(v[0] for v in rows.values())
rns = sum(v[1] for v in rows.values())
assert n == rn + lost, ("count", n, "rows", rn, "lost_ringbuf", lost)
assert ns == rns if not lost else ns >= rns, ("wait", ns, "rows", rns, "lost_ringbuf", lost)
if sys.argv[2] == "total":
    print("ok %d waits, %d lost" % (n, lost))
    sys.exit(0)
def bucket(ns):	# lock.h's lock_hist_bucket(): the smallest b with ns <= 2^b, at most 31
    b = 0
    while b < 31 and ns > 1 << b:
        b += 1
    return b
def le(b):
    return 1 << 40 if b == 31 else 1 << b
def le_of(x):
    return 1 << 40 if x["le_ns"] is None else x["le_ns"]
if not lost:
    assert sorted(h) == sorted(rows), "types: histogram %s, rows %s" % (sorted(h), sorted(rows))
for t, (n, ns, lo, hi) in rows.items():
    x = h[t]
    assert x["count"] == sum(b["count"] for b in x["buckets"]), (t, x["count"])
    lb, hb = le_of(x["buckets"][0]), le_of(x["buckets"][-1])
    if not lost:
        assert x["count"] == n and x["sum_ns"] == ns, (t, x["count"], n, x["sum_ns"], ns)
        assert lb == le(bucket(lo)) and hb == le(bucket(hi)), (t, lb, hb, lo, hi)
    else:
        assert x["count"] >= n and x["sum_ns"] >= ns, (t, x["count"], n, x["sum_ns"], ns)
        assert lb <= le(bucket(lo)) and hb >= le(bucket(hi)), (t, lb, hb, lo, hi)
print("ok %d types, %d waits, %d lost" % (len(rows), rn, lost))
PYEOF
}

BENCH="$FRUGAL bench lock -T 4 -P 4 -d 0.7 --delay 0.3"
for mode in "caller:" "overflow:-t -M 8" "lossy:-t -M 8 --ring-size 4" "nested:--nested"; do
	name=${mode%%:*} opts=${mode#*:}
	bench=$BENCH
	case $name in overflow|lossy) bench="$FRUGAL bench lock -T 64 -P 64 -d 0.7 --delay 0.3" ;; esac
	# shellcheck disable=SC2086
	if ! "$FRUGAL" lock --histogram --json $opts -- $bench >"$_tmp/$name.json" 2>"$_tmp/$name.err"; then
		fail "lock --histogram ($name): ran" "$(tail -3 "$_tmp/$name.err")"
		continue
	fi
	if [ "$name" != caller ] && [ "$name" != nested ]; then
		res=$(hist_matches "$_tmp/$name.json" total 2>&1)
		check "lock --histogram ($name $opts): count and total over the types are the rows' ($res)" \
			test "${res%% *}" = ok
	else
		res=$(hist_matches "$_tmp/$name.json" 2>&1)
		check "lock --histogram ($name $opts): per type, count and total are the rows', buckets those of the shortest and longest wait ($res)" \
			test "${res%% *}" = ok
	fi
	if [ "$name" = overflow ]; then
		# -M 8 holds 8 rows in the kernel: every row past them came
		# through the buffers (how many ends each carried depends on
		# which tasks contended most, which a loaded machine changes).
		check "lock --histogram (overflow): rows past the kernel table's 8, carried by the buffers" \
			holds "$_tmp/$name.json" 'len(d["rows"]) > 8 and d["accounting"]["merged_from_overflow"] > 0'
	fi
done
finish
