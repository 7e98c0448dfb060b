#!/usr/bin/env bash
# lib/prom's expositions read by their real consumers: test_prom --dump
# writes every kind of family with hostile label values (quotes,
# backslashes, newlines, UTF-8, bytes that are not UTF-8, commas, '<').
#  - promtool check metrics (Debian's prometheus) lints the text format: it
#    must find nothing to complain of (names, _total, units, help).  It reads
#    the text format only (OpenMetrics' HELP escapes a double quote, which
#    its parser refuses), so OpenMetrics goes to the next reader alone.
#  - The Prometheus Python client's parsers (python3-prometheus-client),
#    text and OpenMetrics (the strict one: # EOF, UNIT, _total), must read
#    each label value back as prom.h promises: each valid character as
#    itself, each byte that is not UTF-8 as U+FFFD; the values, types,
#    units and help too.
. "$(dirname "$0")/../lib.sh"
GEN=$O/tests/test_prom
if [ ! -x "$GEN" ]; then
	skip "prom: promtool and the Python client" "no $GEN (make check-build)"
	finish
fi
for f in text openmetrics; do
	if ! "$GEN" --dump $f >"$_tmp/$f.txt"; then
		fail "prom: test_prom --dump $f" "it failed"
		finish
	fi
done

if command -v promtool >/dev/null; then
	out=$(promtool check metrics <"$_tmp/text.txt" 2>&1); rc=$?
	check "prom: promtool check metrics finds nothing in the text format (rc $rc: $out)" \
		test "$rc" -eq 0 -a -z "$out"
else
	skip "prom: promtool check metrics" "promtool is not installed (scripts/install-deps.sh: prometheus)"
fi

# Debian's module, for the system's python3 (another python3 may come first in PATH).
PY=python3
[ -x /usr/bin/python3 ] && PY=/usr/bin/python3
if ! $PY -c 'import prometheus_client.openmetrics.parser' 2>/dev/null; then
	skip "prom: the Python client's parsers" "python3-prometheus-client is not installed (scripts/install-deps.sh)"
	finish
fi
for f in text openmetrics; do
	res=$($PY - "$_tmp/$f.txt" "$TOP/tests/unit/test_prom.c" $f <<'PYEOF' 2>&1
import ast, math, re, sys
from prometheus_client.parser import text_string_to_metric_families as text_parse
from prometheus_client.openmetrics.parser import text_string_to_metric_families as om_parse
body = open(sys.argv[1], "rb").read().decode("utf-8")	# strict: the body is UTF-8
om = sys.argv[3] == "openmetrics"
fams = {f.name: f for f in (om_parse if om else text_parse)(body)}
# the hostile values as test_prom.c holds them, as C strings
src = open(sys.argv[2], encoding="utf-8").read()
table = src[src.index("hostile[] = {"):src.index("};", src.index("hostile[] = {"))]
vals = [b"".join(ast.literal_eval("b" + s) for s in re.findall(r'"(?:[^"\\]|\\.)*"', line))
        for line in table.splitlines()[1:] if line.strip().startswith('"')]
def expect(b):
    s = b.decode("utf-8", "surrogateescape")	# one surrogate per bad byte
    return "".join("\ufffd" if 0xdc80 <= ord(c) <= 0xdcff else c for c in s)
want = [expect(b) for b in vals]
assert len(want) > 8, "hostile values in the source: %d" % len(want)
assert sorted(fams) == sorted(["frugal_lock_contentions", "frugal_lock_wait_seconds",
    "frugal_lock_wait_duration_seconds", "frugal_lock_series", "process_resident_memory_bytes"]), sorted(fams)
c = fams["frugal_lock_contentions"]
assert c.type == "counter" and c.documentation == 'Contended lock waits, by "caller" \\ type\nsecond line', c.documentation
got = [s.labels["caller"] for s in c.samples]
assert got == want, "label values read back wrong: %r" % [(g, w) for g, w in zip(got, want) if g != w]
assert [s.name for s in c.samples] == ["frugal_lock_contentions_total"] * len(want)
assert [s.value for s in c.samples] == [1000 + i for i in range(len(want))]
w = fams["frugal_lock_wait_seconds"]
assert [s.value for s in w.samples] == [0.5 * i + 1e-9 for i in range(len(want))], [s.value for s in w.samples]
assert [s.labels["caller"] for s in w.samples] == want
h = fams["frugal_lock_wait_duration_seconds"]
assert h.type == "histogram"
hs = [(s.name.rsplit("_", 1)[1], s.labels.get("le"), s.value) for s in h.samples if s.labels["type"] == "rwsem:W"]
assert hs == [("bucket", "1e-06", 2), ("bucket", "0.001", 5), ("bucket", "1.0" if om else "1", 7),
              ("bucket", "+Inf", 9), ("sum", None, 2.75), ("count", None, 9)], hs
assert {s.labels["type"] for s in h.samples} == {"rwsem:W", "caf\u00e9\ufffd"}
g = fams["frugal_lock_series"]
assert g.type == "gauge" and g.samples[0].value == 12 and math.isnan(g.samples[1].value)
assert fams["process_resident_memory_bytes"].samples[0].value == 12345678
if om:
    assert w.unit == "seconds" and h.unit == "seconds" and c.unit == ""
    assert body.endswith("\n# EOF\n")
print("ok")
PYEOF
)
	check "prom: the Python client's $f parser reads every name, value and label back ($res)" \
		test "$res" = ok
done
finish
