// SPDX-License-Identifier: GPL-2.0
/*
 * --svg FILE: an interactive flame graph in one self-contained SVG file:
 * its CSS and JavaScript inside, no font, script or image from elsewhere.
 *
 * The rows' stacks (lock_out__stack: outermost frame first, the lock type
 * as the leaf) are merged into a tree by name along the path from a root
 * frame "all".  A frame's width is its weight (lock_out__weight: total
 * wait, or contentions with --weight contended); its children stand on it,
 * root at the bottom (a classic flame graph, not an icicle), sorted by name
 * as flamegraph.pl sorts them, so one stack sits at one place from run to
 * run.  Each frame holds its contentions, total wait and max wait summed
 * (max: the max) over the rows beneath it.
 *
 * Size: the rects are written here, so the script only moves them.  A
 * frame narrower than MIN_PX at full width is left out with everything
 * above it, as flamegraph.pl does; the footer counts them, and their
 * weight still shows in their parents' width.  Every frame is a <g>
 * nested in its parent's, so zooming hides a whole subtree with one class
 * and rescales only the clicked frame's descendants.  A drawn frame is
 * ~130 bytes and costs chromium ~30 us to load, so MAX_DRAWN frames are
 * drawn at most (13 MB, 3 s more than a blank page); past that the least
 * width drawn rises.  50,000 distinct synthetic stacks with skewed weights
 * (tests/unit/test_lock_svg.c --gen) draw 9,149 frames: 1.2 MB, 0.4 s
 * more than a blank page.  docs/lock.md has the figures.
 *
 * The tree is the format's state (out->priv) from the header to the
 * footer: every row must be in before the first frame can be placed, so
 * the whole file is written at the accounting.  Out of memory, nothing is
 * written and the report fails (out->err), so the file is not made.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lib/array.h"
#include "lib/idxmap.h"
#include "lib/utf8.h"
#include "lock/out/out_int.h"
#include "lock/report/report.h"
#include "lock/rows/rows.h"

/* Geometry, in px of the drawing at 100%. */
#define SVG_W		1200
#define PAD		10
#define GRAPH_W		(SVG_W - 2 * PAD)
#define FRAME_H		16		/* a level: 15 px of frame, 1 px of gap */
#define TOP		78		/* below the title, the run and the controls */
#define LINE_H		15		/* a line of the footer */
#define MIN_PX		0.1		/* narrower frames are left out */
#define MAX_DRAWN	100000		/* ... and the least width rises past this many */
#define CHAR_W		7.2		/* 12 px monospace: 0.6 em a character */

enum frame_kind { K_ROOT, K_KERNEL, K_OWNER, K_TYPE };

struct fnode {
	uint64_t count, total, max, weight;
	uint32_t name;			/* offset in names */
	uint32_t parent, child, next;	/* 0: none (node 0, the root, is nobody's child) */
	uint32_t hash;			/* of (parent, name): its colour too */
	uint16_t depth;
	uint8_t kind;
};

struct flame {
	struct fnode *nodes;
	size_t len, cap;
	struct idxmap map;		/* (parent, name) -> node */
	char *names;
	size_t names_len, names_cap;
	uint64_t rows;
	size_t drawn;
	uint64_t min_w;			/* the least weight drawn */
	bool capped;			/* MAX_DRAWN reached: of weight min_w, */
	size_t ties;			/* only this many more are drawn */
	unsigned int depth;		/* of the highest frame drawn */
	double scale;			/* px per unit of weight */
};

/* ---- the tree ---- */

static uint32_t name_hash(uint32_t parent, const char *s)
{
	uint32_t h = 2166136261u ^ parent * 0x9e3779b9u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

static void flame_free(struct flame *fl)
{
	if (!fl)
		return;
	free(fl->nodes);
	idxmap__free(&fl->map);
	free(fl->names);
	free(fl);
}

/* A new node, or 0 for want of memory. */
static uint32_t node_new(struct flame *fl, uint32_t parent, const char *name, uint32_t hash, uint8_t kind)
{
	size_t len = strlen(name) + 1;
	struct fnode *n;

	if (fl->len >= UINT32_MAX || fl->names_len + len > UINT32_MAX ||
	    array__grow(&fl->nodes, &fl->cap, fl->len + 1, sizeof(*fl->nodes), 1024) ||
	    array__grow(&fl->names, &fl->names_cap, fl->names_len + len, 1, 16384))
		return 0;
	n = &fl->nodes[fl->len];
	memset(n, 0, sizeof(*n));
	n->name = fl->names_len;
	n->parent = parent;
	n->hash = hash;
	n->kind = kind;
	n->depth = fl->nodes[parent].depth + 1;
	memcpy(fl->names + fl->names_len, name, len);
	fl->names_len += len;
	return fl->len++;
}

/* PARENT's child called NAME, made if new; 0 for want of memory. */
static uint32_t child_get(struct flame *fl, uint32_t parent, const char *name, uint8_t kind)
{
	uint32_t h = name_hash(parent, name), id;
	struct idxmap_probe p;
	struct fnode *n;

	if (idxmap__reserve(&fl->map, 1))
		return 0;
	idxmap__for_each_candidate(&fl->map, h, &p, id) {
		n = &fl->nodes[id];
		if (n->parent == parent && !strcmp(fl->names + n->name, name))
			return id;
	}
	id = node_new(fl, parent, name, h, kind);
	if (id)
		idxmap__probe_put(&fl->map, &p, id);
	return id;
}

static void node_add(struct fnode *n, const struct lock_row *r, uint64_t w)
{
	n->count += r->st.count;
	n->total += r->st.total_ns;
	n->weight += w;
	if (r->st.max_ns > n->max)
		n->max = r->st.max_ns;
}

static int cmp_siblings(const void *a, const void *b, void *arg)
{
	const struct flame *fl = arg;
	const struct fnode *x = &fl->nodes[*(const uint32_t *)a];
	const struct fnode *y = &fl->nodes[*(const uint32_t *)b];

	if (x->parent != y->parent)
		return x->parent < y->parent ? -1 : 1;
	return strcmp(fl->names + x->name, fl->names + y->name);
}

/* Each node's children linked in name order.  0 or -ENOMEM (left unlinked). */
static int link_children(struct flame *fl)
{
	uint32_t *v = malloc((fl->len ? fl->len : 1) * sizeof(*v));
	size_t i;

	if (!v)
		return -ENOMEM;
	for (i = 1; i < fl->len; i++)
		v[i - 1] = i;
	qsort_r(v, fl->len - 1, sizeof(*v), cmp_siblings, fl);
	/* Backwards, so each node's list ends up in order. */
	for (i = fl->len - 1; i-- > 0;) {
		struct fnode *n = &fl->nodes[v[i]];

		n->next = fl->nodes[n->parent].child;
		fl->nodes[n->parent].child = v[i];
	}
	free(v);
	return 0;
}

static int cmp_desc(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? 1 : x > y ? -1 : 0;
}

/*
 * The frames drawn: those at least MIN_PX wide, MAX_DRAWN at most.  Past
 * that, the least weight drawn rises to the MAX_DRAWN-th largest, and of
 * the frames of just that weight, those met first (from the left, parents
 * before children) are drawn until the count is reached.  0 or -ENOMEM.
 */
static int pick_drawn(struct flame *fl)
{
	size_t i, n = 0, budget = MAX_DRAWN - 1;	/* the root is always drawn */
	uint64_t *w;

	fl->capped = false;
	fl->min_w = UINT64_MAX;
	if (!fl->scale)
		return 0;
	fl->min_w = MIN_PX / fl->scale;
	while (fl->min_w * fl->scale < MIN_PX)
		fl->min_w++;
	for (i = 1; i < fl->len; i++)
		n += fl->nodes[i].weight >= fl->min_w;
	if (n <= budget)
		return 0;
	w = malloc(n * sizeof(*w));
	if (!w)
		return -ENOMEM;
	for (n = 0, i = 1; i < fl->len; i++)
		if (fl->nodes[i].weight >= fl->min_w)
			w[n++] = fl->nodes[i].weight;
	qsort(w, n, sizeof(*w), cmp_desc);
	fl->min_w = w[budget - 1];
	for (i = budget; i > 0 && w[i - 1] == fl->min_w; i--)
		;
	fl->ties = budget - i;
	fl->capped = true;
	free(w);
	return 0;
}

/* ---- XML text ---- */

/*
 * The first MAX characters of STR into F (NULL: nowhere) as XML text or
 * attribute value; returns how many characters STR has in all.  Names come
 * from the kernel and the user (comms, cgroup paths, the command): markup
 * characters are escaped, and what XML cannot hold (control characters,
 * U+FFFE and U+FFFF, each byte that is not UTF-8: lib/utf8.h) becomes
 * U+FFFD, so the file always parses.
 */
static size_t xml_put(FILE *f, const char *str, size_t max)
{
	static const char *const esc[128] = {
		['<'] = "&lt;", ['>'] = "&gt;", ['&'] = "&amp;", ['"'] = "&quot;", ['\''] = "&apos;",
	};
	const unsigned char *s = (const unsigned char *)str;
	size_t chars;
	uint32_t cp;
	int n;

	for (chars = 0; *s; s += n ? n : 1, chars++) {
		n = utf8_dec(s, &cp);
		if (!f || chars >= max)
			continue;
		if (!n || (*s < 0x20 && *s != '\t') || *s == 0x7f || cp == 0xfffe || cp == 0xffff)
			fputs(UTF8_REPLACEMENT, f);
		else if (*s < 0x80 && esc[*s])
			fputs(esc[*s], f);
		else
			fwrite(s, 1, n, f);
	}
	return chars;
}

/* A coordinate: 4 decimals, so a zoom by 10^4 still lands within a px. */
static void put_num(FILE *f, double v)
{
	char b[40];
	int n = snprintf(b, sizeof(b), "%.4f", v);

	while (n > 1 && b[n - 1] == '0')
		n--;
	if (b[n - 1] == '.')
		n--;
	fwrite(b, 1, n, f);
}

/* ---- the callbacks ---- */

static void header(struct lock_out *out)
{
	struct flame *fl = calloc(1, sizeof(*fl));

	out->priv = fl;
	if (!fl || array__grow(&fl->nodes, &fl->cap, 1, sizeof(*fl->nodes), 1024) ||
	    array__grow(&fl->names, &fl->names_cap, 4, 1, 16384)) {
		out->err = -ENOMEM;
		return;
	}
	memset(&fl->nodes[0], 0, sizeof(fl->nodes[0]));
	memcpy(fl->names, "all", 4);
	fl->names_len = 4;
	fl->len = 1;
}

static void row(struct lock_out *out, const struct lock_row *r,
		const struct lock_row_name *rn, size_t idx)
{
	struct lock_frame frames[LOCK_MAX_FRAMES];
	uint32_t path[LOCK_MAX_FRAMES], at = 0;
	uint64_t w = lock_out__weight(out, r);
	struct flame *fl = out->priv;
	size_t i, n;

	(void)idx;
	if (out->err)
		return;
	fl->rows++;
	n = lock_out__stack(out, r, rn, frames);
	for (i = 0; i < n; i++) {
		uint8_t kind = frames[i].ip || frames[i].user ? K_KERNEL : i + 1 == n ? K_TYPE : K_OWNER;

		at = path[i] = child_get(fl, at, frames[i].name, kind);
		if (!at) {
			out->err = -ENOMEM;
			return;
		}
	}
	node_add(&fl->nodes[0], r, w);
	for (i = 0; i < n; i++)
		node_add(&fl->nodes[path[i]], r, w);
}

/* Colours: kernel functions in warm tones picked by name (stable across
 * runs), the task, lock or cgroup in green, the lock type in blue. */
#define NR_WARM 8
static const char css[] =
	"text{font:12px monospace;fill:#000}\n"
	".t1{font:17px sans-serif}.t2{font:12px sans-serif;fill:#444}\n"
	"#frames text{pointer-events:none}\n"
	"#frames rect{cursor:pointer}#frames rect:hover{stroke:#000;stroke-width:.6}\n"
	".h{display:none}.a>rect{opacity:.6}.m>rect{fill:#e040e0}\n"
	".b{fill:#1060c0;cursor:pointer;text-decoration:underline}\n"
	".r{fill:#c0c0c0}.o{fill:#7cc47c}.y{fill:#78a8e8}\n"
	".c0{fill:#e8522f}.c1{fill:#ee7a3a}.c2{fill:#f29a48}.c3{fill:#f5b553}\n"
	".c4{fill:#e9683d}.c5{fill:#f0c45e}.c6{fill:#db4a2a}.c7{fill:#f7d36b}\n";

/*
 * The script: hover fills the details line (and the frame's tooltip);
 * click zooms by rescaling the clicked frame's descendants and hiding the
 * other subtrees along its path; the search box (or Ctrl-F) marks the
 * frames whose name matches a regular expression (or, if it is not one, a
 * substring) and sums the weight of the outermost matches.  Escape resets.
 */
static const char script[] =
	"var d=document,F=d.getElementById('frames'),G=F.getElementsByTagName('g'),R0=G[0],\n"
	"RW=+R0.getAttribute('data-v').split(' ')[WI],det=d.getElementById('det'),\n"
	"hint=det.textContent,mt=d.getElementById('mt'),rz=d.getElementById('rz'),\n"
	"q=d.getElementById('q'),hid=[],mov=[];\n"
	"function fr(e){var g=e.target.parentNode;return g!=F&&g.tagName=='g'?g:null}\n"
	"function nm(g){return g.n||(g.n=g.firstElementChild.textContent)}\n"
	"function tm(n){return n<1e3?n+' ns':n<1e6?(n/1e3).toFixed(2)+' us':"
	"n<1e9?(n/1e6).toFixed(2)+' ms':(n/1e9).toFixed(2)+' s'}\n"
	"function pc(w){return(RW?100*w/RW:0).toFixed(2)+'%'}\n"
	"function wt(g){return +g.getAttribute('data-v').split(' ')[WI]}\n"
	"function info(g){var v=g.getAttribute('data-v').split(' ');return nm(g)+': '+v[0]+\n"
	" ' contentions, total wait '+tm(+v[1])+', max wait '+tm(+v[2])+', '+pc(+v[WI])+' of all'}\n"
	"function lab(g){var r=g.children[1],t=g.children[2],w=+r.getAttribute('width'),\n"
	" n=nm(g),c=Math.floor((w-6)/CW);if(!t||t.tagName!='text'){if(c<3)return;\n"
	" t=g.insertBefore(d.createElementNS(r.namespaceURI,'text'),t||null)}\n"
	" t.setAttribute('x',+r.getAttribute('x')+3);t.setAttribute('y',+r.getAttribute('y')+11);\n"
	" t.textContent=c<3?'':n.length<=c?n:n.slice(0,c-2)+'..'}\n"
	"function put(g,x,w){var r=g.children[1];r.setAttribute('x',x);r.setAttribute('width',w);lab(g)}\n"
	"function mv(g,x,w){var r=g.children[1];g.x0=r.getAttribute('x');g.w0=r.getAttribute('width');\n"
	" mov.push(g);put(g,x,w)}\n"
	"function unzoom(){mov.forEach(function(g){put(g,g.x0,g.w0);g.classList.remove('a')});\n"
	" hid.forEach(function(g){g.classList.remove('h')});mov=[];hid=[];rz.classList.add('h')}\n"
	"function zoom(f){unzoom();if(f==R0)return;var r=f.children[1],x=+r.getAttribute('x'),\n"
	" k=W/+r.getAttribute('width'),s=f.getElementsByTagName('g'),a,c,i;\n"
	" for(a=f;a!=R0;a=a.parentNode){\n"
	"  for(c=a.parentNode.firstElementChild;c;c=c.nextElementSibling)\n"
	"   if(c!=a&&c.tagName=='g'){c.classList.add('h');hid.push(c)}\n"
	"  if(a!=f){mv(a,X0,W);a.classList.add('a')}}\n"
	" for(i=0;i<s.length;i++){c=s[i];r=c.children[1];\n"
	"  mv(c,X0+(r.getAttribute('x')-x)*k,r.getAttribute('width')*k)}\n"
	" mv(f,X0,W);rz.classList.remove('h')}\n"
	"function search(s){var re=null,top=null,sum=0,i,g,m;\n"
	" if(s)try{re=new RegExp(s)}catch(e){re={test:function(t){return t.indexOf(s)>=0}}}\n"
	" for(i=0;i<G.length;i++){g=G[i];m=!!re&&re.test(nm(g));g.classList.toggle('m',m);\n"
	"  if(m&&!(top&&top.contains(g))){sum+=wt(g);top=g}}\n"
	" mt.textContent=s?'Matched: '+pc(sum)+' of all':''}\n"
	"F.addEventListener('click',function(e){var g=fr(e);if(g)zoom(g)});\n"
	"F.addEventListener('mouseover',function(e){var g=fr(e),s;if(!g)return;s=info(g);\n"
	" det.textContent=s;if(!g.d){g.d=1;g.firstElementChild.textContent=s}});\n"
	"F.addEventListener('mouseout',function(){det.textContent=hint});\n"
	"rz.addEventListener('click',unzoom);\n"
	"q.addEventListener('input',function(){search(q.value)});\n"
	"addEventListener('keydown',function(e){if((e.ctrlKey||e.metaKey)&&e.key=='f'){\n"
	" e.preventDefault();q.focus()}else if(e.key=='Escape'){q.value='';search('');unzoom()}});\n";

/* One frame, and the frames above it, at weight offset OFF from the left. */
static void put_frame(FILE *f, struct flame *fl, uint32_t id, uint64_t off)
{
	static const char *const kinds[] = { "r", NULL, "o", "y" };
	const struct fnode *n = &fl->nodes[id];
	const char *name = fl->names + n->name;
	double x = PAD + off * fl->scale, w = id ? n->weight * fl->scale : GRAPH_W;
	int y = TOP + (fl->depth - n->depth) * FRAME_H;
	size_t fit = w >= 6 ? (w - 6) / CHAR_W : 0;
	uint32_t c;

	if (id && n->weight < fl->min_w)
		return;
	if (id && n->weight == fl->min_w && fl->capped) {
		if (!fl->ties)
			return;
		fl->ties--;
	}
	fl->drawn++;
	fprintf(f, "<g data-v=\"%" PRIu64 " %" PRIu64 " %" PRIu64 "\"><title>",
		n->count, n->total, n->max);
	xml_put(f, name, SIZE_MAX);
	fputs("</title><rect x=\"", f);
	put_num(f, x);
	fprintf(f, "\" y=\"%d\" width=\"", y);
	put_num(f, w);
	if (n->kind == K_KERNEL)
		fprintf(f, "\" height=\"%d\" class=\"c%u\"/>", FRAME_H - 1, n->hash % NR_WARM);
	else
		fprintf(f, "\" height=\"%d\" class=\"%s\"/>", FRAME_H - 1, kinds[n->kind]);
	/* A label where 3 characters fit; the script adds the others' on zoom. */
	if (fit >= 3) {
		fputs("<text x=\"", f);
		put_num(f, x + 3);
		fprintf(f, "\" y=\"%d\">", y + 11);
		if (xml_put(NULL, name, 0) > fit) {
			xml_put(f, name, fit - 2);
			fputs("..", f);
		} else {
			xml_put(f, name, fit);
		}
		fputs("</text>", f);
	}
	for (c = n->child; c; c = fl->nodes[c].next) {
		put_frame(f, fl, c, off);
		off += fl->nodes[c].weight;
	}
	fputs("</g>\n", f);
}

static const char *const mode_names[] = {
	[LOCK_AGGR_CALLER] = "by call stack",
	[LOCK_AGGR_TASK] = "by task",
	[LOCK_AGGR_ADDR] = "by lock",
	[LOCK_AGGR_CGROUP] = "by cgroup",
};

static void put_head(struct lock_out *out, int height)
{
	const struct lock_run_info *ri = out->ri;
	FILE *f = out->f;

	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"100%%\" "
		"height=\"%d\" viewBox=\"0 0 %d %d\">\n"
		"<title>frugal lock: lock contention flame graph</title>\n"
		"<style>\n%s</style>\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"#fafaf6\"/>\n"
		"<text class=\"t1\" x=\"%d\" y=\"24\" text-anchor=\"middle\">"
		"Lock contention flame graph</text>\n<text class=\"t2\" x=\"%d\" y=\"44\" "
		"text-anchor=\"middle\">frugal lock, %s, width: %s", height, SVG_W, height, css,
		SVG_W / 2, SVG_W / 2, out->rc->owner ? "by lock owner" : mode_names[out->rc->mode],
		out->rc->weight == LOCK_WEIGHT_CONTENDED ? (out->rc->hold ? "holds" : "contentions") :
		out->rc->hold ? "total hold" : "total wait");
	if (ri) {
		fprintf(f, ", %.2f s, ", ri->seconds);
		xml_put(f, ri->attach ? ri->attach : "", 16);
		if (ri->kernel) {
			fputs(", kernel ", f);
			xml_put(f, ri->kernel, 64);
		}
		if (ri->command) {
			fputs(", command: ", f);
			if (xml_put(f, ri->command, 80) > 80)
				fputs("...", f);
		}
	}
	fprintf(f, "</text>\n<text id=\"rz\" class=\"b h\" x=\"%d\" y=\"66\">Reset zoom</text>\n"
		"<text id=\"mt\" x=\"%d\" y=\"66\" text-anchor=\"end\"></text>\n"
		"<foreignObject x=\"%d\" y=\"52\" width=\"300\" height=\"20\">"
		"<input xmlns=\"http://www.w3.org/1999/xhtml\" id=\"q\" type=\"search\" "
		"placeholder=\"search: regex or text (Ctrl-F)\" style=\"width:100%%;"
		"box-sizing:border-box;font:12px monospace\"/></foreignObject>\n",
		PAD, SVG_W - PAD - 310, SVG_W - PAD - 300);
}

/* The totals, what was drawn, and the accounting, as perf's table lists them. */
static void put_foot(struct lock_out *out, const struct lock_accounting *a,
		     const struct lock_acct_line *l, size_t nl, int y)
{
	const struct flame *fl = out->priv;
	const struct fnode *root = &fl->nodes[0];
	char tot[32], max[32];
	FILE *f = out->f;
	double px;
	size_t i;

	lock_fmt_time(tot, sizeof(tot), root->total);
	lock_fmt_time(max, sizeof(max), root->max);
	fprintf(f, "<text id=\"det\" x=\"%d\" y=\"%d\">Hover a frame for its numbers, "
		"click to zoom, Escape to reset.</text>\n", PAD, y);
	y += LINE_H + 6;
	fprintf(f, "<text id=\"totals\" x=\"%d\" y=\"%d\">all: %" PRIu64 " contentions, "
		"total wait %s (%" PRIu64 " ns), max wait %s, in %" PRIu64 " rows</text>\n",
		PAD, y, root->count, tot, root->total, max, fl->rows);
	y += LINE_H;
	px = fl->scale ? fl->min_w * fl->scale : 0;
	fprintf(f, "<text id=\"drawn\" x=\"%d\" y=\"%d\" data-min-px=\"%.6f\">frames: %zu drawn%s, "
		"%zu narrower than %.3g px left out (their weight is in their parents' width)</text>\n",
		PAD, y, px, fl->drawn, fl->capped ? " (the most drawn)" : "", fl->len - fl->drawn, px);
	y += LINE_H + 6;
	fprintf(f, "<g id=\"accounting\"><text x=\"%d\" y=\"%d\">=== accounting ===</text>\n",
		PAD, y);
	for (i = 0; i < nl; i++) {
		size_t ind = strspn(l[i].text, " ");

		y += LINE_H;
		fprintf(f, "<text x=\"%g\" y=\"%d\">", PAD + ind * CHAR_W, y);
		xml_put(f, l[i].text + ind, SIZE_MAX);
		fprintf(f, "</text><text x=\"%g\" y=\"%d\" text-anchor=\"end\" data-key=\"%s\">"
			"%" PRIu64 "</text>\n", PAD + 66 * CHAR_W, y, l[i].json, l[i].v);
	}
	if (a->have_stats)
		fprintf(f, "<text x=\"%d\" y=\"%d\">BPF cost per event: begin %.0f ns, "
			"end %.0f ns</text>\n", PAD, y += LINE_H,
			a->begin_runs ? (double)a->begin_ns / a->begin_runs : 0.0,
			a->end_runs ? (double)a->end_ns / a->end_runs : 0.0);
	fputs("</g>\n", f);
}

/* Every row is in: lay the tree out and write the whole file. */
static void accounting(struct lock_out *out, const struct lock_accounting *a,
		       const struct lock_acct_line *l, size_t n)
{
	struct flame *fl = out->priv;
	FILE *f = out->f;
	int y, height;
	size_t i;

	if (out->err)
		return;
	fl->scale = fl->nodes[0].weight ? (double)GRAPH_W / fl->nodes[0].weight : 0;
	out->err = link_children(fl) ?: pick_drawn(fl);
	if (out->err)
		return;
	/* Children weigh no more than their parent: the heavy enough are drawn. */
	for (fl->depth = 0, i = 1; i < fl->len; i++)
		if (fl->nodes[i].weight >= fl->min_w && fl->nodes[i].depth > fl->depth)
			fl->depth = fl->nodes[i].depth;
	y = TOP + (fl->depth + 1) * FRAME_H + 16;
	height = y + 3 * LINE_H + 12 + (n + 2) * LINE_H + 12;
	put_head(out, height);
	fputs("<g id=\"frames\">\n", f);
	put_frame(f, fl, 0, 0);
	fputs("</g>\n", f);
	put_foot(out, a, l, n, y);
	fprintf(f, "<script><![CDATA[\n(function(){var X0=%d,W=%d,CW=%g,WI=%d;\n%s})();\n"
		"]]></script>\n</svg>\n", PAD, GRAPH_W, CHAR_W,
		out->rc->weight == LOCK_WEIGHT_CONTENDED ? 0 : 1, script);
}

static void footer(struct lock_out *out)
{
	flame_free(out->priv);
	out->priv = NULL;
}

const struct lock_output lock_output_svg = {
	.header = header,
	.row = row,
	.accounting = accounting,
	.footer = footer,
};
