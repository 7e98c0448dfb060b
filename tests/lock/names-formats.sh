#!/usr/bin/env bash
# Hostile names through every format of frugal lock.  Six copies of
# fixtures/fappend.c, each named by its file (exec names a task after it),
# append to a file of the same name: its comm (-t) and its file's path
# (-l: `f_pos_lock of PATH`) hold UTF-8 of 2 and 3 bytes ("café-日本"),
# bytes that are not UTF-8, a 3-byte character cut by the kernel's 15-byte
# comm, quotes, a comma, '<', '>', '&', ';', a newline, a tab, an escape
# and DEL.  Each format is read by its real consumer and must say every
# name as documented:
#   JSON (--json)     python3's json, the document strict UTF-8: the name,
#                     each byte that is not UTF-8 as U+FFFD (lib/json.h)
#   CSV (-x ,)        python3's csv: the name's bytes as they are
#   table             one line a row, a control character as '?'
#   folded, SVG       stack frames: valid UTF-8 (U+FFFD), ';' and controls
#   (--svg), pprof    as '_' (lock/output.h); the SVG parsed by
#   (--pprof)         xml.etree, the profile by `go tool pprof -raw`
# A path's control characters are '?' already where -l names it
# (lock/objdesc.c).  Whether each copy contends in a run is the
# scheduler's doing: a run where a name is missing is run again (at most
# four runs); a malformed output fails at once.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lock.inc"
can_bpf "lock: hostile names in every format" || finish
W=$(realpath "$_tmp")
gcc -O2 -o "$W/fappend" "$TOP/tests/lock/fixtures/fappend.c" -lpthread || {
	fail "lock: hostile names: fixture fappend" "gcc failed"; finish; }

cat >"$W/check.py" <<'EOF'
import csv, io, json, os, re, sys
import xml.etree.ElementTree as ET

NAMES = [b"caf\xc3\xa9-\xe6\x97\xa5\xe6\x9c\xac", b"a\"b,c<d>&'e", b"nl\nx;y",
         b"bad\xff\xfe\xc3", "ab日本語日本".encode(), b"\x1b[1m\tesc\x7f"]

def setup(top):
    os.makedirs(top + "/bin")
    os.makedirs(top + "/data")
    exe = open(top + "/fappend", "rb").read()
    for n in NAMES:
        p = os.fsencode(top) + b"/bin/" + n
        with open(p, "wb") as f:
            f.write(exe)
        os.chmod(p, 0o755)

def text(b):			# bytes as a str, one surrogate per bad byte
    return b.decode("utf-8", "surrogateescape")

def utf8(b):			# each byte that is not UTF-8 as U+FFFD
    return re.sub("[\udc80-\udcff]", "\ufffd", text(b))

def frame(b):			# a stack format's frame (lock/output.h)
    return re.sub("[;\x00-\x1f\x7f]", "_", utf8(b))

def table(b):			# the table's text
    return re.sub("[\x00-\x1f\x7f]", "?", text(b))

def wants(mode, top):
    """What each name is in a row: the comm (-t), the lock's name (-l)."""
    if mode == "t":
        return [n[:15] for n in NAMES]
    return [b"f_pos_lock of " + re.sub(rb"[\x00-\x1f\x7f]", b"?", os.fsencode(top) + b"/data/" + n)
            for n in NAMES]

def check(mode, fmt, path, top):
    raw = open(path, "rb").read()
    want = wants(mode, top)
    if fmt in ("json", "folded", "pprof"):
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError as e:
            return "bad: not UTF-8: %s: %r" % (e, raw[max(e.start - 20, 0):e.end + 5])
    if fmt == "json":
        d = json.loads(raw)
        got = [r["comm"] if mode == "t" else r["name"] for r in d["rows"]]
        missing = [w for w in want if utf8(w) not in got]
    elif fmt == "csv":
        rows = [r for r in csv.reader(io.StringIO(text(raw), newline=""))
                if r and not r[0].startswith("#")]
        if any(len(r) != len(rows[0]) for r in rows):
            return "bad: CSV widths %s" % sorted(set(map(len, rows)))
        col = rows[0].index("comm" if mode == "t" else "object")
        got = [r[col] for r in rows[1:]]
        if mode == "l":
            want = [w[len(b"f_pos_lock of "):] for w in want]
        missing = [w for w in want if text(w) not in got]
    elif fmt == "table":
        lines = text(raw).split("\n")
        body = lines[2:lines.index("=== accounting ===") - 1]
        stray = [l for l in body if not re.match(r" *\d+ ", l)]
        if stray or lines[1] != "":
            return "bad: lines that are not rows: %r" % stray[:3]
        if mode == "t":
            missing = [w for w in want if not any(l.endswith("   " + table(w)) for l in body)]
        else:
            missing = [w for w in want
                       if not any(re.search(" " + re.escape(table(w)) + " +mutex$", l) for l in body)]
    elif fmt == "folded":
        lines = raw.decode("utf-8").split("\n")
        if lines[-1] != "" or any(not re.fullmatch(r"[^;]+(;[^;]+)* \d+", l) for l in lines[:-1]):
            return "bad: a line that is not a folded stack: %r" % [
                l for l in lines[:-1] if not re.fullmatch(r"[^;]+(;[^;]+)* \d+", l)][:2]
        roots = [l.split(";")[0] for l in lines[:-1]]
        missing = [w for w in want if not any(
            r.startswith(frame(w) + "-") if mode == "t" else r == frame(w) for r in roots)]
    elif fmt == "svg":
        titles = [e.text or "" for e in ET.parse(path).iter("{http://www.w3.org/2000/svg}title")]
        missing = [w for w in want if not any(
            t.startswith(frame(w) + "-") if mode == "t" else t == frame(w) for t in titles)]
    elif fmt == "pprof":		# `go tool pprof -raw`'s text
        out = raw.decode("utf-8")
        missing = [w for w in want if (frame(w) + ("-" if mode == "t" else "")) not in out]
    if missing:
        return "missing: %r" % missing
    return "ok"

if sys.argv[1] == "setup":
    setup(sys.argv[2])
else:
    try:
        print(check(*sys.argv[1:]))
    except Exception as e:
        print("bad: %s: %s" % (type(e).__name__, e))
EOF
python3 "$W/check.py" setup "$W" || { fail "lock: hostile names: setup" "check.py setup failed"; finish; }
cat >"$W/run.sh" <<'EOF'
d=$(dirname "$0")
for f in "$d"/bin/*; do "$f" "$d/data/$(basename "$f")" 3 0.6 & done
wait
EOF
have_go=1
command -v go >/dev/null || have_go=

# run MODE FMT: frugal lock -MODE in FMT (json: with --svg and --pprof),
# checked; again while a name is missing.  Sets res_FMT for each output.
run() {
	local m=$1 fmt=$2 i f
	for i in 1 2 3 4; do
		case $fmt in
		json) "$FRUGAL" lock -$m --json --svg "$W/$m.svg" --pprof "$W/$m.pb.gz" \
				-- bash "$W/run.sh" >"$W/$m.json" 2>"$W/$m.err" ;;
		csv) "$FRUGAL" lock -$m -x , -- bash "$W/run.sh" >"$W/$m.csv" 2>"$W/$m.err" ;;
		table) "$FRUGAL" lock -$m -- bash "$W/run.sh" >"$W/$m.table" 2>"$W/$m.err" ;;
		folded) "$FRUGAL" lock -$m --folded -- bash "$W/run.sh" >"$W/$m.folded" 2>"$W/$m.err" ;;
		esac || { eval "res_$fmt=\"bad: exit $?: \$(head -1 '$W/$m.err')\""; return; }
		eval "res_$fmt=\$(python3 '$W/check.py' $m $fmt '$W/$m.$fmt' '$W')"
		if [ $fmt = json ]; then
			res_svg=$(python3 "$W/check.py" $m svg "$W/$m.svg" "$W")
			res_pprof="no go"
			if [ -n "$have_go" ]; then
				if go tool pprof -raw "$W/$m.pb.gz" >"$W/$m.pprof" 2>"$W/$m.pprof.err"; then
					res_pprof=$(python3 "$W/check.py" $m pprof "$W/$m.pprof" "$W")
				else
					res_pprof="bad: go tool pprof: $(head -1 "$W/$m.pprof.err")"
				fi
			fi
		fi
		f="res_$fmt"
		f=${!f}
		[ $fmt = json ] && f="$f $res_svg $res_pprof"
		case $f in *missing*) ;; *) return ;; esac
	done
}

for m in t l; do
	what=comms
	[ $m = l ] && what="files' paths"
	res_json=ok res_csv=ok res_table=ok res_folded=ok res_svg=ok res_pprof=ok
	run $m json
	check "-$m --json: the $what parse (strict UTF-8), UTF-8 kept, bad bytes as U+FFFD, controls escaped ($res_json)" \
		test "$res_json" = ok
	check "-$m --svg: the $what parse (xml.etree) as frames: U+FFFD, ';' and controls '_' ($res_svg)" \
		test "$res_svg" = ok
	if [ -n "$have_go" ]; then
		check "-$m --pprof: go tool pprof reads the $what as frames, valid UTF-8 ($res_pprof)" \
			test "$res_pprof" = ok
	else
		skip "-$m --pprof: the $what" "no go (scripts/install-deps.sh: golang-go)"
	fi
	run $m csv
	check "-$m -x ,: the $what parse (python3's csv) to their bytes ($res_csv)" test "$res_csv" = ok
	run $m table
	check "-$m table: one line a row, the $what with controls as '?' ($res_table)" test "$res_table" = ok
	run $m folded
	check "-$m --folded: UTF-8 lines of frames, the $what as frames ($res_folded)" test "$res_folded" = ok
done
finish
