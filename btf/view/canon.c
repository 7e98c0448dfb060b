// SPDX-License-Identifier: GPL-2.0
/*
 * The id-free rendering of a BTF blob (see view.h).
 *
 * Text forms, one entry per named type or declaration:
 *   struct foo size=24          then one line per member:
 *     name BITOFF[:BITS] TYPE       bitfields the same whether the blob uses
 *                                   kind_flag or INT-encoded bit offsets
 *   enum foo size=4 signed      then "  NAME = VALUE" (enum64 says so)
 *   typedef foo = TYPE
 *   func foo global             then "  param NAME TYPE" and "  return TYPE"
 *   var foo static TYPE
 *   datasec .data..percpu size=N   then "  OFF SIZE var NAME"
 *   decl_tag TAG on TARGET[ member NAME | param NAME]
 * and TYPE is written as
 *   void, int, struct foo{24}, enum foo{4}, fwd struct foo, typedef names,
 *   *T, const T, volatile T, restrict T, tag(NAME) T, [N]T, fn(a T, ...) T,
 *   anonymous aggregates inline: struct{size=8: a 0 int; b 32 int}
 * Array index types are left out: they carry no meaning for a consumer.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>

#include "btf/view/view.h"
#include "lib/array.h"

/* Anonymous types nest; a loop in a malformed blob must not recurse forever. */
#define MAX_DEPTH 64
/*
 * Nor grow without bound: an anonymous type used twice by the one above it,
 * 40 deep, is 2^40 copies written inline.  No real entry comes near this
 * (the kernel's largest is under 20 KB), and an entry that would pass it is
 * written again with labels instead (see struct canon_ctx), which is linear
 * in the types it reaches.  An entry too long even then fails (-E2BIG).
 */
#define MAX_TEXT (256u << 10)

struct btf_canon {
	struct btf_canon_ent *ents;
	size_t cnt, cap;
};

/*
 * Shared by the renderings of one blob.  len[id] is the inline length of
 * anonymous type ID plus one (0: not measured yet, MAX_TEXT + 2: too long),
 * measured once, so an entry that would outgrow MAX_TEXT is known before it
 * is written, in time linear in the blob.  In compact mode an entry writes
 * each anonymous aggregate or prototype once, at its first use, as
 * "@N=struct{...}", and later uses as "@N"; N counts from 1 in the order of
 * first use, so the text holds no id and is the same for equal entries.
 */
struct canon_ctx {
	__u32 *len;
	__u32 *label, *label_gen;	/* label[id] is valid if label_gen[id] == gen */
	__u32 cnt, gen, nlabels;	/* label arrays: made at the first compact entry */
	bool compact;
};

/* A growable string; on allocation failure it remembers and stops growing. */
struct sbuf {
	char *p;
	size_t len, cap;
	bool oom;
	bool big;		/* past MAX_TEXT; oom is set too, to stop */
	bool measure;		/* only count: len grows, nothing is stored */
	size_t max;		/* bound on len + 1 for this entry; 0: MAX_TEXT */
	struct canon_ctx *cx;	/* NULL: no memo, no labels */
};

__attribute__((format(printf, 2, 0)))
static void sb_vputf(struct sbuf *s, const char *fmt, va_list ap)
{
	va_list aq;
	size_t need;
	int n;

	if (s->oom)
		return;
	if (s->measure) {
		n = vsnprintf(NULL, 0, fmt, ap);
		if (n < 0 || s->len + (size_t)n + 1 > (s->max ? s->max : MAX_TEXT))
			s->oom = s->big = true;
		else
			s->len += (size_t)n;
		return;
	}
	va_copy(aq, ap);
	n = vsnprintf(s->p ? s->p + s->len : NULL, s->p ? s->cap - s->len : 0, fmt, aq);
	va_end(aq);
	if (n < 0) {
		s->oom = true;
		return;
	}
	need = s->len + (size_t)n + 1;
	if (need > (s->max ? s->max : MAX_TEXT)) {
		s->oom = s->big = true;
		return;
	}
	if (need > s->cap) {
		if (array__grow(&s->p, &s->cap, need, 1, 256)) {
			s->oom = true;
			return;
		}
		vsnprintf(s->p + s->len, s->cap - s->len, fmt, ap);
	}
	s->len += (size_t)n;
}

static void sb_reset(struct sbuf *s)
{
	s->len = 0;
	s->max = 0;
	s->oom = s->big = false;
	if (s->p)
		s->p[0] = '\0';
}

static void __attribute__((format(printf, 2, 3))) sb_putf(struct sbuf *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sb_vputf(s, fmt, ap);
	va_end(ap);
}

static const char *const cat_names[BTF_CANON_CAT_CNT] = {
	[BTF_CANON_INT] = "int",	[BTF_CANON_FLOAT] = "float",
	[BTF_CANON_STRUCT] = "struct",	[BTF_CANON_UNION] = "union",
	[BTF_CANON_ENUM] = "enum",	[BTF_CANON_FWD] = "fwd",
	[BTF_CANON_TYPEDEF] = "typedef", [BTF_CANON_ANON] = "anon",
	[BTF_CANON_FUNC] = "func",	[BTF_CANON_VAR] = "var",
	[BTF_CANON_DATASEC] = "datasec", [BTF_CANON_DECL_TAG] = "decl_tag",
};

const char *btf_canon__cat_name(enum btf_canon_cat cat)
{
	return (unsigned int)cat < BTF_CANON_CAT_CNT ? cat_names[cat] : "?";
}

int btf_canon__cat_by_name(const char *name)
{
	int i;

	for (i = 0; i < BTF_CANON_CAT_CNT; i++)
		if (!strcmp(cat_names[i], name))
			return i;
	return -ENOENT;
}

/* --kinds' names for several categories at once. */
static const struct {
	const char *name;
	unsigned int mask;
} cat_groups[] = {
	{ "all", BTF_CANON_ALL },
	{ "types", BTF_CANON_TYPES },
	{ "decls", BTF_CANON_DECLS },
};
#define NR_CAT_GROUPS (sizeof(cat_groups) / sizeof(cat_groups[0]))

const char *btf_canon__cats_word(unsigned int i)
{
	if (i < BTF_CANON_CAT_CNT)
		return cat_names[i];
	i -= BTF_CANON_CAT_CNT;
	return i < NR_CAT_GROUPS ? cat_groups[i].name : NULL;
}

/* One word of a --kinds list into *MASK: 0, or -EINVAL when unknown. */
static int parse_cat(const char *word, unsigned int *mask)
{
	size_t i;
	int cat;

	for (i = 0; i < NR_CAT_GROUPS; i++)
		if (!strcmp(word, cat_groups[i].name)) {
			*mask |= cat_groups[i].mask;
			return 0;
		}
	cat = btf_canon__cat_by_name(word);
	if (cat < 0)
		return -EINVAL;
	*mask |= 1u << cat;
	return 0;
}

int btf_canon__parse_cats(const char *list, unsigned int *mask)
{
	char word[32];
	const char *p = list, *end;
	size_t len;

	*mask = 0;
	while (*p) {
		end = strchr(p, ',');
		len = end ? (size_t)(end - p) : strlen(p);
		if (!len || len >= sizeof(word))
			return -EINVAL;
		memcpy(word, p, len);
		word[len] = '\0';
		if (parse_cat(word, mask))
			return -EINVAL;
		p += len + (end ? 1 : 0);
	}
	return *mask ? 0 : -EINVAL;
}

static const char *name_of(const struct btf *btf, const struct btf_type *t)
{
	const char *s = btf__name_by_offset(btf, t->name_off);

	return s ? s : "";
}

static void render_ref(const struct btf *btf, struct sbuf *s, __u32 id, int depth);

/* A member's bit offset and bitfield size (0: not a bitfield), canonical. */
static void member_pos(const struct btf *btf, const struct btf_type *t, int i,
		       __u32 *bit_off, __u32 *bits)
{
	const struct btf_member *m = btf_members(t) + i;
	const struct btf_type *mt;

	*bit_off = btf_member_bit_offset(t, i);
	*bits = btf_member_bitfield_size(t, i);
	if (btf_kflag(t))
		return;
	/* Without kind_flag a bitfield is an INT whose bits say so. */
	mt = btf__type_by_id(btf, m->type);
	if (mt && btf_is_int(mt) &&
	    (btf_int_offset(mt) || btf_int_bits(mt) != mt->size * 8)) {
		*bit_off += btf_int_offset(mt);
		*bits = btf_int_bits(mt);
	}
}

static void render_member(const struct btf *btf, struct sbuf *s,
			  const struct btf_type *t, int i, int depth)
{
	const struct btf_member *m = btf_members(t) + i;
	const char *name = btf__name_by_offset(btf, m->name_off);
	__u32 off, bits;

	member_pos(btf, t, i, &off, &bits);
	sb_putf(s, "%s %u", name && *name ? name : "(anon)", off);
	if (bits)
		sb_putf(s, ":%u", bits);
	sb_putf(s, " ");
	render_ref(btf, s, m->type, depth + 1);
}

static void render_composite_inline(const struct btf *btf, struct sbuf *s,
				    const struct btf_type *t, int depth)
{
	int i, n = btf_vlen(t);

	sb_putf(s, "%s{size=%u:", btf_is_union(t) ? "union" : "struct", t->size);
	for (i = 0; i < n; i++) {
		sb_putf(s, i ? "; " : " ");
		render_member(btf, s, t, i, depth);
	}
	sb_putf(s, "}");
}

static bool enum_signed(const struct btf_type *t)
{
	return btf_kflag(t);
}

/* VALUE of enumerator I, as the enum's signedness says. */
static void render_enum_val(const struct btf *btf, struct sbuf *s,
			    const struct btf_type *t, int i, const char *sep)
{
	const char *name;
	__u64 v;

	if (btf_is_enum(t)) {
		const struct btf_enum *e = btf_enum(t) + i;

		name = btf__name_by_offset(btf, e->name_off);
		v = enum_signed(t) ? (__u64)(__s64)e->val : (__u32)e->val;
	} else {
		const struct btf_enum64 *e = btf_enum64(t) + i;

		name = btf__name_by_offset(btf, e->name_off);
		v = btf_enum64_value(e);
	}
	if (enum_signed(t))
		sb_putf(s, "%s%s = %lld", sep, name ? name : "", (long long)v);
	else
		sb_putf(s, "%s%s = %llu", sep, name ? name : "", (unsigned long long)v);
}

static void render_enum_inline(const struct btf *btf, struct sbuf *s,
			       const struct btf_type *t)
{
	int i, n = btf_vlen(t);

	sb_putf(s, "%s{size=%u %s:", btf_is_enum(t) ? "enum" : "enum64", t->size,
		enum_signed(t) ? "signed" : "unsigned");
	for (i = 0; i < n; i++)
		render_enum_val(btf, s, t, i, i ? ", " : " ");
	sb_putf(s, "}");
}

static void render_proto_inline(const struct btf *btf, struct sbuf *s,
				const struct btf_type *t, int depth)
{
	const struct btf_param *p = btf_params(t);
	int i, n = btf_vlen(t);

	sb_putf(s, "fn(");
	for (i = 0; i < n; i++) {
		const char *name = btf__name_by_offset(btf, p[i].name_off);

		if (i)
			sb_putf(s, ", ");
		if (!p[i].type && i == n - 1) {
			sb_putf(s, "...");
			continue;
		}
		if (name && *name)
			sb_putf(s, "%s ", name);
		render_ref(btf, s, p[i].type, depth + 1);
	}
	sb_putf(s, ") ");
	render_ref(btf, s, t->type, depth + 1);
}

static void render_int_inline(struct sbuf *s, const struct btf_type *t)
{
	__u32 enc = btf_int_encoding(t);

	sb_putf(s, "int{size=%u bits=%u off=%u%s%s%s}", t->size, btf_int_bits(t),
		btf_int_offset(t), enc & BTF_INT_SIGNED ? " signed" : "",
		enc & BTF_INT_CHAR ? " char" : "", enc & BTF_INT_BOOL ? " bool" : "");
}

/* Anonymous types written with a body of their own: what can repeat. */
static bool has_body(const struct btf_type *t, const char *name)
{
	switch (btf_kind(t)) {
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		return !*name;
	case BTF_KIND_FUNC_PROTO:
		return true;
	default:
		return false;
	}
}

static void render_body(const struct btf *btf, struct sbuf *s, const struct btf_type *t,
			int depth)
{
	if (btf_is_composite(t))
		render_composite_inline(btf, s, t, depth);
	else if (btf_is_func_proto(t))
		render_proto_inline(btf, s, t, depth);
	else
		render_enum_inline(btf, s, t);
}

/* Length of anonymous type ID written inline; past MAX_TEXT: MAX_TEXT + 1. */
static size_t inline_len(const struct btf *btf, struct canon_ctx *cx, __u32 id,
			 const struct btf_type *t, int depth)
{
	struct sbuf m = { .measure = true, .cx = cx };

	if (!cx->len[id]) {
		render_body(btf, &m, t, depth);
		cx->len[id] = (m.big ? MAX_TEXT + 1 : m.len) + 1;
	}
	return cx->len[id] - 1;
}

/*
 * Before anonymous type ID with a body is written: in compact mode, write
 * its label, and its body only at its first use; otherwise stop the entry
 * (as too big) if it will not fit, and when measuring, count it from the
 * memo.  Returns true when the body is still to be written.
 */
static bool render_shared(const struct btf *btf, struct sbuf *s, __u32 id,
			  const struct btf_type *t, int depth)
{
	struct canon_ctx *cx = s->cx;
	size_t len;

	if (cx->compact && !s->measure) {
		if (cx->label_gen[id] == cx->gen) {
			sb_putf(s, "@%u", cx->label[id]);
			return false;
		}
		cx->label_gen[id] = cx->gen;
		cx->label[id] = ++cx->nlabels;
		sb_putf(s, "@%u=", cx->label[id]);
		return true;
	}
	len = inline_len(btf, cx, id, t, depth);
	if (s->len + len + 1 > MAX_TEXT) {
		s->oom = s->big = true;
		return false;
	}
	if (!s->measure)
		return true;
	s->len += len;
	return false;
}

static void render_ref(const struct btf *btf, struct sbuf *s, __u32 id, int depth)
{
	const struct btf_type *t;
	const char *name;

	if (s->oom)
		return;
	if (!id) {
		sb_putf(s, "void");
		return;
	}
	if (depth > MAX_DEPTH) {
		sb_putf(s, "<too deep>");
		return;
	}
	t = btf__type_by_id(btf, id);
	if (!t) {
		sb_putf(s, "<bad id %u>", id);
		return;
	}
	name = name_of(btf, t);
	if (s->cx && has_body(t, name) && !render_shared(btf, s, id, t, depth))
		return;
	switch (btf_kind(t)) {
	case BTF_KIND_INT:
		if (*name)
			sb_putf(s, "%s", name);
		else
			render_int_inline(s, t);
		break;
	case BTF_KIND_FLOAT:
		sb_putf(s, "%s{float %u}", name, t->size);
		break;
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		if (*name)
			sb_putf(s, "%s %s{%u}", btf_is_union(t) ? "union" : "struct", name, t->size);
		else
			render_composite_inline(btf, s, t, depth);
		break;
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		if (*name)
			sb_putf(s, "enum %s{%u}", name, t->size);
		else
			render_enum_inline(btf, s, t);
		break;
	case BTF_KIND_FWD:
		sb_putf(s, "fwd %s %s", btf_kflag(t) ? "union" : "struct", name);
		break;
	case BTF_KIND_TYPEDEF:
		sb_putf(s, "%s", name);
		break;
	case BTF_KIND_PTR:
		sb_putf(s, "*");
		render_ref(btf, s, t->type, depth + 1);
		break;
	case BTF_KIND_CONST:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_RESTRICT:
		sb_putf(s, "%s ", btf_is_const(t) ? "const" :
			btf_is_volatile(t) ? "volatile" : "restrict");
		render_ref(btf, s, t->type, depth + 1);
		break;
	case BTF_KIND_TYPE_TAG:
		/* kind_flag: an attribute (__attribute__((NAME))), not a btf_type_tag. */
		sb_putf(s, "%s(%s) ", btf_kflag(t) ? "attr" : "tag", name);
		render_ref(btf, s, t->type, depth + 1);
		break;
	case BTF_KIND_ARRAY:
		sb_putf(s, "[%u]", btf_array(t)->nelems);
		render_ref(btf, s, btf_array(t)->type, depth + 1);
		break;
	case BTF_KIND_FUNC_PROTO:
		render_proto_inline(btf, s, t, depth);
		break;
	case BTF_KIND_FUNC:
		sb_putf(s, "func %s", name);
		break;
	case BTF_KIND_VAR:
		sb_putf(s, "var %s", name);
		break;
	case BTF_KIND_DATASEC:
		sb_putf(s, "datasec %s", name);
		break;
	default:
		sb_putf(s, "<kind %u %s>", btf_kind(t), name);
		break;
	}
}

/* Types that are written inline wherever they are used. */
static bool is_anonymous(const struct btf *btf, const struct btf_type *t)
{
	switch (btf_kind(t)) {
	case BTF_KIND_PTR:
	case BTF_KIND_CONST:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_TYPE_TAG:
	case BTF_KIND_ARRAY:
	case BTF_KIND_FUNC_PROTO:
		return true;
	case BTF_KIND_INT:
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		return !*name_of(btf, t);
	default:
		return false;
	}
}

static const char *linkage_name(__u32 linkage)
{
	switch (linkage) {
	case BTF_FUNC_STATIC:	return "static";
	case BTF_FUNC_GLOBAL:	return "global";
	case BTF_FUNC_EXTERN:	return "extern";
	default:		return "linkage?";
	}
}

static void render_struct(const struct btf *btf, struct sbuf *s, const struct btf_type *t)
{
	int i, n = btf_vlen(t);

	sb_putf(s, "%s %s size=%u", btf_is_union(t) ? "union" : "struct",
		name_of(btf, t), t->size);
	for (i = 0; i < n; i++) {
		sb_putf(s, "\n  ");
		render_member(btf, s, t, i, 0);
	}
}

static void render_enum(const struct btf *btf, struct sbuf *s, const struct btf_type *t)
{
	int i, n = btf_vlen(t);

	sb_putf(s, "%s %s size=%u %s", btf_is_enum(t) ? "enum" : "enum64",
		name_of(btf, t), t->size, enum_signed(t) ? "signed" : "unsigned");
	for (i = 0; i < n; i++)
		render_enum_val(btf, s, t, i, "\n  ");
}

static void render_func(const struct btf *btf, struct sbuf *s, const struct btf_type *t)
{
	const struct btf_type *proto = btf__type_by_id(btf, t->type);
	const struct btf_param *p;
	int i, n;

	sb_putf(s, "func %s %s", name_of(btf, t), linkage_name(btf_vlen(t)));
	if (!proto || !btf_is_func_proto(proto)) {
		sb_putf(s, "\n  type ");
		render_ref(btf, s, t->type, 0);
		return;
	}
	p = btf_params(proto);
	n = btf_vlen(proto);
	for (i = 0; i < n; i++) {
		const char *name = btf__name_by_offset(btf, p[i].name_off);

		if (!p[i].type && i == n - 1) {
			sb_putf(s, "\n  param ...");
			continue;
		}
		sb_putf(s, "\n  param %s ", name && *name ? name : "(anon)");
		render_ref(btf, s, p[i].type, 0);
	}
	sb_putf(s, "\n  return ");
	render_ref(btf, s, proto->type, 0);
}

static void render_datasec(const struct btf *btf, struct sbuf *s, const struct btf_type *t)
{
	const struct btf_var_secinfo *v = btf_var_secinfos(t);
	int i, n = btf_vlen(t);

	/*
	 * A section's line per variable is short and names it only, so the
	 * entry is linear in the blob, but global_var puts tens of thousands
	 * in one (.bss of a vmlinux): each line gets its own room.
	 */
	s->max = MAX_TEXT;
	for (i = 0; i < n; i++) {
		/* A bad type id in a section is rendered, not followed. */
		const struct btf_type *var = btf__type_by_id(btf, v[i].type);

		s->max += 32 + (var && btf_is_var(var) ? strlen(name_of(btf, var)) : 0);
	}
	sb_putf(s, "datasec %s size=%u", name_of(btf, t), t->size);
	for (i = 0; i < n; i++) {
		sb_putf(s, "\n  %u %u ", v[i].offset, v[i].size);
		render_ref(btf, s, v[i].type, 0);
	}
}

/* "decl_tag TAG on TARGET[ member NAME | param NAME | #IDX]" */
static void render_decl_tag(const struct btf *btf, struct sbuf *s, const struct btf_type *t)
{
	const struct btf_type *target = btf__type_by_id(btf, t->type);
	int idx = btf_decl_tag(t)->component_idx;
	const char *name = NULL;

	sb_putf(s, "decl_tag %s on ", name_of(btf, t));
	render_ref(btf, s, t->type, 0);
	if (idx < 0 || !target)
		return;
	if ((btf_is_struct(target) || btf_is_union(target)) && idx < btf_vlen(target)) {
		name = btf__name_by_offset(btf, btf_members(target)[idx].name_off);
		sb_putf(s, " member ");
	} else if (btf_is_func(target)) {
		const struct btf_type *proto = btf__type_by_id(btf, target->type);

		if (proto && btf_is_func_proto(proto) && idx < btf_vlen(proto))
			name = btf__name_by_offset(btf, btf_params(proto)[idx].name_off);
		sb_putf(s, " param ");
	} else {
		sb_putf(s, " ");
	}
	if (name && *name)
		sb_putf(s, "%s", name);
	else
		sb_putf(s, "#%d", idx);
}

/*
 * Render type T as an entry, filling KEY and TEXT.  Returns its category,
 * or -1 when T is not an entry of its own (it is written where it is used).
 */
static int render_entry(const struct btf *btf, __u32 id, const struct btf_type *t,
			bool referenced, struct sbuf *key, struct sbuf *text)
{
	const char *name = name_of(btf, t);

	/*
	 * Without kind_flag, a bitfield's type is an INT narrowed to its bits;
	 * such an INT is described at the member, not as a type of its own.
	 */
	if (btf_is_int(t) && (btf_int_offset(t) || btf_int_bits(t) != t->size * 8))
		return -1;
	if (is_anonymous(btf, t)) {
		if (referenced)
			return -1;
		sb_putf(text, "anon ");
		render_ref(btf, text, id, 0);
		sb_putf(key, "%s", text->p ? text->p : "");
		return BTF_CANON_ANON;
	}
	switch (btf_kind(t)) {
	case BTF_KIND_INT:
		sb_putf(key, "int %s", name);
		sb_putf(text, "int %s ", name);
		render_int_inline(text, t);
		return BTF_CANON_INT;
	case BTF_KIND_FLOAT:
		sb_putf(key, "float %s", name);
		sb_putf(text, "float %s size=%u", name, t->size);
		return BTF_CANON_FLOAT;
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		sb_putf(key, "%s %s", btf_is_union(t) ? "union" : "struct", name);
		render_struct(btf, text, t);
		return btf_is_union(t) ? BTF_CANON_UNION : BTF_CANON_STRUCT;
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		sb_putf(key, "enum %s", name);
		render_enum(btf, text, t);
		return BTF_CANON_ENUM;
	case BTF_KIND_FWD:
		sb_putf(key, "fwd %s %s", btf_kflag(t) ? "union" : "struct", name);
		sb_putf(text, "%s", key->p ? key->p : "");
		return BTF_CANON_FWD;
	case BTF_KIND_TYPEDEF:
		sb_putf(key, "typedef %s", name);
		sb_putf(text, "typedef %s = ", name);
		render_ref(btf, text, t->type, 0);
		return BTF_CANON_TYPEDEF;
	case BTF_KIND_FUNC:
		sb_putf(key, "func %s", name);
		render_func(btf, text, t);
		return BTF_CANON_FUNC;
	case BTF_KIND_VAR:
		sb_putf(key, "var %s", name);
		sb_putf(text, "var %s %s ", name,
			btf_var(t)->linkage == BTF_VAR_STATIC ? "static" :
			btf_var(t)->linkage == BTF_VAR_GLOBAL_ALLOCATED ? "global" :
			"extern");
		render_ref(btf, text, t->type, 0);
		return BTF_CANON_VAR;
	case BTF_KIND_DATASEC:
		sb_putf(key, "datasec %s", name);
		render_datasec(btf, text, t);
		return BTF_CANON_DATASEC;
	case BTF_KIND_DECL_TAG:
		render_decl_tag(btf, text, t);
		sb_putf(key, "%s", text->p ? text->p : "");
		return BTF_CANON_DECL_TAG;
	default:
		sb_putf(key, "kind%u %s", btf_kind(t), name);
		sb_putf(text, "kind%u %s", btf_kind(t), name);
		return BTF_CANON_ANON;
	}
}

/* Mark the ids that type T refers to (only those at or above START). */
static void mark_refs(const struct btf_type *t, __u32 start, __u32 cnt, unsigned char *ref)
{
	int i, n = btf_vlen(t);

#define MARK(id) do { __u32 __id = (id); if (__id >= start && __id < cnt) ref[__id - start] = 1; } while (0)
	switch (btf_kind(t)) {
	case BTF_KIND_PTR: case BTF_KIND_TYPEDEF: case BTF_KIND_CONST:
	case BTF_KIND_VOLATILE: case BTF_KIND_RESTRICT: case BTF_KIND_TYPE_TAG:
	case BTF_KIND_FUNC: case BTF_KIND_VAR: case BTF_KIND_DECL_TAG:
		MARK(t->type);
		break;
	case BTF_KIND_ARRAY:
		MARK(btf_array(t)->type);
		MARK(btf_array(t)->index_type);
		break;
	case BTF_KIND_STRUCT: case BTF_KIND_UNION:
		for (i = 0; i < n; i++)
			MARK(btf_members(t)[i].type);
		break;
	case BTF_KIND_FUNC_PROTO:
		MARK(t->type);
		for (i = 0; i < n; i++)
			MARK(btf_params(t)[i].type);
		break;
	case BTF_KIND_DATASEC:
		for (i = 0; i < n; i++)
			MARK(btf_var_secinfos(t)[i].type);
		break;
	default:
		break;
	}
#undef MARK
}

static int canon_add(struct btf_canon *c, struct sbuf *key, struct sbuf *text, int cat)
{
	struct btf_canon_ent *e;
	char *mem;

	if (array__grow(&c->ents, &c->cap, c->cnt + 1, sizeof(*c->ents), 1024))
		return -ENOMEM;
	/* One allocation holds both strings; ent->key owns it. */
	mem = malloc(key->len + text->len + 2);
	if (!mem)
		return -ENOMEM;
	memcpy(mem, key->p ? key->p : "", key->len + 1);
	memcpy(mem + key->len + 1, text->p ? text->p : "", text->len + 1);
	e = &c->ents[c->cnt++];
	e->key = mem;
	e->text = mem + key->len + 1;
	e->cat = cat;
	return 0;
}

static int ent_cmp(const void *pa, const void *pb)
{
	const struct btf_canon_ent *a = pa, *b = pb;
	int c = strcmp(a->key, b->key);

	return c ? c : strcmp(a->text, b->text);
}

/*
 * Render entry ID inline; if that would pass MAX_TEXT, again in compact
 * mode.  Returns its category, or -1 when it is no entry or not in MASK.
 */
static int render_twice(const struct btf *btf, __u32 id, bool referenced,
			unsigned int mask, struct canon_ctx *cx,
			struct sbuf *key, struct sbuf *text)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	int cat;

	sb_reset(key);
	sb_reset(text);
	cat = render_entry(btf, id, t, referenced, key, text);
	if (cat < 0 || !(mask & (1u << cat)))
		return -1;
	if (!key->big && !text->big)
		return cat;
	if (!cx->label) {
		cx->label = calloc(cx->cnt, sizeof(*cx->label));
		cx->label_gen = calloc(cx->cnt, sizeof(*cx->label_gen));
		if (!cx->label || !cx->label_gen) {
			key->big = text->big = false;	/* oom stays: -ENOMEM */
			return cat;
		}
	}
	sb_reset(key);
	sb_reset(text);
	cx->compact = true;
	cx->gen++;
	cx->nlabels = 0;
	cat = render_entry(btf, id, t, referenced, key, text);
	cx->compact = false;
	return cat;
}

struct btf_canon *btf_canon__new(const struct btf *btf, unsigned int mask)
{
	const struct btf *base = btf__base_btf(btf);
	__u32 start = base ? btf__type_cnt(base) : 1, cnt = btf__type_cnt(btf), id;
	struct canon_ctx cx = {};
	struct sbuf key = { .cx = &cx }, text = { .cx = &cx };
	struct btf_canon *c;
	unsigned char *ref = NULL;
	int err = 0, cat;

	c = calloc(1, sizeof(*c));
	ref = calloc(cnt - start + 1, 1);
	cx.len = calloc(cnt, sizeof(*cx.len));
	cx.cnt = cnt;
	if (!c || !ref || !cx.len) {
		err = -ENOMEM;
		goto out;
	}
	for (id = start; id < cnt; id++)
		mark_refs(btf__type_by_id(btf, id), start, cnt, ref);
	for (id = start; id < cnt; id++) {
		cat = render_twice(btf, id, ref[id - start], mask, &cx, &key, &text);
		if (cat < 0)
			continue;
		if (key.oom || text.oom) {
			err = key.big || text.big ? -E2BIG : -ENOMEM;
			goto out;
		}
		err = canon_add(c, &key, &text, cat);
		if (err)
			goto out;
	}
	if (c->cnt > 1)		/* ents is NULL when empty */
		qsort(c->ents, c->cnt, sizeof(*c->ents), ent_cmp);
out:
	free(cx.label_gen);
	free(cx.label);
	free(cx.len);
	free(ref);
	free(key.p);
	free(text.p);
	if (err) {
		btf_canon__free(c);
		errno = -err;
		return NULL;
	}
	return c;
}

void btf_canon__free(struct btf_canon *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->cnt; i++)
		free((char *)c->ents[i].key);
	free(c->ents);
	free(c);
}

size_t btf_canon__cnt(const struct btf_canon *c)
{
	return c->cnt;
}

const struct btf_canon_ent *btf_canon__ent(const struct btf_canon *c, size_t i)
{
	return i < c->cnt ? &c->ents[i] : NULL;
}

/* End of the run of entries from I that share I's key. */
static size_t key_run_end(const struct btf_canon *c, size_t i)
{
	size_t j = i + 1;

	while (j < c->cnt && !strcmp(c->ents[j].key, c->ents[i].key))
		j++;
	return j;
}

/* How alike two texts look: the length of their common prefix and suffix. */
static size_t similarity(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), p = 0, q = 0;

	while (p < la && p < lb && a[p] == b[p])
		p++;
	while (q < la - p && q < lb - p && a[la - 1 - q] == b[lb - 1 - q])
		q++;
	return p + q;
}

/*
 * Several entries of one key left on both sides (same-named structs of
 * different CUs, one of them changed): reorder B's so that each of A's, in
 * turn, faces the most similar of B's not yet taken.  Greedy, deterministic.
 */
static void pair_similar(const struct btf_canon_ent **a, size_t na,
			 const struct btf_canon_ent **b, size_t nb)
{
	const struct btf_canon_ent *tmp;
	size_t i, j, best, score, best_score;

	if (na < 2 && nb < 2)
		return;
	for (i = 0; i < na && i < nb; i++) {
		best = i;
		best_score = 0;
		for (j = i; j < nb; j++) {
			score = similarity(a[i]->text, b[j]->text);
			if (j == i || score > best_score) {
				best = j;
				best_score = score;
			}
		}
		tmp = b[i];
		b[i] = b[best];
		b[best] = tmp;
	}
}

/*
 * Within one key: cancel equal texts (both runs are sorted by text), then
 * pair what is left in order.  LEFT_A and LEFT_B are scratch of run size.
 */
static long diff_run(const struct btf_canon_ent *a, size_t na,
		     const struct btf_canon_ent *b, size_t nb,
		     const struct btf_canon_ent **left_a, const struct btf_canon_ent **left_b,
		     btf_diff_fn fn, void *ctx)
{
	size_t i = 0, j = 0, la = 0, lb = 0, k;
	long n = 0;
	int c, ret;

	while (i < na || j < nb) {
		c = i >= na ? 1 : j >= nb ? -1 : strcmp(a[i].text, b[j].text);
		if (!c) {
			i++;
			j++;
		} else if (c < 0) {
			left_a[la++] = &a[i++];
		} else {
			left_b[lb++] = &b[j++];
		}
	}
	pair_similar(left_a, la, left_b, lb);
	for (k = 0; k < la || k < lb; k++, n++) {
		if (k < la && k < lb)
			ret = fn(BTF_DIFF_CHANGED, left_a[k], left_b[k], ctx);
		else if (k < la)
			ret = fn(BTF_DIFF_ONLY_A, left_a[k], NULL, ctx);
		else
			ret = fn(BTF_DIFF_ONLY_B, NULL, left_b[k], ctx);
		if (ret)
			return ret < 0 ? ret : -ECANCELED;
	}
	return n;
}

long btf_canon__diff(const struct btf_canon *a, const struct btf_canon *b,
		     btf_diff_fn fn, void *ctx)
{
	const struct btf_canon_ent **left;
	size_t i = 0, j = 0, ie, je;
	long n = 0, r;
	int c;

	left = calloc(a->cnt + b->cnt + 1, sizeof(*left));
	if (!left)
		return -ENOMEM;
	while (i < a->cnt || j < b->cnt) {
		c = i >= a->cnt ? 1 : j >= b->cnt ? -1 : strcmp(a->ents[i].key, b->ents[j].key);
		ie = c <= 0 ? key_run_end(a, i) : i;
		je = c >= 0 ? key_run_end(b, j) : j;
		r = diff_run(a->ents + i, ie - i, b->ents + j, je - j,
			     left, left + a->cnt, fn, ctx);
		if (r < 0) {
			n = r;
			break;
		}
		n += r;
		i = ie;
		j = je;
	}
	free(left);
	return n;
}
