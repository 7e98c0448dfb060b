#!/usr/bin/env bash
# lib/json's documents read back by a real parser: test_json --dump writes
# nested values and the hostile names (UTF-8 of 2-4 bytes, overlong forms,
# surrogates, cut sequences, lone bytes, every kind of control, quotes,
# backslash, '<'), and python3's json module must parse them (strict, as
# UTF-8) to what json.h promises: each valid character as itself, each
# byte that is not UTF-8 as U+FFFD.
. "$(dirname "$0")/../lib.sh"
GEN=$O/tests/test_json
if [ ! -x "$GEN" ]; then
	skip "json: parsed by python3" "no $GEN (make check-build)"
	finish
fi
if ! "$GEN" --dump >"$_tmp/doc.json"; then
	fail "json: parsed by python3" "test_json --dump failed"
	finish
fi
# The names as test_json.c holds them, as C strings: the expected values.
res=$(python3 - "$_tmp/doc.json" "$TOP/tests/unit/test_json.c" <<'PYEOF' 2>&1
import ast, json, re, sys
raw = open(sys.argv[1], "rb").read()
text = raw.decode("utf-8")			# strict: the document is UTF-8
dec = json.JSONDecoder(strict=True)
docs, i = [], 0
while i < len(text):
    while i < len(text) and text[i] in " \n":
        i += 1
    if i < len(text):
        d, i = dec.raw_decode(text, i)
        docs.append(d)
assert len(docs) == 2 and docs[1] == [], "two documents, the second []: %r" % docs[1:]
d = docs[0]
assert [r["n"] for r in d["rows"]] == [0, 1, 2] and d["rows"][0]["deep"] == [["a", False], 7]
assert d["big"] == 2**64 - 1 and d["neg"] == -5 and d["inf"] is None and d["nil"] is None
# the table of names in the C source: each { "in", "want" } row's input
src = open(sys.argv[2], encoding="utf-8").read()
table = src[src.index("names[] = {"):src.index("};", src.index("names[] = {"))]
ins = []
for m in re.finditer(r'^\t\{ ((?:"(?:[^"\\]|\\.)*"\s*)+),', table, re.M):
    b = b"".join(ast.literal_eval("b" + s) for s in re.findall(r'"(?:[^"\\]|\\.)*"', m[1]))
    ins.append(b)
def expect(b):
    s = b.decode("utf-8", "surrogateescape")	# one surrogate per bad byte
    return "".join("\ufffd" if 0xdc80 <= ord(c) <= 0xdcff else c for c in s)
assert len(ins) == len(d["names"]) > 20, "%d names in the source, %d written" % (len(ins), len(d["names"]))
bad = [(b, got) for b, got in zip(ins, d["names"]) if got != expect(b)]
assert not bad, "names read back wrong: %r" % bad[:3]
key = [k for k in d if k.startswith("caf")]
assert key == ["caf\u00e9,\"\n\ufffd"], "the escaped key: %r" % key
print("ok")
PYEOF
)
check "json: test_json's documents parse (python3, strict UTF-8); every name reads back as json.h says ($res)" \
	test "$res" = ok
finish
