#!/usr/bin/env bash
# The README's performance figures against docs/bench.md.  Each paragraph
# of the README that quotes a benchmark sits between
#   <!-- figures: bench-NAME -->   and   <!-- /figures -->
# and must quote the latest run of "## bench-NAME" in docs/bench.md: the
# "###" heading there whose title ends with the greatest date
# (YYYY-MM-DD, then "(2)" and so on for the second run of a day).  Checked:
# the paragraph says that date; every number in it (outside `code` and
# dates) is one of that run's section, as written there or rounded half up
# to the README's decimals (0.1425 may be quoted 0.143); a run whose
# section holds a MISS is quoted with its misses (the word "miss"); and no
# ratio (0.NNx) of the README stands outside a marked paragraph.
# README=FILE and BENCH=FILE check other files (the test of this test).
. "$(dirname "$0")/../lib.sh"

README=${README:-$TOP/README.md}
BENCH=${BENCH:-$TOP/docs/bench.md}
if ! command -v python3 >/dev/null; then
	fail "readme figures" "needs python3 (scripts/install-deps.sh)"
	finish
fi
python3 - "$README" "$BENCH" <<'PY'
import re, sys
from decimal import Decimal, ROUND_HALF_UP

readme, bench = (open(f, encoding="utf-8").read() for f in sys.argv[1:3])
DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
NUM = re.compile(r"\d[\d,]*(?:\.\d+)?")


failed = False


def say(ok, name, why=""):
    global failed
    failed |= not ok
    print(("ok - " if ok else "not ok - ") + name + ("" if ok else ": " + why))


def latest_run(name):
    """(title, date, text) of the latest dated run of ## NAME, or a reason."""
    m = re.search(r"^## " + re.escape(name) + r"\b.*$", bench, re.M)
    if not m:
        return "docs/bench.md has no '## %s' section" % name
    end = re.search(r"^## ", bench[m.end():], re.M)
    part = bench[m.end(): m.end() + end.start() if end else len(bench)]
    runs = []
    for h in re.finditer(r"^### (.*?(\d{4}-\d{2}-\d{2})(?: \((\d+)\))?)\s*$", part, re.M):
        nxt = re.search(r"^#{1,3} ", part[h.end():], re.M)
        text = part[h.end(): h.end() + nxt.start() if nxt else len(part)]
        runs.append(((h.group(2), int(h.group(3) or 1)), h.group(1), h.group(2), text))
    if not runs:
        return "'## %s' has no run under a dated '###' heading" % name
    runs.sort()
    if len(runs) > 1 and runs[-1][0] == runs[-2][0]:
        return "two runs of %s are dated %s: number the second '(2)'" % (name, runs[-1][2])
    return runs[-1][1:]


def quoted(fig, text):
    """Is the README's figure FIG among the numbers of TEXT (or rounds from one)?"""
    want = fig.replace(",", "")
    dec = len(want.split(".")[1]) if "." in want else 0
    for n in NUM.findall(text):
        n = n.replace(",", "").rstrip(".")
        if n == want:
            return True
        if dec and "." in n and len(n.split(".")[1]) > dec:
            q = Decimal(n).quantize(Decimal(1).scaleb(-dec), rounding=ROUND_HALF_UP)
            if str(q) == want:
                return True
    return False


blocks = list(re.finditer(r"<!-- figures: (bench-[\w-]+) -->(.*?)<!-- /figures -->", readme, re.S))
names = {b.group(1) for b in blocks}
say({"bench-lock", "bench-btf"} <= names, "README: its benchmark figures in marked paragraphs",
    "found %s; want bench-lock's and bench-btf's at least" % (sorted(names) or "none"))
for b in blocks:
    name, para = b.group(1), b.group(2)
    run = latest_run(name)
    if isinstance(run, str):
        say(False, "README's %s figures" % name, run)
        continue
    title, date, text = run
    say(date in para, "README's %s figures: dated %s, the latest run (%s)" % (name, date, title),
        "the paragraph does not say %s" % date)
    plain = DATE.sub(" ", re.sub(r"`[^`]*`", " ", para))
    figs = NUM.findall(plain)
    missing = [f for f in figs if not quoted(f, text)]
    say(figs and not missing,
        "README's %s figures: all %d are the run of %s's" % (name, len(figs), date),
        ("not in it: " + " ".join(missing)) if figs else "no figure in the paragraph")
    if re.search(r"\bMISS", text):
        say(re.search(r"\bmiss", para, re.I) is not None,
            "README's %s figures: the run's misses stated beside its wins" % name,
            "the run of %s missed a target and the paragraph says no miss" % date)
outside = re.sub(r"<!-- figures: .*?<!-- /figures -->", " ", readme, flags=re.S)
stray = re.findall(r"\b\d+\.\d+x\b", outside)
say(not stray, "README: no ratio outside a marked paragraph",
    "outside <!-- figures: --> ... <!-- /figures -->: " + " ".join(stray))
sys.exit(1 if failed else 0)
PY
[ $? = 0 ] || _failed=1
finish
