// SPDX-License-Identifier: GPL-2.0
/*
 * `frugal btf abi OLD NEW`: the exported symbols of two kernels (or
 * modules, or BTF blobs), each added, removed or changed, and a changed
 * one with the path from it to each change.  See btf/abi/abi_int.h for the
 * graph; abi_out.c prints it.  Exit status: abidiff's bitmask (btf/abi/abi.h).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>

#include "btf/abi/abi_int.h"
#include "cli/cli.h"
#include "lib/array.h"
#include "lib/hash.h"

/*
 * What each kind of change does to the users of a symbol: the rules, in
 * one place.  Incompatible: code built against OLD may misbehave on NEW
 * (a layout, a type or a value it relies on moved).  Compatible: code
 * built against OLD still works (something new it does not use).  A
 * struct known on one side only as a forward declaration is not compared
 * at all (unknown, never a change): its layout was not part of OLD's ABI.
 * Nor is a typedef: walk_types() looks through one added, dropped or
 * renamed, and compares what it names.
 */
const struct abi_rule abi_rules[ABI_CH_CNT] = {
	[ABI_CH_SYM_REMOVED]	= { true,  "symbol removed" },
	[ABI_CH_SYM_ADDED]	= { false, "symbol added" },
	[ABI_CH_TYPE]		= { true,  "type changed (parameter, return, member, variable)" },
	[ABI_CH_PARAMS]		= { true,  "parameter count changed" },
	[ABI_CH_SIZE]		= { true,  "struct, union or enum size changed" },
	[ABI_CH_MEMBER_REMOVED]	= { true,  "member removed" },
	[ABI_CH_MEMBER_OFFSET]	= { true,  "member offset changed" },
	[ABI_CH_MEMBER_BITS]	= { true,  "member bitfield size changed" },
	[ABI_CH_MEMBER_ADDED]	= { false, "member added, size unchanged (in padding)" },
	[ABI_CH_MEMBER_GROWN]	= { true,  "member added, size changed" },
	[ABI_CH_ENUM_VALUE]	= { true,  "enumerator value changed" },
	[ABI_CH_ENUM_REMOVED]	= { true,  "enumerator removed" },
	[ABI_CH_ENUM_ADDED]	= { false, "enumerator added" },
	/*
	 * The two that a kernel's stable branch makes most (6.1.0-53 -> 54:
	 * dst_entry's dev into a union with dev_rcu, net_device's reg_state
	 * from an enum bitfield to a u8): the bytes stay where they were and
	 * mean what they meant.
	 */
	[ABI_CH_MEMBER_WRAPPED]	= { false, "member wrapped into an anonymous union or struct, "
					   "at the same offset, of the same type" },
	[ABI_CH_ENUM_BITFIELD]	= { false, "enum bitfield turned into an integer of the same "
					   "width that holds its values" },
	/*
	 * Only under the DWARF model, which follows genksyms: its CRC hashes
	 * a typedef by its name, so const unsigned char * become const u8 *
	 * (tty_operations' write, 6.1.0-53 -> 54) changes every export that
	 * sees it, though the bytes are the same.
	 */
	[ABI_CH_TYPEDEF]	= { false, "typedef added, dropped or renamed on the way, the type "
					   "it names the same" },
};

/* ---- naming types, for paths ---- */

#define ABI_NAME_DEPTH 16	/* deeper chains of modifiers are cut with "..." */

static void tname_put(char *buf, size_t len, size_t *pos, const char *s)
{
	size_t n = strlen(s);

	if (*pos < len) {
		snprintf(buf + *pos, len - *pos, "%s", s);
	}
	*pos += n;
}

static const char *kind_word(int kind)
{
	switch (kind) {
	case BTF_KIND_STRUCT:	return "struct ";
	case BTF_KIND_UNION:	return "union ";
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:	return "enum ";
	default:		return "";
	}
}

/* C-like, with the declarator's parts after the base: "struct sk_buff *", "char[16]". */
static void tname_rec(const struct btf *btf, uint32_t id, char *buf, size_t len, size_t *pos,
		      int depth)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	const char *name;
	char num[32];

	if (!id || !t) {
		tname_put(buf, len, pos, id ? "?" : "void");
		return;
	}
	if (depth > ABI_NAME_DEPTH) {
		tname_put(buf, len, pos, "...");
		return;
	}
	name = btf__name_by_offset(btf, t->name_off);
	switch (btf_kind(t)) {
	case BTF_KIND_PTR:
		tname_rec(btf, t->type, buf, len, pos, depth + 1);
		/* A function pointer is named by its prototype's "(*)()" already. */
		if (!btf_is_func_proto(btf__type_by_id(btf, t->type) ?: t))
			tname_put(buf, len, pos, " *");
		return;
	case BTF_KIND_CONST:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_RESTRICT:
		tname_put(buf, len, pos, btf_is_const(t) ? "const " :
			  btf_is_volatile(t) ? "volatile " : "restrict ");
		tname_rec(btf, t->type, buf, len, pos, depth + 1);
		return;
	case BTF_KIND_TYPE_TAG:
		tname_rec(btf, t->type, buf, len, pos, depth + 1);
		return;
	case BTF_KIND_ARRAY:
		tname_rec(btf, btf_array(t)->type, buf, len, pos, depth + 1);
		snprintf(num, sizeof(num), "[%u]", btf_array(t)->nelems);
		tname_put(buf, len, pos, num);
		return;
	case BTF_KIND_FUNC_PROTO:
		tname_rec(btf, t->type, buf, len, pos, depth + 1);
		tname_put(buf, len, pos, " (*)()");
		return;
	case BTF_KIND_FWD:
		tname_put(buf, len, pos, btf_kflag(t) ? "union " : "struct ");
		break;
	default:
		tname_put(buf, len, pos, kind_word(btf_kind(t)));
		break;
	}
	tname_put(buf, len, pos, name && *name ? name : "(anon)");
}

const char *abi__type_name(const struct btf *btf, uint32_t id, char *buf, size_t len)
{
	size_t pos = 0;

	buf[0] = 0;
	tname_rec(btf, id, buf, len, &pos, 0);
	return buf;
}

/* ---- the graph ---- */

static int32_t push_change(struct abi *abi, uint32_t own, enum abi_change_kind kind, char *text)
{
	struct abi_node *n = &abi->nodes[own];
	struct abi_change *c;

	if (!text || array__grow(&abi->ch, &abi->ch_cap, abi->nch + 1, sizeof(*abi->ch), 256)) {
		free(text);
		return -ENOMEM;
	}
	c = &abi->ch[abi->nch];
	c->text = text;
	c->kind = kind;
	c->off = UINT32_MAX;
	c->next = -1;
	/* Appended at the tail, so a type's changes print in member order. */
	if (n->ch_tail >= 0)
		abi->ch[n->ch_tail].next = (int32_t)abi->nch;
	else
		n->ch_head = (int32_t)abi->nch;
	n->ch_tail = (int32_t)abi->nch++;
	n->nchanges++;
	if (abi_rules[kind].incompat)
		n->incompat = true;
	return 0;
}

static int add_change(struct abi *abi, uint32_t own, enum abi_change_kind kind,
		      const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static int add_change_v(struct abi *abi, uint32_t own, enum abi_change_kind kind,
			const char *fmt, va_list ap) __attribute__((format(printf, 4, 0)));

static int add_change_v(struct abi *abi, uint32_t own, enum abi_change_kind kind,
			const char *fmt, va_list ap)
{
	char *text = NULL;
	int r = vasprintf(&text, fmt, ap);

	return push_change(abi, own, kind, r < 0 ? NULL : text);
}

static int add_change(struct abi *abi, uint32_t own, enum abi_change_kind kind,
		      const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = add_change_v(abi, own, kind, fmt, ap);
	va_end(ap);
	return r;
}

static int add_edge(struct abi *abi, uint32_t own, uint32_t to, char *label, bool by_value,
		    uint32_t off)
{
	struct abi_edge *e;

	if (!label || array__grow(&abi->ed, &abi->ed_cap, abi->ned + 1, sizeof(*abi->ed), 256)) {
		free(label);
		return -ENOMEM;
	}
	e = &abi->ed[abi->ned];
	e->label = label;
	e->from = own;
	e->to = to;
	e->by_value = by_value;
	e->off = off;
	e->next = abi->nodes[own].ed_head;
	abi->nodes[own].ed_head = (int32_t)abi->ned++;
	return 0;
}

static int new_node(struct abi *abi, uint32_t a, uint32_t b, uint32_t *out)
{
	struct abi_node *n;

	if (array__grow(&abi->nodes, &abi->nodes_cap, abi->nn + 1, sizeof(*abi->nodes), 1024))
		return -ENOMEM;
	n = &abi->nodes[abi->nn];
	memset(n, 0, sizeof(*n));
	n->id[0] = a;
	n->id[1] = b;
	n->ch_head = n->ch_tail = n->ed_head = n->via = n->follows = -1;
	*out = (uint32_t)abi->nn++;
	return 0;
}

static bool pair_eq(void *ctx, uint32_t idx, const void *key)
{
	const struct abi *abi = ctx;
	const uint32_t *k = key;

	return abi->nodes[idx].id[0] == k[0] && abi->nodes[idx].id[1] == k[1];
}

/*
 * The node of the pair (A, B) of structs, unions or enums: found, or made
 * and queued to be compared.  Queued, not compared here: a walk down the
 * kernel's types by recursion would go as deep as its longest chain of
 * structs; the queue keeps the stack flat, and a pair in the map is never
 * queued twice, so cycles end.
 */
static int type_node(struct abi *abi, uint32_t a, uint32_t b, const char *name, uint32_t *out)
{
	uint32_t key[2] = { a, b }, idx = (uint32_t)abi->nn;
	int r;

	r = idxmap__find_or_add(&abi->pairs, ((uint64_t)a << 32) | b, pair_eq, abi, key, &idx);
	if (r < 0)
		return r;
	*out = idx;
	if (r == 1)
		return 0;
	if (array__grow(&abi->todo, &abi->todo_cap, abi->ntodo + 1, sizeof(*abi->todo), 256))
		return -ENOMEM;
	r = new_node(abi, a, b, out);
	if (r)
		return r;
	abi->nodes[idx].name = strdup(name);
	if (!abi->nodes[idx].name)
		return -ENOMEM;
	abi->todo[abi->ntodo++] = idx;
	return 0;
}

/* Where a walk started, and what to call it. */
struct walk {
	uint32_t own;		/* the node whose change or edge this is */
	const char *prefix;	/* "parameter 2 (skb)", "member 'hash'" */
	uint32_t start[2];
	bool indirect;		/* behind a function pointer already */
	uint32_t off;		/* a member's: its bit offset in OLD */
};

static int walk_types(struct abi *abi, const struct walk *w, uint32_t a, uint32_t b);

/*
 * The walk's start on both sides; when they read the same (a typedef whose
 * target changed: kernel_cap_t in 6.3), the types where they differ too.
 */
static int mismatch_as(struct abi *abi, const struct walk *w, uint32_t a, uint32_t b,
		       enum abi_change_kind kind, const char *tail)
{
	char ba[256], bb[256], ca[256], cb[256];

	abi__type_name(abi->btf[0], w->start[0], ba, sizeof(ba));
	abi__type_name(abi->btf[1], w->start[1], bb, sizeof(bb));
	if (strcmp(ba, bb))
		return add_change(abi, w->own, kind, "%s: %s -> %s%s", w->prefix, ba, bb, tail);
	return add_change(abi, w->own, kind, "%s: %s -> %s (%s -> %s)%s", w->prefix, ba, bb,
			  abi__type_name(abi->btf[0], a, ca, sizeof(ca)),
			  abi__type_name(abi->btf[1], b, cb, sizeof(cb)), tail);
}

static int mismatch(struct abi *abi, const struct walk *w, uint32_t a, uint32_t b)
{
	return mismatch_as(abi, w, a, b, ABI_CH_TYPE, "");
}

/*
 * What to call an anonymous struct, union or enum: where it sits, from
 * the nearest named type ("union sk_buff.(anon 3)", "struct bar.foo"), or
 * the typedef that names it ("struct (typedef atomic_t)"); "(anon)" when
 * a symbol or a function pointer holds it.  A whole kernel has hundreds
 * of "union (anon)": by that name alone a cause says nothing.
 */
static void anon_name(const struct abi *abi, const struct walk *w, uint32_t a, uint32_t tdef,
		      char *buf, size_t len)
{
	const char *kind = kind_word(btf_kind(btf__type_by_id(abi->btf[0], a)));
	const char *owner = abi->nodes[w->own].name, *sp, *m = w->prefix;

	if (tdef) {
		snprintf(buf, len, "%s(typedef %s)", kind,
			 btf__name_by_offset(abi->btf[0], btf__type_by_id(abi->btf[0], tdef)->name_off));
		return;
	}
	if (!owner || strncmp(m, "member ", 7) || strstr(m, " -> ")) {
		abi__type_name(abi->btf[0], a, buf, len);
		return;
	}
	sp = strchr(owner, ' ');	/* past the owner's own kind word */
	m += 7;
	if (*m == '\'')
		snprintf(buf, len, "%s%s.%.*s", kind, sp ? sp + 1 : owner, (int)strlen(m) - 2, m + 1);
	else
		snprintf(buf, len, "%s%s.%s", kind, sp ? sp + 1 : owner, m);
}

/*
 * An edge from the walk's owner to the pair node reached at (A, B):
 * BY_VALUE when no pointer was on the way, TDEF the typedef OLD named it
 * by just before (0: none).
 */
static int reach(struct abi *abi, const struct walk *w, uint32_t a, uint32_t b, bool by_value,
		 uint32_t tdef)
{
	const struct btf_type *t = btf__type_by_id(abi->btf[0], a);
	char buf[256], *label = NULL;
	uint32_t to;
	int r;

	if (t->name_off && *btf__name_by_offset(abi->btf[0], t->name_off))
		abi__type_name(abi->btf[0], a, buf, sizeof(buf));
	else
		anon_name(abi, w, a, tdef, buf, sizeof(buf));
	r = type_node(abi, a, b, buf, &to);
	if (r)
		return r;
	if (w->start[0] == a)
		r = asprintf(&label, "%s: ", w->prefix);
	else
		r = asprintf(&label, "%s: %s -> ", w->prefix,
			     abi__type_name(abi->btf[0], w->start[0], buf, sizeof(buf)));
	return add_edge(abi, w->own, to, r < 0 ? NULL : label, by_value && !w->indirect, w->off);
}

/* Return and parameters of two FUNC_PROTOs, under PREFIX ("" for a symbol's own). */
static int walk_proto(struct abi *abi, uint32_t own, const char *prefix,
		      const struct btf_type *pa, const struct btf_type *pb)
{
	const struct btf_param *qa = btf_params(pa), *qb = btf_params(pb);
	unsigned int i, n = btf_vlen(pa);
	struct walk w = { .own = own, .indirect = true };
	char *sub = NULL;
	const char *pname;
	int r;

	if (btf_vlen(pb) != n)
		return add_change(abi, own, ABI_CH_PARAMS, "%s%sparameter count %u -> %u", prefix,
				  *prefix ? " -> " : "", n, btf_vlen(pb));
	if (asprintf(&sub, "%s%sreturn", prefix, *prefix ? " -> " : "") < 0)
		return -ENOMEM;
	w.prefix = sub;
	w.start[0] = pa->type;
	w.start[1] = pb->type;
	r = walk_types(abi, &w, pa->type, pb->type);
	free(sub);
	for (i = 0; !r && i < n; i++) {
		pname = btf__name_by_offset(abi->btf[0], qa[i].name_off);
		if (pname && *pname)
			r = asprintf(&sub, "%s%sparameter %u (%s)", prefix, *prefix ? " -> " : "",
				     i + 1, pname);
		else
			r = asprintf(&sub, "%s%sparameter %u", prefix, *prefix ? " -> " : "", i + 1);
		if (r < 0)
			return -ENOMEM;
		w.prefix = sub;
		w.start[0] = qa[i].type;
		w.start[1] = qb[i].type;
		r = walk_types(abi, &w, qa[i].type, qb[i].type);
		free(sub);
	}
	return r;
}

#define ABI_WALK_DEPTH 64	/* modifiers in a row; only corrupt BTF has more */

static bool same_name(const struct abi *abi, const struct btf_type *ta, const struct btf_type *tb)
{
	return !strcmp(btf__name_by_offset(abi->btf[0], ta->name_off),
		       btf__name_by_offset(abi->btf[1], tb->name_off));
}

/*
 * Follow A and B in step through modifiers, typedefs, arrays and function
 * prototypes, down to a pair of named aggregates (an edge) or a leaf; a
 * difference on the way is one change of the walk's owner.
 */
static int walk_types(struct abi *abi, const struct walk *w, uint32_t a, uint32_t b)
{
	const struct btf_type *ta, *tb;
	uint32_t tdef, next_tdef = 0;	/* OLD's typedef just passed, if any */
	bool by_value = true, retyped = false;
	int depth, ka, kb, r;

	for (depth = 0; depth < ABI_WALK_DEPTH; depth++) {
		if (!a || !b)
			return a == b ? 0 : mismatch(abi, w, a, b);
		ta = btf__type_by_id(abi->btf[0], a);
		tb = btf__type_by_id(abi->btf[1], b);
		if (!ta || !tb)
			return -EINVAL;
		ka = btf_kind(ta);
		kb = btf_kind(tb);
		tdef = next_tdef;
		next_tdef = ka == BTF_KIND_TYPEDEF ? a : 0;
		/*
		 * A typedef is its target to the ABI: one added, dropped or
		 * renamed on the way changes nothing (a parameter declared
		 * int (*)(...) in 6.1, acpi_hp_notify in 6.12).
		 */
		if ((ka == BTF_KIND_TYPEDEF || kb == BTF_KIND_TYPEDEF) &&
		    (ka != kb || !same_name(abi, ta, tb))) {
			/* ... but it is to genksyms' CRC: said once, compatible. */
			if (abi->units_model && !retyped) {
				retyped = true;
				r = mismatch_as(abi, w, a, b, ABI_CH_TYPEDEF, ", a typedef on the way");
				if (r)
					return r;
			}
			if (ka == BTF_KIND_TYPEDEF)
				a = ta->type;
			if (kb == BTF_KIND_TYPEDEF)
				b = tb->type;
			continue;
		}
		/* A declaration on one side: its layout is unknown there. */
		if ((ka == BTF_KIND_FWD && (kb == BTF_KIND_STRUCT || kb == BTF_KIND_UNION)) ||
		    (kb == BTF_KIND_FWD && (ka == BTF_KIND_STRUCT || ka == BTF_KIND_UNION)))
			return same_name(abi, ta, tb) ? 0 : mismatch(abi, w, a, b);
		if (ka != kb)
			return mismatch(abi, w, a, b);
		switch (ka) {
		case BTF_KIND_INT:
			/*
			 * Name, size and bits; not the encoding: pahole versions
			 * disagree on char's signedness bit, and C's names say it.
			 */
			if (!same_name(abi, ta, tb) || ta->size != tb->size ||
			    btf_int_bits(ta) != btf_int_bits(tb) ||
			    btf_int_offset(ta) != btf_int_offset(tb))
				return mismatch(abi, w, a, b);
			return 0;
		case BTF_KIND_FLOAT:
			return same_name(abi, ta, tb) && ta->size == tb->size ? 0 : mismatch(abi, w, a, b);
		case BTF_KIND_FWD:
			return same_name(abi, ta, tb) && btf_kflag(ta) == btf_kflag(tb) ?
				0 : mismatch(abi, w, a, b);
		case BTF_KIND_TYPEDEF:
			if (!same_name(abi, ta, tb))
				return mismatch(abi, w, a, b);
			break;
		case BTF_KIND_ARRAY:
			if (btf_array(ta)->nelems != btf_array(tb)->nelems)
				return mismatch(abi, w, a, b);
			a = btf_array(ta)->type;
			b = btf_array(tb)->type;
			continue;
		case BTF_KIND_STRUCT:
		case BTF_KIND_UNION:
		case BTF_KIND_ENUM:
		case BTF_KIND_ENUM64:
			if (!same_name(abi, ta, tb))
				return mismatch(abi, w, a, b);
			return reach(abi, w, a, b, by_value, tdef);
		case BTF_KIND_FUNC_PROTO:
			return walk_proto(abi, w->own, w->prefix, ta, tb);
		case BTF_KIND_PTR:
			by_value = false;
			break;
		case BTF_KIND_CONST:
		case BTF_KIND_VOLATILE:
		case BTF_KIND_RESTRICT:
		case BTF_KIND_TYPE_TAG:
			break;
		default:
			return same_name(abi, ta, tb) ? 0 : mismatch(abi, w, a, b);
		}
		a = ta->type;
		b = tb->type;
	}
	return 0;
}

/*
 * Member I of struct T found in the other side's U: by name, or the Kth
 * anonymous one, not counting those SKIP marks (NULL: none).
 */
static int find_member(const struct btf *bu, const struct btf_type *u, const char *name,
		       unsigned int k, const bool *skip)
{
	const struct btf_member *m = btf_members(u);
	unsigned int i, anon = 0;
	const char *n;

	for (i = 0; i < btf_vlen(u); i++) {
		n = btf__name_by_offset(bu, m[i].name_off);
		if (*name ? !strcmp(n, name) : (!*n && !(skip && skip[i]) && anon++ == k))
			return (int)i;
	}
	return -1;
}

static void member_label(char *buf, size_t len, const char *name, unsigned int k)
{
	if (*name)
		snprintf(buf, len, "member '%s'", name);
	else
		snprintf(buf, len, "member (anon %u)", k + 1);
}

/* A member of NEW where OLD's was: its bit offset, bitfield size and type. */
struct mref {
	uint32_t off, bits, type;
};

#define ABI_ANON_DEPTH 8	/* anonymous unions and structs nested in a row */

/*
 * OLD's member NAME, gone from NEW's T at this level, found inside one of
 * its anonymous unions or structs (at any depth): 0 with *REF (its offset
 * from T's start) and *K the outer anonymous member's rank (its label),
 * or -1.
 */
static int find_wrapped(const struct btf *bb, const struct btf_type *t, const char *name,
			uint32_t base, int depth, struct mref *ref, unsigned int *k)
{
	const struct btf_member *m = btf_members(t);
	const struct btf_type *u;
	unsigned int i, anon = 0;
	const char *n;

	for (i = 0; depth < ABI_ANON_DEPTH && i < btf_vlen(t); i++) {
		n = btf__name_by_offset(bb, m[i].name_off);
		if (*n) {
			if (depth && !strcmp(n, name)) {
				*ref = (struct mref){ base + btf_member_bit_offset(t, i),
						      btf_member_bitfield_size(t, i), m[i].type };
				return 0;
			}
			continue;
		}
		u = btf__type_by_id(bb, m[i].type);
		if (u && btf_is_composite(u) &&
		    !find_wrapped(bb, u, name, base + btf_member_bit_offset(t, i), depth + 1, ref, k)) {
			if (!depth)
				*k = anon;
			return 0;
		}
		anon++;
	}
	return -1;
}

/*
 * NEW's anonymous members that wrap one of OLD's named ones: new, so not
 * matched by rank with OLD's anonymous members (a wrapper put before
 * OLD's first anonymous union would take its rank).  0 and *OUT, a flag
 * per member of TB or NULL when none is; or -ENOMEM.
 */
static int find_wrappers(const struct abi *abi, const struct btf_type *ta,
			 const struct btf_type *tb, bool **out)
{
	const struct btf_member *ma = btf_members(ta), *mb = btf_members(tb);
	unsigned int i, j, k;
	const char *name;
	struct mref ref;

	*out = NULL;
	for (i = 0; i < btf_vlen(ta); i++) {
		name = btf__name_by_offset(abi->btf[0], ma[i].name_off);
		if (!*name || find_member(abi->btf[1], tb, name, 0, NULL) >= 0 ||
		    find_wrapped(abi->btf[1], tb, name, 0, 0, &ref, &k))
			continue;
		if (!*out && !(*out = calloc(btf_vlen(tb), sizeof(**out))))
			return -ENOMEM;
		for (j = 0; j < btf_vlen(tb); j++)	/* the Kth anonymous member */
			if (!*btf__name_by_offset(abi->btf[1], mb[j].name_off) && !k--) {
				(*out)[j] = true;
				break;
			}
	}
	return 0;
}

/* ID past typedefs and qualifiers. */
static const struct btf_type *resolve(const struct btf *btf, uint32_t id)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	int depth;

	for (depth = 0; t && depth < ABI_WALK_DEPTH; depth++) {
		switch (btf_kind(t)) {
		case BTF_KIND_TYPEDEF:
		case BTF_KIND_CONST:
		case BTF_KIND_VOLATILE:
		case BTF_KIND_RESTRICT:
		case BTF_KIND_TYPE_TAG:
			t = btf__type_by_id(btf, t->type);
			continue;
		default:
			return t;
		}
	}
	return NULL;
}

static long long enum_value(const struct btf_type *t, unsigned int i);

/*
 * An enum bitfield of N bits (TYPE, BITS in OLD) become an integer of N
 * bits in NEW, signed or not as every enumerator's value fits: the bits
 * are where they were and read as the same numbers.
 */
static bool enum_to_int(const struct abi *abi, uint32_t type, uint32_t bits, const struct mref *nw)
{
	const struct btf_type *e = resolve(abi->btf[0], type), *t = resolve(abi->btf[1], nw->type);
	unsigned int i, width;
	long long v, lo, hi;
	bool sign;

	if (!bits || !e || !t || !btf_is_any_enum(e) || !btf_is_int(t) || btf_int_offset(t))
		return false;
	width = nw->bits ? nw->bits : btf_int_bits(t);
	if (width != bits || width >= 64)
		return false;
	sign = btf_int_encoding(t) & BTF_INT_SIGNED;
	lo = sign ? -(1LL << (width - 1)) : 0;
	hi = sign ? (1LL << (width - 1)) - 1 : (long long)((1ULL << width) - 1);
	for (i = 0; i < btf_vlen(e); i++) {
		v = enum_value(e, i);
		if (v < lo || v > hi)
			return false;
	}
	return true;
}

/*
 * OLD's member I of TA against NEW's at NW: offset, bitfield size, type
 * (or the one change of an enum bitfield become an integer); WRAP names
 * the anonymous member of NEW it moved into, or NULL.
 */
static int compare_member(struct abi *abi, struct walk *w, const struct btf_type *ta,
			  unsigned int i, const struct mref *nw, const char *wrap)
{
	uint32_t off = btf_member_bit_offset(ta, i), bits = btf_member_bitfield_size(ta, i);
	uint32_t type = btf_members(ta)[i].type;
	char ba[256], bb[256];
	int r = 0;

	if (off != nw->off) {
		r = add_change(abi, w->own, ABI_CH_MEMBER_OFFSET, "%s offset %u -> %u bits%s%s",
			       w->prefix, off, nw->off, wrap ? ", wrapped into " : "", wrap ?: "");
		if (!r)
			abi->ch[abi->nch - 1].off = off;
	} else if (wrap) {
		r = add_change(abi, w->own, ABI_CH_MEMBER_WRAPPED, "%s wrapped into %s, at the same offset",
			       w->prefix, wrap);
	}
	if (r)
		return r;
	if (enum_to_int(abi, type, bits, nw))
		return add_change(abi, w->own, ABI_CH_ENUM_BITFIELD, "%s: %s:%u -> %s, the same width",
				  w->prefix, abi__type_name(abi->btf[0], type, ba, sizeof(ba)), bits,
				  abi__type_name(abi->btf[1], nw->type, bb, sizeof(bb)));
	if (bits != nw->bits)
		r = add_change(abi, w->own, ABI_CH_MEMBER_BITS, "%s bitfield size %u -> %u",
			       w->prefix, bits, nw->bits);
	if (r)
		return r;
	w->start[0] = type;
	w->start[1] = nw->type;
	w->off = off;
	return walk_types(abi, w, type, nw->type);
}

static int compare_members(struct abi *abi, uint32_t node, const struct btf_type *ta,
			   const struct btf_type *tb)
{
	const struct btf *ba = abi->btf[0], *bb = abi->btf[1];
	const struct btf_member *mb = btf_members(tb);
	unsigned int i, k, anon = 0;
	struct walk w = { .own = node };
	char label[192], wrap[64];
	const char *name;
	struct mref nw;
	bool grown = ta->size != tb->size, *wrapper;
	int j, r = find_wrappers(abi, ta, tb, &wrapper);

	w.prefix = label;
	for (i = 0; !r && i < btf_vlen(ta); i++) {
		name = btf__name_by_offset(ba, btf_members(ta)[i].name_off);
		j = find_member(bb, tb, name, anon, wrapper);
		member_label(label, sizeof(label), name, anon);
		if (!*name)
			anon++;
		if (j >= 0) {
			nw = (struct mref){ btf_member_bit_offset(tb, j),
					    btf_member_bitfield_size(tb, j), mb[j].type };
			r = compare_member(abi, &w, ta, i, &nw, NULL);
		} else if (*name && !find_wrapped(bb, tb, name, 0, 0, &nw, &k)) {
			member_label(wrap, sizeof(wrap), "", k);
			r = compare_member(abi, &w, ta, i, &nw, wrap);
		} else {
			r = add_change(abi, node, ABI_CH_MEMBER_REMOVED, "%s removed", label);
		}
	}
	for (i = 0, anon = k = 0; !r && i < btf_vlen(tb); i++) {
		name = btf__name_by_offset(bb, mb[i].name_off);
		j = wrapper && wrapper[i] ? -1 : find_member(ba, ta, name, anon, NULL);
		/* Labelled by its rank among all, as "wrapped into" names it. */
		member_label(label, sizeof(label), name, k);
		if (!*name)
			k++;
		if (!*name && !(wrapper && wrapper[i]))
			anon++;
		if (j < 0)
			r = add_change(abi, node, grown ? ABI_CH_MEMBER_GROWN : ABI_CH_MEMBER_ADDED,
				       "%s added at offset %u bits", label,
				       btf_member_bit_offset(tb, i));
	}
	free(wrapper);
	return r;
}

/* An enum's kind flag: 1 its values are signed, 0 unsigned (BTF's spec). */
static long long enum_value(const struct btf_type *t, unsigned int i)
{
	if (btf_is_enum64(t))
		return (long long)btf_enum64_value(btf_enum64(t) + i);
	return btf_kflag(t) ? btf_enum(t)[i].val : (long long)(uint32_t)btf_enum(t)[i].val;
}

static const char *enum_name(const struct btf *btf, const struct btf_type *t, unsigned int i)
{
	return btf__name_by_offset(btf, btf_is_enum64(t) ? btf_enum64(t)[i].name_off
							 : btf_enum(t)[i].name_off);
}

static int find_enumerator(const struct btf *btf, const struct btf_type *t, const char *name)
{
	unsigned int i;

	for (i = 0; i < btf_vlen(t); i++)
		if (!strcmp(enum_name(btf, t, i), name))
			return (int)i;
	return -1;
}

static int compare_enums(struct abi *abi, uint32_t node, const struct btf_type *ta,
			 const struct btf_type *tb)
{
	unsigned int i;
	const char *name;
	int j, r = 0;

	for (i = 0; !r && i < btf_vlen(ta); i++) {
		name = enum_name(abi->btf[0], ta, i);
		j = find_enumerator(abi->btf[1], tb, name);
		if (j < 0)
			r = add_change(abi, node, ABI_CH_ENUM_REMOVED, "enumerator %s removed", name);
		else if (enum_value(ta, i) != enum_value(tb, (unsigned int)j))
			r = add_change(abi, node, ABI_CH_ENUM_VALUE, "enumerator %s value %lld -> %lld",
				       name, enum_value(ta, i), enum_value(tb, (unsigned int)j));
	}
	for (i = 0; !r && i < btf_vlen(tb); i++) {
		name = enum_name(abi->btf[1], tb, i);
		if (find_enumerator(abi->btf[0], ta, name) < 0)
			r = add_change(abi, node, ABI_CH_ENUM_ADDED, "enumerator %s = %lld added",
				       name, enum_value(tb, i));
	}
	return r;
}

/* A pair of structs, unions or enums of the same kind and name. */
static int compare_type(struct abi *abi, uint32_t node)
{
	const struct btf_type *ta = btf__type_by_id(abi->btf[0], abi->nodes[node].id[0]);
	const struct btf_type *tb = btf__type_by_id(abi->btf[1], abi->nodes[node].id[1]);
	int r;

	if (ta->size != tb->size) {
		r = add_change(abi, node, ABI_CH_SIZE, "size %u -> %u bytes", ta->size, tb->size);
		if (r)
			return r;
	}
	if (btf_is_composite(ta))
		return compare_members(abi, node, ta, tb);
	return compare_enums(abi, node, ta, tb);
}

/* A symbol in both: its FUNCs' prototypes, or its VARs' types. */
static int compare_symbol(struct abi *abi, uint32_t node)
{
	uint32_t a = abi->nodes[node].id[0], b = abi->nodes[node].id[1];
	const struct btf_type *ta = btf__type_by_id(abi->btf[0], a);
	const struct btf_type *tb = btf__type_by_id(abi->btf[1], b);
	const struct btf_type *pa, *pb;
	struct walk w = { .own = node, .prefix = "type" };

	if (btf_kind(ta) != btf_kind(tb))
		return add_change(abi, node, ABI_CH_TYPE, "%s -> %s",
				  btf_is_func(ta) ? "function" : "variable",
				  btf_is_func(tb) ? "function" : "variable");
	if (btf_is_var(ta)) {
		w.start[0] = ta->type;
		w.start[1] = tb->type;
		return walk_types(abi, &w, ta->type, tb->type);
	}
	pa = btf__type_by_id(abi->btf[0], ta->type);
	pb = btf__type_by_id(abi->btf[1], tb->type);
	if (!pa || !pb || !btf_is_func_proto(pa) || !btf_is_func_proto(pb))
		return -EINVAL;
	return walk_proto(abi, node, "", pa, pb);
}

/* The symbol, then every pair it reaches that is not compared yet. */
int abi__compare_symbol(struct abi *abi, uint32_t node)
{
	int r = compare_symbol(abi, node);

	while (!r && abi->ntodo)
		r = compare_type(abi, abi->todo[--abi->ntodo]);
	return r;
}

int abi__compare_types(struct abi *abi, uint32_t node, const char *prefix)
{
	struct walk w = { .own = node, .prefix = prefix };
	int r;

	w.start[0] = abi->nodes[node].id[0];
	w.start[1] = abi->nodes[node].id[1];
	r = walk_types(abi, &w, w.start[0], w.start[1]);
	while (!r && abi->ntodo)
		r = compare_type(abi, abi->todo[--abi->ntodo]);
	return r;
}

int abi__add_type_change(struct abi *abi, uint32_t node, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = add_change_v(abi, node, ABI_CH_TYPE, fmt, ap);
	va_end(ap);
	return r;
}

int abi__symbol_node(struct abi *abi, uint32_t a, uint32_t b, uint32_t *out)
{
	int r = new_node(abi, a, b, out);

	if (!r)
		abi->nodes[*out].is_sym = true;
	return r;
}

/*
 * Which nodes reach a change (their own or through their edges): a
 * fixpoint, since edges form cycles.  Rounds are few: each carries the
 * mark one edge further up the longest chain of changed types.
 */
void abi__mark_tainted(struct abi *abi)
{
	bool more = true;
	size_t i;
	int32_t e;

	for (i = 0; i < abi->nn; i++)
		abi->nodes[i].tainted = abi->nodes[i].nchanges > 0;
	while (more) {
		more = false;
		for (i = 0; i < abi->nn; i++) {
			if (abi->nodes[i].tainted)
				continue;
			for (e = abi->nodes[i].ed_head; e >= 0; e = abi->ed[e].next)
				if (abi->nodes[abi->ed[e].to].tainted) {
					abi->nodes[i].tainted = more = true;
					break;
				}
		}
	}
}

/* The path from the BFS's root to NODE, through the edges that reached it. */
static char *path_to(struct abi *abi, uint32_t node)
{
	const struct abi_node *n = &abi->nodes[node];
	char *path = NULL, *tail = NULL, *p;
	int32_t e;

	if (n->nchanges == 1)
		tail = strdup(abi->ch[n->ch_head].text);
	else if (asprintf(&tail, "%u changes", n->nchanges) < 0)
		tail = NULL;
	if (!tail)
		return NULL;
	if (asprintf(&path, "%s: %s", n->name, tail) < 0)
		path = NULL;
	free(tail);
	for (e = n->via; path && e >= 0; e = abi->nodes[abi->ed[e].from].via) {
		const struct abi_node *from = &abi->nodes[abi->ed[e].from];

		p = path;
		if (from->is_sym ? asprintf(&path, "%s%s", abi->ed[e].label, p) < 0
				 : asprintf(&path, "%s: %s%s", from->name, abi->ed[e].label, p) < 0)
			path = NULL;
		free(p);
	}
	return path;
}

static int add_path(struct abi_sym *s, char *path)
{
	if (!path || array__grow(&s->paths, &s->paths_cap, s->npaths + 1, sizeof(*s->paths), 4)) {
		free(path);
		return -ENOMEM;
	}
	s->paths[s->npaths++] = path;
	return 0;
}

/*
 * The path a cause is shown with: the shortest from any symbol, the first
 * by name among those as short (symbols are walked in name order).  Past
 * other changed types too, unlike a symbol's own paths.
 */
static int cause_path(struct abi *abi, uint32_t node, uint32_t si)
{
	struct abi_node *n = &abi->nodes[node];
	char *p = path_to(abi, node);

	if (!p)
		return -ENOMEM;
	free(n->path);
	n->path = p;
	n->path_sym = si;
	n->path_depth = n->depth;
	return 0;
}

/*
 * Whether the walk of the current symbol goes into NODE: under the DWARF
 * model, only when the symbol's unit defines its type (by value, or
 * through a pointer: genksyms expands both); a type it only declares is
 * a name there, whatever its members became.
 */
static bool gate_allows(const struct abi *abi, uint32_t node)
{
	int32_t g;

	if (!abi->gate_defined)
		return true;
	g = abi->gate_node[node];
	return g == ABI_GATE_ANON || (g >= 0 && abi->gate_defined[g]);
}

/*
 * Symbol S's paths: its own changes, then a breadth-first walk over the
 * nodes that reach a change.  Every changed type met gets S in its list of
 * symbols; S gets a path (the shortest) to those met before any other
 * changed type only: past a changed struct, what else changed is told by
 * that struct's own entry.  Without this cut, 6.1 -> 6.12 printed three
 * million paths (500 per changed symbol) in 1.9 GB.
 */
int abi__symbol_paths(struct abi *abi, uint32_t si, uint32_t *queue)
{
	struct abi_sym *s = &abi->syms[si];
	uint32_t root = s->node, stamp = si + 1, head = 0, tail = 0, at;
	struct abi_node *n;
	bool behind;
	int32_t c, e;
	int r = 0;

	for (c = abi->nodes[root].ch_head; !r && c >= 0; c = abi->ch[c].next)
		r = add_path(s, strdup(abi->ch[c].text));
	s->incompat |= abi->nodes[root].incompat;
	abi->nodes[root].stamp = stamp;
	abi->nodes[root].via = -1;
	abi->nodes[root].depth = 0;
	abi->nodes[root].behind = false;
	queue[tail++] = root;
	while (!r && head < tail) {
		at = queue[head++];
		behind = abi->nodes[at].behind || (at != root && abi->nodes[at].nchanges);
		for (e = abi->nodes[at].ed_head; e >= 0; e = abi->ed[e].next) {
			n = &abi->nodes[abi->ed[e].to];
			if (!n->tainted || n->stamp == stamp || !gate_allows(abi, abi->ed[e].to))
				continue;
			n->stamp = stamp;
			n->via = e;
			n->depth = abi->nodes[at].depth + 1;
			n->behind = behind;
			queue[tail++] = abi->ed[e].to;
		}
		n = &abi->nodes[at];
		if (at == root || !n->nchanges)
			continue;
		s->incompat |= n->incompat;
		if (!n->behind)
			r = add_path(s, path_to(abi, at));
		if (!r && (!n->path || n->depth < n->path_depth))
			r = cause_path(abi, at, si);
		if (!r && array__grow(&n->syms, &n->syms_cap, n->nsyms + 1, sizeof(*n->syms), 4))
			r = -ENOMEM;
		if (!r)
			n->syms[n->nsyms++] = si;
	}
	if (!r && (s->npaths || s->incompat))
		s->status = ABI_SYM_CHANGED;
	return r;
}

static bool has_kind(const struct abi *abi, const struct abi_node *n, enum abi_change_kind kind)
{
	int32_t c;

	for (c = n->ch_head; c >= 0; c = abi->ch[c].next)
		if (abi->ch[c].kind == kind)
			return true;
	return false;
}

/*
 * Whether changed type NODE only follows a type it embeds: its changes
 * are its size and the offsets of members after one whose type (a struct
 * or union held by value, not through a pointer) changed size.  Then it
 * is no cause of its own: struct ib_device's 40 offsets follow struct
 * ib_device_ops, which gained two members (6.1.0-53 -> 54).  The member
 * of the lowest offset is the one followed.
 */
static int32_t follows(const struct abi *abi, uint32_t node)
{
	const struct abi_node *n = &abi->nodes[node];
	uint32_t off = UINT32_MAX;
	int32_t c, e, to = -1;

	for (e = n->ed_head; e >= 0; e = abi->ed[e].next) {
		const struct abi_edge *ed = &abi->ed[e];

		if (ed->by_value && ed->off < off && ed->to != node &&
		    has_kind(abi, &abi->nodes[ed->to], ABI_CH_SIZE)) {
			off = ed->off;
			to = (int32_t)ed->to;
		}
	}
	if (to < 0)
		return -1;
	for (c = n->ch_head; c >= 0; c = abi->ch[c].next)
		if (abi->ch[c].kind != ABI_CH_SIZE &&
		    (abi->ch[c].kind != ABI_CH_MEMBER_OFFSET || abi->ch[c].off <= off))
			return -1;
	return to;
}

void abi__find_causes(struct abi *abi)
{
	size_t i;

	for (i = 0; i < abi->nn; i++)
		abi->nodes[i].follows = abi->nodes[i].is_sym || !abi->nodes[i].nchanges ? -1 :
					follows(abi, (uint32_t)i);
}

void abi__free(struct abi *abi)
{
	size_t i;

	for (i = 0; i < abi->nn; i++) {
		free(abi->nodes[i].name);
		free(abi->nodes[i].syms);
		free(abi->nodes[i].path);
	}
	for (i = 0; i < abi->nch; i++)
		free(abi->ch[i].text);
	for (i = 0; i < abi->ned; i++)
		free(abi->ed[i].label);
	for (i = 0; i < abi->nsyms; i++) {
		size_t k;

		for (k = 0; k < abi->syms[i].npaths; k++)
			free(abi->syms[i].paths[k]);
		free(abi->syms[i].paths);
		free(abi->syms[i].name);
	}
	free(abi->syms);
	for (i = 0; i < abi->ncauses; i++)
		free(abi->causes[i].moves);
	free(abi->causes);
	free(abi->todo);
	free(abi->gate_node);
	free(abi->nodes);
	free(abi->ch);
	free(abi->ed);
	idxmap__free(&abi->pairs);
}

void abi__delete(struct abi *abi)
{
	if (!abi)
		return;
	abi__free(abi);
	free(abi);
}

const char *abi__warning(const struct abi *abi)
{
	return abi->warning[0] ? abi->warning : NULL;
}

int abi__exit_status(const struct abi *abi)
{
	int ret = EXIT_OK;
	size_t i;

	for (i = 0; i < abi->nsyms; i++) {
		if (abi->syms[i].status != ABI_SYM_SAME)
			ret |= ABI_EXIT_CHANGED;
		if (abi->syms[i].incompat)
			ret |= ABI_EXIT_INCOMPAT;
	}
	return ret;
}

int abi_fail(struct abi_err *err, const char *what, const char *fmt, ...)
{
	va_list ap;

	if (err->why[0])
		return -1;
	snprintf(err->what, sizeof(err->what), "%s", what ? what : "");
	va_start(ap, fmt);
	vsnprintf(err->why, sizeof(err->why), fmt, ap);
	va_end(ap);
	return -1;
}
