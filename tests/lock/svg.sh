#!/usr/bin/env bash
# --svg: the flame graph of a real run of the bench, written beside a --json
# report of the same run.  The file parses as XML and needs nothing from
# elsewhere; its root frame holds the JSON rows' totals and every row's
# path ends in its lock type, with the rows' numbers; chromium draws it,
# a scripted click zooms, the search marks frames.  Then 50,000 generated
# stacks (tests/unit/test_lock_svg.c --gen): their size and load time.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lock.inc"
can_bpf "lock svg" || finish
BENCH="$FRUGAL bench lock -T 4 -P 4 -d 0.7 --delay 0.3"
SVG=$_tmp/g.svg

# facts SVG JSON REGEX: what the SVG says, beside the JSON, as one JSON
# object; what a search for REGEX should show.
facts() {
	python3 - "$1" "$2" "$3" <<'EOF'
import json, re, sys, xml.etree.ElementTree as ET
NS = '{http://www.w3.org/2000/svg}'
svg, rep = sys.argv[1], json.load(open(sys.argv[2]))
out = {'xml_ok': False}
try:
    doc = ET.parse(svg).getroot()
    out['xml_ok'] = True
except ET.ParseError as e:
    out['xml_error'] = str(e)
    print(json.dumps(out)); sys.exit()
text = open(svg, encoding='utf-8').read()
# anything fetched from elsewhere: href/src attributes, url(), @import
out['external'] = re.findall(r'(?:href|src)\s*=|url\(|@import', text)
out['scripts_inline'] = all(not s.get('src') and not s.get('href') for s in doc.iter(NS + 'script'))
frames = next(g for g in doc.iter(NS + 'g') if g.get('id') == 'frames')
root = frames.find(NS + 'g')
def vals(g): return [int(v) for v in g.get('data-v').split()]
def name(g): return g.find(NS + 'title').text
def kids(g): return {name(c): c for c in g.findall(NS + 'g')}
out['root'] = vals(root)
rows = rep['rows']
out['json'] = [sum(r['contended'] for r in rows), sum(r['wait_total_ns'] for r in rows),
               max([r['wait_max_ns'] for r in rows] or [0])]
# each row's path: its stack outermost first, function names only, then the type
paths = {}
for r in rows:
    p = tuple(f.split('+')[0] for f in reversed(r['stack'])) + ('[%s]' % r['type'],)
    c = paths.setdefault(p, [0, 0, 0])
    c[0] += r['contended']; c[1] += r['wait_total_ns']; c[2] = max(c[2], r['wait_max_ns'])
drawn = next(t for t in doc.iter(NS + 'text') if t.get('id') == 'drawn')
min_px = float(drawn.get('data-min-px'))
scale = 1180 / out['root'][1] if out['root'][1] else 0
out['paths'], out['paths_narrow'], out['missing'], out['wrong'] = len(paths), 0, [], []
for p, want in paths.items():
    if want[1] * scale < min_px * 1.001:
        out['paths_narrow'] += 1
        continue
    g = root
    for f in p:
        g = kids(g).get(f)
        if g is None:
            out['missing'].append(';'.join(p)); break
    else:
        if vals(g) != want:
            out['wrong'].append([';'.join(p), vals(g), want])
out['left_out'] = int(re.search(r'(\d+) narrower', drawn.text).group(1))
out['totals'] = next(t for t in doc.iter(NS + 'text') if t.get('id') == 'totals').text
out['acct'] = {t.get('data-key'): int(t.text) for t in doc.iter(NS + 'text') if t.get('data-key')}
out['json_acct'] = rep['accounting']
# what the search for argv[3] should find: the outermost drawn matches
want, stack = 0, [(root, False)]
while stack:
    g, under = stack.pop()
    hit = not under and re.search(sys.argv[3], name(g))
    if hit:
        want += vals(g)[1]
    stack.extend((c, under or bool(hit)) for c in g.findall(NS + 'g'))
out['search_pct'] = 100.0 * want / out['root'][1] if out['root'][1] else 0
# the frame colours, from the style sheet
css = doc.find(NS + 'style').text
out['colours'] = {k: v for k, v in re.findall(r'\.(c\d|y)\{fill:#([0-9a-f]{6})\}', css)}
print(json.dumps(out))
EOF
}

"$FRUGAL" lock --json --svg "$SVG" -- $BENCH >"$_tmp/g.json" 2>"$_tmp/g.err"
if ! check "svg: the run wrote the flame graph and the JSON" test -s "$SVG" -a -s "$_tmp/g.json"; then
	finish
fi
SEARCH='^\[(mutex|rwsem:W)\]$'
facts "$SVG" "$_tmp/g.json" "$SEARCH" >"$_tmp/facts.json"
F=$_tmp/facts.json
check "svg: parses as XML" test "$(json $F 'd["xml_ok"] or d["xml_error"]')" = True
[ "$(json $F 'd["xml_ok"]')" = True ] || finish
check "svg: self-contained (no href, src, url() or @import)" test "$(json $F \
	'not d["external"] and d["scripts_inline"]')" = True
check "svg: the root frame holds the JSON rows' count, total and max ($(json $F 'd["root"]'))" \
	test "$(json $F 'd["root"] == d["json"] and d["root"][0] > 20')" = True
check "svg: every row wider than the least width drawn ends in its type, with its numbers" \
	test "$(json $F 'not d["missing"] and not d["wrong"] and d["paths"] > d["paths_narrow"]')" = True
check "svg: narrower rows are counted as left out" \
	test "$(json $F 'd["paths_narrow"] == 0 or d["left_out"] >= d["paths_narrow"]')" = True
check "svg: the totals line says the root's numbers" test "$(json $F \
	'"%d contentions" % d["root"][0] in d["totals"] and "(%d ns)" % d["root"][1] in d["totals"]')" = True
check "svg: the accounting is the JSON's" test "$(json $F 'd["acct"] == d["json_acct"]')" = True

if ! command -v chromium >/dev/null; then
	skip "svg: chromium draws, zooms and searches" "chromium is not installed (scripts/install-deps.sh)"
	finish
fi

# chrome ARGS...: headless, with a profile of its own (nothing shared with
# a browser or another test), bounded in time.
# A cap against a hang, not a bound: 50,000 stacks on a loaded machine once
# took chromium more than 120 s to load, click and dump.
chrome() {
	timeout 600 chromium --headless --no-sandbox --disable-gpu --user-data-dir="$_tmp/profile" \
		--window-size=1200,800 "$@" 2>>"$_tmp/chrome.err"
}

# pixels PNG SVG-FACTS: how many pixels of each frame colour were drawn.
pixels() {
	python3 - "$1" "$2" <<'EOF'
import json, struct, sys, zlib
def png_rows(path):
    data, pos, idat = open(path, 'rb').read(), 8, b''
    assert data[:8] == b'\x89PNG\r\n\x1a\n'
    while pos < len(data):
        n, kind = struct.unpack('>I4s', data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b'IHDR':
            w, h, depth, ctype, _, _, lace = struct.unpack('>IIBBBBB', body)
        elif kind == b'IDAT':
            idat += body
        pos += 12 + n
    assert depth == 8 and ctype in (2, 6) and not lace, 'PNG type %d/%d' % (depth, ctype)
    bpp = 3 if ctype == 2 else 4
    raw, stride, prev, i = zlib.decompress(idat), w * bpp, bytearray(w * bpp), 0
    for _ in range(h):
        f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        if f == 1:
            for x in range(bpp, stride): line[x] = (line[x] + line[x - bpp]) & 255
        elif f == 2:
            for x in range(stride): line[x] = (line[x] + prev[x]) & 255
        elif f == 3:
            for x in range(stride):
                line[x] = (line[x] + ((line[x - bpp] if x >= bpp else 0) + prev[x]) // 2) & 255
        elif f == 4:
            for x in range(stride):
                a, b = (line[x - bpp] if x >= bpp else 0), prev[x]
                c = prev[x - bpp] if x >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        yield [bytes(line[x:x + 3]) for x in range(0, stride, bpp)]
        prev = line
colours = {bytes.fromhex(v): k for k, v in json.load(open(sys.argv[2]))['colours'].items()}
count = {k: 0 for k in colours.values()}
for row in png_rows(sys.argv[1]):
    for px in row:
        if px in colours:
            count[colours[px]] += 1
print(json.dumps(count))
EOF
}

chrome --screenshot="$_tmp/g.png" "file://$SVG" >/dev/null
if check "svg: chromium renders it to a PNG" test -s "$_tmp/g.png"; then
	pixels "$_tmp/g.png" "$F" >"$_tmp/px.json"
	check "svg: the PNG shows kernel frames ($(cat "$_tmp/px.json"))" test "$(json "$_tmp/px.json" \
		'sum(v for k, v in d.items() if k != "y") > 5000 and len([k for k, v in d.items() if v > 100]) >= 3')" = True
	check "svg: the PNG shows lock-type frames" test "$(json "$_tmp/px.json" 'd["y"] > 300')" = True
fi

# A copy of the graph with one more script, run after the graph's own: it
# hovers, clicks and searches, and leaves what it saw in an attribute of
# the document, which --dump-dom prints.
cat >"$_tmp/probe.js" <<'EOF'
(function(){
var d=document,F=d.getElementById('frames'),G=F.getElementsByTagName('g'),R0=G[0],res={},i,g;
function kids(g){return [].filter.call(g.children,function(c){return c.tagName=='g'})}
function geo(g){var r=g.children[1];return [+r.getAttribute('x'),+r.getAttribute('width')]}
function ev(g,type){g.children[1].dispatchEvent(new MouseEvent(type,{bubbles:true}))}
/* the widest frame with a sibling and a child narrower than itself */
function narrow(g){return kids(g).filter(function(c){return geo(c)[1]<geo(g)[1]*0.9})[0]}
var f=null;
for(i=1;i<G.length;i++){g=G[i];
 if(kids(g.parentNode).length<2||!narrow(g))continue;
 if(!f||geo(g)[1]>geo(f)[1])f=g}
if(f){
 var sib=kids(f.parentNode).filter(function(c){return c!=f})[0],ch=narrow(f),f0=geo(f),c0=geo(ch);
 res.name=f.firstElementChild.textContent;
 ev(f,'mouseover');res.details=d.getElementById('det').textContent;
 var t=performance.now();ev(f,'click');res.zoom_ms=Math.round(performance.now()-t);
 res.clicked=geo(f);res.child=geo(ch);
 res.child_want=[10+(c0[0]-f0[0])*1180/f0[1],c0[1]*1180/f0[1]];
 res.sibling=getComputedStyle(sib).display;
 res.parent=f.parentNode==R0?[10,1180]:geo(f.parentNode);
 res.reset_shown=!d.getElementById('rz').classList.contains('h');
 ev(R0,'click');
 res.before=f0;res.after_reset=geo(f);res.sibling_after=getComputedStyle(sib).display;
}
var q=d.getElementById('q');q.value=SEARCH;q.dispatchEvent(new Event('input'));
res.matched=F.getElementsByClassName('m').length;res.matched_text=d.getElementById('mt').textContent;
d.documentElement.setAttribute('data-probe',JSON.stringify(res));
})();
EOF
# probe SVG SEARCH OUT: the probe's findings, as JSON, into OUT
probe() {
	python3 - "$1" "$_tmp/probe.js" "$2" >"$_tmp/probe.svg" <<'EOF'
import json, sys
svg, js = open(sys.argv[1]).read(), open(sys.argv[2]).read().replace('SEARCH', json.dumps(sys.argv[3]))
sys.stdout.write(svg.replace('</svg>', '<script><![CDATA[\n' + js + ']]></script>\n</svg>'))
EOF
	chrome --dump-dom "file://$_tmp/probe.svg" | python3 -c '
import html, re, sys
m = re.search(r"data-probe=\"([^\"]*)\"", sys.stdin.read())
print(html.unescape(m.group(1)) if m else "{}")' >"$3"
}
probe "$SVG" "$SEARCH" "$_tmp/probe.json"
P=$_tmp/probe.json
# The clicks need a frame with a sibling and a narrower child: a short run's
# graph may have none, so they are made on a generated graph of 2,000
# stacks, which always has them (the search stays on the real one).
GEN=$O/tests/test_lock_svg
if [ -x "$GEN" ] && "$GEN" --gen 2000 "$_tmp/click.svg" zipf 2>/dev/null; then
	probe "$_tmp/click.svg" slowpath "$_tmp/click.json"
	C=$_tmp/click.json
	check "svg: the probe found a frame with a sibling to click ($(json $C 'd.get("name")'))" \
		test "$(json $C '"clicked" in d')" = True
	check "svg: hover details: contentions, total and max wait, share" test "$(json $C \
		'all(w in d.get("details", "") for w in (d.get("name", "?") + ":", " contentions", "total wait", "max wait", "% of all"))')" = True
	check "svg: a click zooms: the frame spans the width, so does its parent" test "$(json $C \
		'd["clicked"] == [10, 1180] and d["parent"] == [10, 1180] and d["reset_shown"]')" = True
	check "svg: a click zooms: a child is scaled with it ($(json $C 'd.get("child")'))" test "$(json $C \
		'all(abs(a - b) < 0.01 for a, b in zip(d["child"], d["child_want"]))')" = True
	check "svg: a click zooms: a sibling is hidden" test "$(json $C 'd["sibling"]')" = none
	check "svg: a click on the root resets" test "$(json $C \
		'd["after_reset"] == d["before"] and d["sibling_after"] != "none"')" = True
else
	skip "svg: clicks" "$GEN is missing or could not generate a graph (make $GEN)"
fi
# (the same sum, rounded to 2 decimals by JavaScript rather than Python)
check "svg: search marks frames and shows their share ($(json $P 'd["matched_text"]'))" \
	test "$(json $P "d['matched'] > 0 and d['matched_text'].startswith('Matched: ') and \
		abs(float(d['matched_text'].split()[1].rstrip('%')) - $(json $F 'd["search_pct"]')) < 0.006")" = True

# 50,000 distinct stacks: size, and chromium's time to draw them beside a blank page's.
GEN=$O/tests/test_lock_svg
if [ ! -x "$GEN" ]; then
	skip "svg: 50,000 stacks" "$GEN is not built (make $GEN)"
	finish
fi
echo '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>' >"$_tmp/blank.svg"
# shot NAME: seconds chromium takes to screenshot NAME.svg, the best of 2
shot() {
	local i s e ms=
	for i in 1 2; do
		s=$(date +%s%N)
		chrome --screenshot="$_tmp/$1.png" "file://$_tmp/$1.svg" >/dev/null
		e=$(date +%s%N)
		ms="$ms $(((e - s) / 1000000))"
	done
	printf '%s\n' $ms | sort -n | awk 'NR == 1 { printf "%.2f", $1 / 1000 }'
}
blank=$(shot blank)
for dist in zipf wide; do
	"$GEN" --gen 50000 "$_tmp/$dist.svg" "$dist" 2>"$_tmp/$dist.gen"
	bytes=$(stat -c %s "$_tmp/$dist.svg")
	t=$(shot "$dist")
	pixels "$_tmp/$dist.png" "$F" >"$_tmp/$dist.px.json" 2>/dev/null || echo '{}' >"$_tmp/$dist.px.json"
	probe "$_tmp/$dist.svg" 'slowpath' "$_tmp/$dist.probe.json"
	frames=$(grep -o 'frames: [0-9]* drawn' "$_tmp/$dist.svg")
	check "svg: 50,000 stacks ($dist): $frames, $((bytes / 1024)) KB, chromium $t s (blank page $blank s), a zoom $(json "$_tmp/$dist.probe.json" 'd.get("zoom_ms")') ms" \
		test "$(json "$_tmp/$dist.px.json" 'sum(d.values()) > 5000')" = True -a \
		"$(json "$_tmp/$dist.probe.json" 'd.get("clicked") == [10, 1180]')" = True
done
finish
