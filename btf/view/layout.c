// SPDX-License-Identifier: GPL-2.0
/*
 * pahole's layout view of BTF: a struct or union with each member's offset
 * and size, its holes, padding and cacheline boundaries, and the alignment
 * and packing pahole infers from the offsets (BTF records neither).  The
 * text is pahole's, byte for byte, for the release the caller names
 * (tests/btf/show.sh compares every struct and union of a kernel's BTF).
 *
 * pahole's model, reproduced here because its output depends on it:
 *
 * - Members are fixed up once per struct or union ("the fixup"): a
 *   bitfield's byte offset is that of the unit of its type that holds it,
 *   and a member whose offset leaves a gap larger than its type needs
 *   gets the power of two that gap suggests as a forced alignment (the
 *   cacheline when that is compatible), as does the struct from its tail.
 *   1.31 changed two rules: zero-sized members are inferred too, and a
 *   bitfield ends at its last bit rather than at its unit's end.
 * - Holes are found per struct, once.
 * - Packing is inferred per struct, once, when it is first printed or
 *   first met as a member's type, and the inference marks *other* types
 *   too (a struct found at an offset its alignment forbids, a struct in a
 *   union whose size is not a multiple of its alignment).  pahole's
 *   output therefore depends on the order it prints in: we keep the same
 *   memo, per type, and print in the same order, so the marks fall as
 *   they fall in pahole.
 * - Names are built in buffers of pahole's sizes: a name longer than
 *   pahole's buffer is cut where pahole cuts it.
 *
 * Everything is computed on demand, per type reached: one struct of a
 * kernel's 150,000 types touches only the types it prints.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>

#include "btf/view/layout_int.h"
#include "btf/view/view.h"

#define TABS "\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t"
#define MAX_INDENT ((int)sizeof(TABS) - 1)

/* pahole's per-call printing state (a subset of its struct conf_fprintf). */
struct lay_pconf {
	const char *prefix, *suffix;
	uint32_t *cachelinep;
	uint32_t base_offset;
	int indent, type_spacing, name_spacing;
	bool emit_stats, rel_offset, suppress_offset_comment, expand_types, hex;
	bool suppress_comments, suppress_aligned, suppress_packed;	/* -q, --suppress_* */
	bool union_member, first_member, last_member;
};

/* ---- the types, as pahole's model sees them ---- */

static const struct btf_type *lay_t(const struct btf_layout *l, uint32_t id)
{
	return id && id < l->nr_types ? btf__type_by_id(l->btf, id) : NULL;
}

/* pahole's view of a BTF type: NULL for void and for what it does not load. */
static const struct btf_type *lay_tag(const struct btf_layout *l, uint32_t id)
{
	const struct btf_type *t = lay_t(l, id);

	if (!t)
		return NULL;
	switch (btf_kind(t)) {
	case BTF_KIND_DATASEC:
	case BTF_KIND_DECL_TAG:
	case BTF_KIND_UNKN:
		return NULL;
	default:
		return t;
	}
}

const char *btf_view__str(const struct btf *btf, uint32_t off)
{
	const char *s;

	if (!off)
		return NULL;
	s = btf__name_by_offset(btf, off);
	return s ? s : "";
}

static const char *lay_name(const struct btf_layout *l, const struct btf_type *t)
{
	const char *s = btf_view__str(l->btf, t->name_off);

	return s && *s ? s : NULL;
}

/* A struct in pahole's sense: STRUCT, or FWD of a struct. */
static bool is_struct(const struct btf_type *t)
{
	return t && (btf_is_struct(t) || (btf_is_fwd(t) && !btf_kflag(t)));
}

static bool is_union(const struct btf_type *t)
{
	return t && (btf_is_union(t) || (btf_is_fwd(t) && btf_kflag(t)));
}

static bool is_aggr(const struct btf_type *t)
{
	return is_struct(t) || is_union(t);
}

static bool is_modifier(const struct btf_type *t)
{
	return btf_is_const(t) || btf_is_volatile(t) || btf_is_restrict(t);
}

static uint32_t nr_members(const struct btf_type *t)
{
	return btf_is_composite(t) ? btf_vlen(t) : 0;
}

/* The type under typedefs and modifiers (not under type tags), 0 for void. */
static uint32_t lay_strip(const struct btf_layout *l, uint32_t id)
{
	const struct btf_type *t = lay_tag(l, id);

	while (t && (btf_is_typedef(t) || is_modifier(t))) {
		id = t->type;
		t = lay_tag(l, id);
	}
	return t ? id : 0;
}

/*
 * The element array ARRAY ID's dimensions continue into, under 1.32's
 * rules: an ARRAY of an ARRAY met before it (a lower id) is one array of
 * both dimensions, outer first, as pahole 1.32 loads it; met after it, the
 * element stays an array of its own (printed inside out, as 1.30 prints
 * every nested array).  0: none.
 */
static uint32_t merged_elem(const struct btf_layout *l, uint32_t id)
{
	const struct btf_type *t = lay_tag(l, id), *et;
	uint32_t elem;

	if (l->conf.pahole < 132 || !t || !btf_is_array(t))
		return 0;
	elem = btf_array(t)->type;
	et = lay_tag(l, elem);
	return et && btf_is_array(et) && elem < id ? elem : 0;
}

static struct lay_type *lay_type(struct btf_layout *l, uint32_t id)
{
	struct lay_type *lt;

	if (!l->types[id]) {
		lt = calloc(1, sizeof(*lt));
		if (!lt) {
			l->err = -ENOMEM;
			return NULL;
		}
		l->types[id] = lt;
	}
	return l->types[id];
}

/* pahole's tag__size(): bytes of type ID (0 for void). */
static size_t lay_size(const struct btf_layout *l, uint32_t id)
{
	const struct btf_type *t = lay_tag(l, id);
	int depth;

	for (depth = 0; t && depth < 64; depth++) {
		switch (btf_kind(t)) {
		case BTF_KIND_PTR:
			return l->ptr_size;
		case BTF_KIND_INT:
			return btf_int_bits(t) / 8;
		case BTF_KIND_FLOAT:
			return t->size;
		case BTF_KIND_ENUM:
		case BTF_KIND_ENUM64:
			return t->size ? t->size : 4;
		case BTF_KIND_FUNC_PROTO:
			return l->ptr_size;
		case BTF_KIND_STRUCT:
		case BTF_KIND_UNION:
			/* the empty base optimization's one byte counts as none */
			return t->size == 1 && !btf_vlen(t) ? 0 : t->size;
		case BTF_KIND_FWD:
			return 0;
		case BTF_KIND_ARRAY:
			return lay_size(l, btf_array(t)->type) * btf_array(t)->nelems;
		default:
			t = lay_tag(l, t->type);
		}
	}
	return 0;
}

static uint16_t lay_natural_alignment(struct btf_layout *l, uint32_t id);

/* pahole's tag__natural_alignment(): at least 1. */
static size_t natural_alignment(struct btf_layout *l, uint32_t id)
{
	const struct btf_type *t = lay_tag(l, id);
	size_t a = 1;

	if (!t)
		return 1;
	if (btf_is_ptr(t))
		a = l->ptr_size;
	else if (btf_is_int(t))
		a = btf_int_bits(t) / 8;
	else if (btf_is_float(t))
		a = t->size;
	else if (btf_is_any_enum(t))
		a = t->size ? t->size : 4;
	else if (is_aggr(t))
		a = lay_natural_alignment(l, id);
	else if (btf_is_array(t))
		a = natural_alignment(l, lay_strip(l, btf_array(t)->type));
	return a ? a : 1;
}

/* A struct's or union's: the largest of its members' (0 when it has none). */
static uint16_t lay_natural_alignment(struct btf_layout *l, uint32_t id)
{
	const struct btf_type *t = lay_tag(l, id);
	const struct btf_member *m = btf_members(t);
	struct lay_type *lt = lay_type(l, id);
	uint32_t i, n = nr_members(t);
	uint16_t a = 0;

	if (!lt)
		return 1;
	if (lt->natural_alignment)
		return lt->natural_alignment;
	for (i = 0; i < n; i++) {
		uint32_t mt = lay_strip(l, m[i].type);
		size_t ma;

		if (!mt)
			continue;
		ma = natural_alignment(l, mt);
		if (a < ma)
			a = ma;
	}
	lt->natural_alignment = a;
	return a;
}

/*
 * The alignment pahole infers for a member at OFFSET whose predecessor
 * ended at SMALLEST: the power of two above the gap, when the offset is
 * even and that is more than the member's own alignment; the cacheline
 * when the offset sits on one and that only raises it.
 */
static uint32_t infer_alignment(const struct btf_layout *l, uint32_t offset, uint32_t natural,
				uint32_t smallest)
{
	uint32_t delta = offset - smallest, a = 0, cl = l->conf.cacheline_size;

	if (delta && offset % 2 == 0) {
		unsigned int shift = 32 - __builtin_clz(delta);

		/* pahole shifts a 32-bit int: a shift by 32 is one by 0 on x86 */
		a = shift >= 32 ? 1 : 1u << shift;
	}
	if (a <= natural || a == 1)
		return 0;
	if (a < cl && cl % a == 0 && offset % cl == 0)
		return cl;
	return a;
}

/* The fixup of struct or union ID's members (see the head of this file). */
static struct lay_type *lay_fixed(struct btf_layout *l, uint32_t id)
{
	const struct btf_type *t = lay_tag(l, id);
	const struct btf_member *m;
	struct lay_type *lt = lay_type(l, id);
	uint32_t i, n, smallest = 0;
	bool rules_131 = l->conf.pahole >= 131;

	if (!lt || (lt->flags & LT_FIXED))
		return lt;
	lt->flags |= LT_FIXED;
	n = nr_members(t);
	lt->id = id;
	lt->size = t->size;
	lt->nr_mem = n;
	if (n) {
		lt->mem = calloc(n, sizeof(*lt->mem));
		if (!lt->mem) {
			l->err = -ENOMEM;
			lt->flags &= ~LT_FIXED;
			return NULL;
		}
	}
	m = btf_members(t);
	for (i = 0; i < n; i++) {
		struct lay_mem *p = &lt->mem[i];
		uint32_t mt = lay_strip(l, m[i].type);
		const struct btf_type *mtt = lay_tag(l, mt);

		p->name_off = m[i].name_off;
		p->type = m[i].type;
		p->bit_offset = btf_member_bit_offset(t, i);
		p->bitfield_size = btf_member_bitfield_size(t, i);
		p->byte_offset = p->bit_offset / 8;
		if (!mtt)
			continue;
		p->bitfield_offset = 0;
		p->byte_size = lay_size(l, mt);
		p->bit_size = p->byte_size * 8;
		if (!p->byte_size) {
			if (rules_131)
				p->alignment = infer_alignment(l, p->byte_offset,
							       natural_alignment(l, mt), smallest);
			continue;
		}
		if (btf_is_int(mtt) || btf_is_float(mtt) || btf_is_any_enum(mtt)) {
			if (p->bitfield_size) {
				/* a bitfield sits in a unit of its type, whatever the packing */
				p->byte_offset = p->bit_offset / p->bit_size * p->bit_size / 8;
				p->bitfield_offset = p->bit_offset - p->byte_offset * 8;
				if (p->bitfield_offset < 0) {
					p->bitfield_offset += p->bit_size;
					p->byte_offset -= p->byte_size;
					p->bit_offset = p->byte_offset * 8 + p->bitfield_offset;
				}
			} else {
				p->byte_offset = p->bit_offset / 8;
			}
		}
		p->alignment = infer_alignment(l, p->byte_offset, natural_alignment(l, mt), smallest);
		smallest = p->byte_offset;
		if (rules_131 && p->bitfield_size)
			smallest += (p->bitfield_offset + p->bitfield_size + 7) / 8;
		else
			smallest += p->byte_size;
	}
	lt->alignment = infer_alignment(l, t->size, natural_alignment(l, id), smallest);
	return lt;
}

/* pahole's hole search, on the members as they are now. */
void lay_type__find_holes(struct lay_type *lt)
{
	uint32_t cur_end, cur_size = 0, last_seen = 0, i;
	struct lay_mem *last = NULL;
	bool in_bitfield = false;

	lt->flags |= LT_HOLES;
	lt->nr_holes = lt->nr_bit_holes = 0;
	cur_end = lt->size * 8;
	for (i = 0; i < lt->nr_mem; i++) {
		struct lay_mem *p = &lt->mem[i];
		uint32_t start = p->bit_offset, end;
		int bit_holes = 0, byte_holes = 0;

		p->bit_hole = 0;
		p->hole = 0;
		end = start + (p->bitfield_size ? p->bitfield_size : p->byte_size * 8);
		if (in_bitfield) {
			/* the bits the bitfield unit before had left over */
			int bf_end = start < cur_end ? start : cur_end;

			bit_holes = bf_end - last_seen;
			last_seen = bf_end;
		}
		if (p->bitfield_size) {
			uint32_t aligned = p->byte_offset * 8;

			if (last_seen < aligned && aligned <= start) {
				byte_holes = p->byte_offset - last_seen / 8;
				last_seen = aligned;
			}
			bit_holes += start - last_seen;
		} else {
			byte_holes = start / 8 - last_seen / 8;
		}
		last_seen = end;
		if (p->bitfield_size) {
			in_bitfield = true;
			if (end > cur_end || p->bit_size > cur_size) {
				cur_size = p->bit_size;
				cur_end = p->byte_offset * 8 + cur_size;
				/* bits borrowed from the unit before end in the next one */
				if (end > cur_end)
					cur_end += cur_size;
			}
		} else {
			in_bitfield = false;
			cur_size = 0;
			cur_end = end;
		}
		if (last) {
			last->hole = byte_holes;
			last->bit_hole = bit_holes;
		} else {
			lt->pre_hole = byte_holes;
			lt->pre_bit_hole = bit_holes;
		}
		if (bit_holes)
			lt->nr_bit_holes++;
		if (byte_holes > 0)
			lt->nr_holes++;
		last = p;
	}
	if (in_bitfield) {
		uint32_t bf_end = lt->size * 8 < cur_end ? lt->size * 8 : cur_end;

		lt->bit_padding = bf_end - last_seen;
		last_seen = bf_end;
	} else {
		lt->bit_padding = 0;
	}
	lt->padding = lt->size - last_seen / 8;
}

/* Struct ID's holes, searched once (unions have none: only the fixup). */
struct lay_type *lay_holes(struct btf_layout *l, uint32_t id)
{
	struct lay_type *lt = lay_fixed(l, id);

	if (lt && is_struct(lay_tag(l, id)) && !(lt->flags & LT_HOLES))
		lay_type__find_holes(lt);
	return lt;
}

static bool lay_has_flex(struct btf_layout *l, uint32_t id)
{
	const struct btf_type *t = lay_tag(l, id), *mt;
	struct lay_type *lt = lay_type(l, id);
	uint32_t n = nr_members(t);

	if (!lt)
		return false;
	if (!(lt->flags & LT_FLEX_DONE)) {
		lt->flags |= LT_FLEX_DONE;
		mt = n ? lay_tag(l, btf_members(t)[n - 1].type) : NULL;
		/* one dimension, of no elements */
		if (mt && btf_is_array(mt) && !btf_array(mt)->nelems &&
		    !merged_elem(l, btf_members(t)[n - 1].type))
			lt->flags |= LT_FLEX;
	}
	return lt->flags & LT_FLEX;
}

static bool lay_has_emb_flex(struct btf_layout *l, uint32_t id)
{
	const struct btf_type *t = lay_tag(l, id);
	struct lay_type *lt = lay_type(l, id);
	uint32_t i, n = nr_members(t);
	bool found = false;

	if (!lt || !is_struct(t))
		return false;
	if (lt->flags & LT_EMB_FLEX_DONE)
		return lt->flags & LT_EMB_FLEX;
	for (i = 0; i < n; i++) {
		uint32_t mt = lay_strip(l, btf_members(t)[i].type);

		if (!mt || !is_struct(lay_tag(l, mt)))
			continue;
		found = lay_has_flex(l, mt);
		if (found)
			break;
		if (mt == id)
			continue;
		found = lay_has_emb_flex(l, mt);
		if (found)
			break;
	}
	lt->flags |= LT_EMB_FLEX_DONE | (found ? LT_EMB_FLEX : 0);
	return found;
}

static void mark_packed(struct btf_layout *l, uint32_t id)
{
	struct lay_type *lt = lay_type(l, id);

	if (lt)
		lt->flags |= LT_PACKED | LT_PACK_INFERRED;
}

/* Structs among LT's members at offsets their alignment forbids are packed. */
static void mark_unnatural(struct btf_layout *l, const struct lay_type *lt)
{
	uint32_t i;

	for (i = 0; i < lt->nr_mem; i++) {
		uint32_t mt = lay_strip(l, lt->mem[i].type);

		if (mt && is_struct(lay_tag(l, mt)) &&
		    lt->mem[i].byte_offset % natural_alignment(l, mt))
			mark_packed(l, mt);
	}
}

/* pahole's class__infer_packed_attributes(): is struct LT packed? */
static bool lay_type__packed(struct btf_layout *l, struct lay_type *lt)
{
	uint32_t i, max_natural = 1;

	if (lt->flags & LT_PACK_INFERRED)
		return lt->flags & LT_PACKED;
	if (lt->padding || lt->nr_holes) {
		mark_unnatural(l, lt);
		lt->flags &= ~LT_PACKED;
		goto out;
	}
	for (i = 0; i < lt->nr_mem; i++) {
		size_t a = natural_alignment(l, lay_strip(l, lt->mem[i].type));

		if (a == 1)
			continue;
		if (max_natural < a)
			max_natural = a;
		if (lt->mem[i].byte_offset % a) {
			lt->flags |= LT_PACKED;
			goto out;
		}
	}
	if ((max_natural != 1 && lt->alignment == 1) || lt->size % max_natural)
		lt->flags |= LT_PACKED;
out:
	lt->flags |= LT_PACK_INFERRED;
	return lt->flags & LT_PACKED;
}

static bool lay_packed(struct btf_layout *l, uint32_t id)
{
	struct lay_type *lt;

	if (!is_struct(lay_tag(l, id)))
		return false;
	lt = lay_holes(l, id);
	return lt ? lay_type__packed(l, lt) : false;
}

/* A union: a struct in it whose alignment its size does not keep is packed. */
static void lay_union_packed(struct btf_layout *l, uint32_t id)
{
	const struct btf_type *t = lay_tag(l, id);
	struct lay_type *lt = lay_type(l, id);
	uint32_t i, n = nr_members(t);

	if (!lt || (lt->flags & LT_PACK_INFERRED))
		return;
	for (i = 0; i < n; i++) {
		uint32_t mt = lay_strip(l, btf_members(t)[i].type);

		if (is_struct(lay_tag(l, mt)) && t->size % natural_alignment(l, mt))
			mark_packed(l, mt);
	}
	lt->flags |= LT_PACK_INFERRED;
}

/* ---- names (pahole's tag__name(), into buffers of its sizes) ---- */

static size_t p_ftype(struct btf_layout *l, uint32_t id, const char *name, bool inlined,
		      bool is_pointer, int type_spacing, bool is_prototype, FILE *fp);

static const char *name_of(struct btf_layout *l, uint32_t id, char *bf, size_t len);

/* The type tags over ID skipped (pahole's skip_llvm_annotations()). */
static uint32_t skip_type_tags(const struct btf_layout *l, uint32_t id)
{
	const struct btf_type *t;

	while (id && (t = lay_tag(l, id)) && btf_is_type_tag(t) && t->type != id)
		id = t->type;
	return id;
}

static const char *ptr_name(struct btf_layout *l, const struct btf_type *t, char *bf, size_t len)
{
	const struct btf_type *under;
	const char *const_ptr = "";
	uint32_t to = t->type;
	char tmp[1024];

	if (!to) {
		snprintf(bf, len, "void *");
		return bf;
	}
	under = lay_tag(l, to);
	if (under && btf_is_const(under)) {
		const struct btf_type *next = lay_tag(l, under->type);

		if (next && btf_is_ptr(next)) {
			const_ptr = "const ";
			to = under->type;
		}
	}
	snprintf(bf, len, "%s %s*", name_of(l, to, tmp, sizeof(tmp)), const_ptr);
	return bf;
}

static const char *name_of(struct btf_layout *l, uint32_t id, char *bf, size_t len)
{
	const struct btf_type *t = lay_tag(l, id);
	const char *name = t ? lay_name(l, t) : NULL;
	char tmp[128];
	FILE *fp;

	if (!t) {
		snprintf(bf, len, "void");
		return bf;
	}
	switch (btf_kind(t)) {
	case BTF_KIND_INT:
		/*
		 * pahole would prefix a boolean's name with "bool ", but its
		 * one-bit flag for it is set from BTF_INT_BOOL (4): always 0.
		 */
		snprintf(bf, len, "%s", name ? name : "nameless base type!");
		break;
	case BTF_KIND_FLOAT:
		/* pahole names every BTF float's kind "single" */
		snprintf(bf, len, "single %s", name ? name : "");
		break;
	case BTF_KIND_PTR:
		return ptr_name(l, t, bf, len);
	case BTF_KIND_CONST:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_RESTRICT:
		snprintf(bf, len, "%s%s%s ",
			 btf_is_const(t) ? "const " : btf_is_volatile(t) ? "volatile " : "",
			 name_of(l, t->type, tmp, sizeof(tmp)), btf_is_restrict(t) ? " restrict" : "");
		break;
	case BTF_KIND_ARRAY:
		return name_of(l, btf_array(t)->type, bf, len);
	case BTF_KIND_TYPE_TAG:
		return name_of(l, t->type, bf, len);
	case BTF_KIND_FUNC_PROTO:
		/* a function type's name is its prototype, cut where pahole's buffer ends */
		fp = fmemopen(bf, len, "w");
		if (!fp) {
			snprintf(bf, len, "<ERROR(name_of): fmemopen failed!>");
			break;
		}
		p_ftype(l, id, NULL, false, false, 0, true, fp);
		fclose(fp);
		break;
	case BTF_KIND_FUNC:
	case BTF_KIND_VAR:
		snprintf(bf, len, "%s", name ? name : "");
		break;
	default:
		snprintf(bf, len, "%s%s",
			 btf_is_any_enum(t) ? "enum " : is_union(t) ? "union " :
			 is_struct(t) ? "struct " : "", name ? name : "");
		break;
	}
	return bf;
}

/* ---- printing (pahole's fprintf family) ---- */

static size_t p_type(struct btf_layout *l, uint32_t id, const char *name,
		     const struct lay_pconf *c, FILE *fp);
static size_t p_class(struct btf_layout *l, struct lay_type *lt, const struct lay_pconf *c,
		      FILE *fp);
static size_t p_union(struct btf_layout *l, uint32_t id, const struct lay_pconf *c, FILE *fp);

static int cap_indent(int indent)
{
	return indent > MAX_INDENT ? MAX_INDENT : indent;
}

static size_t p_parms(struct btf_layout *l, const struct btf_type *t, FILE *fp)
{
	const struct btf_param *p = btf_params(t);
	uint32_t i, n = btf_vlen(t);
	bool first = true, unspec = false;
	size_t printed = fprintf(fp, "(");
	char sbf[128];

	for (i = 0; i < n; i++) {
		const char *name, *stype;
		const struct btf_type *pt;

		if (!p[i].type) {
			unspec = true;	/* "...": not a parameter of pahole's */
			continue;
		}
		if (!first)
			printed += fprintf(fp, ", ");
		first = false;
		name = btf_view__str(l->btf, p[i].name_off);
		pt = lay_tag(l, p[i].type);
		if (!pt) {
			snprintf(sbf, sizeof(sbf), "<ERROR: type %d not found>", p[i].type);
			stype = sbf;
		} else if (btf_is_ptr(pt) && pt->type &&
			   lay_tag(l, pt->type) && btf_is_func_proto(lay_tag(l, pt->type))) {
			printed += p_ftype(l, pt->type, name, false, true, 0, true, fp);
			continue;
		} else if (btf_is_func_proto(pt)) {
			printed += p_ftype(l, p[i].type, name, true, false, 0, false, fp);
			continue;
		} else {
			stype = name_of(l, p[i].type, sbf, sizeof(sbf));
		}
		printed += fprintf(fp, "%s%s%s", stype, name ? " " : "", name ? name : "");
	}
	if (first)
		printed += fprintf(fp, "void)");
	else if (unspec)
		printed += fprintf(fp, ", ...)");
	else
		printed += fprintf(fp, ")");
	return printed;
}

static size_t p_ftype(struct btf_layout *l, uint32_t id, const char *name, bool inlined,
		      bool is_pointer, int type_spacing, bool is_prototype, FILE *fp)
{
	const struct btf_type *t = lay_tag(l, id);
	char sbf[128];
	size_t printed;

	printed = fprintf(fp, "%s%-*s %s%s%s%s", inlined ? "inline " : "", type_spacing,
			  name_of(l, t->type, sbf, sizeof(sbf)), is_prototype ? "(" : "",
			  is_pointer ? "*" : "", name ? name : "", is_prototype ? ")" : "");
	return printed + p_parms(l, t, fp);
}

static int enum_max_name_len(struct btf_layout *l, const struct btf_type *t)
{
	uint32_t i, n = btf_vlen(t);
	int max = 0, len;

	for (i = 0; i < n; i++) {
		__u32 off = btf_is_enum64(t) ? btf_enum64(t)[i].name_off : btf_enum(t)[i].name_off;

		len = strlen(btf_view__str(l->btf, off) ?: "");
		if (max < len)
			max = len;
	}
	return max;
}

static size_t p_enum(struct btf_layout *l, uint32_t id, const struct lay_pconf *c, FILE *fp)
{
	const struct btf_type *t = lay_tag(l, id);
	const char *name = lay_name(l, t);
	uint32_t i, n = btf_vlen(t);
	int indent = cap_indent(c->indent), width = enum_max_name_len(l, t);
	bool is_signed = btf_kflag(t);
	size_t printed;

	printed = fprintf(fp, "enum%s%s", name ? " " : "", name ? name : "");
	if (!n)		/* pahole takes an enum without values for a declaration */
		return printed;
	printed += fprintf(fp, " {\n");
	for (i = 0; i < n; i++) {
		unsigned long long v;
		__u32 off;

		if (btf_is_enum64(t)) {
			off = btf_enum64(t)[i].name_off;
			v = btf_enum64_value(&btf_enum64(t)[i]);
		} else {
			off = btf_enum(t)[i].name_off;
			v = is_signed ? (unsigned long long)(long long)btf_enum(t)[i].val
				      : (uint32_t)btf_enum(t)[i].val;
		}
		printed += fprintf(fp, "%.*s\t%-*s = ", indent, TABS, width,
				   btf_view__str(l->btf, off) ?: "");
		if (c->hex)
			printed += fprintf(fp, "%#llx", v);
		else
			printed += fprintf(fp, is_signed ? "%lld" : "%llu", v);
		printed += fprintf(fp, ",\n");
	}
	printed += fprintf(fp, "%.*s}", indent, TABS);
	if ((t->size ? t->size : 4) != 4)
		printed += fprintf(fp, " __attribute__((__packed__))");
	if (c->suffix)
		printed += fprintf(fp, " %s", c->suffix);
	return printed;
}

static size_t p_array(struct btf_layout *l, uint32_t id, const char *name,
		      const struct lay_pconf *c, FILE *fp)
{
	uint32_t dims = id, elem = id, sub;
	const struct btf_type *et;
	size_t printed;

	while ((sub = merged_elem(l, elem)))
		elem = sub;
	elem = btf_array(lay_tag(l, elem))->type;
	et = lay_tag(l, elem);
	/* a zero-sized array of consts is printed as one of its type */
	if (!btf_array(lay_tag(l, id))->nelems && et && btf_is_const(et))
		elem = et->type;
	printed = p_type(l, elem, name, c, fp);
	for (; dims; dims = merged_elem(l, dims)) {
		uint32_t n = btf_array(lay_tag(l, dims))->nelems;

		if (n || !c->last_member || c->first_member || c->union_member)
			printed += fprintf(fp, "[%u]", n);
		else
			printed += fprintf(fp, "[]");
	}
	return printed;
}

static size_t p_union_decl(struct btf_layout *l, uint32_t id, const char *name,
			   const struct lay_pconf *c, FILE *fp)
{
	const struct btf_type *t = lay_tag(l, id);
	struct lay_pconf tc = *c;

	if (lay_name(l, t) && !c->expand_types)
		return fprintf(fp, "union %-*s %s", c->type_spacing - 6, lay_name(l, t),
			       name ? name : "");
	tc.type_spacing -= 8;
	tc.suffix = name;
	return p_union(l, id, &tc, fp);
}

static size_t not_found(const struct lay_pconf *c, const char *name, bool inner_ptr, FILE *fp)
{
	return fprintf(fp, "%-*s%s> %s", c->type_spacing, "<ERROR",
		       inner_ptr ? ": pointer to pointer to inner struct/union/enum?" : "", name);
}

/* pahole's type__fprintf(): type ID with NAME, as a member or a typedef's target. */
static size_t p_type(struct btf_layout *l, uint32_t id, const char *name,
		     const struct lay_pconf *c, FILE *fp)
{
	const struct btf_type *t = lay_tag(l, id);
	struct lay_pconf tc = *c;
	char tbf[128], namebfptr[258];
	bool typedef_seen = false, inner_ptr = false;
	size_t printed = 0;

	if (!t)
		return not_found(&tc, name, false, fp);
	if (c->expand_types) {
		while (btf_is_typedef(t)) {
			printed += fprintf(fp, typedef_seen ? " -> %s" : "/* typedef %s",
					   lay_name(l, t));
			typedef_seen = true;
			id = t->type;
			t = lay_tag(l, id);
			if (!t)
				return printed + not_found(&tc, name, false, fp);
		}
		if (typedef_seen)
			printed += fprintf(fp, " */ ");
	}
inner:
	if (is_aggr(t) || btf_is_any_enum(t)) {
		tc.prefix = NULL;
		tc.suffix = name;
		tc.emit_stats = false;
		tc.suppress_offset_comment = c->suppress_offset_comment;
	}
again:
	switch (btf_kind(t)) {
	case BTF_KIND_PTR: {
		uint32_t pid = skip_type_tags(l, t->type);
		const struct btf_type *pt = lay_tag(l, pid);

		if (pid && !pt)
			return printed + not_found(&tc, name, false, fp);
		if (pt && btf_is_func_proto(pt))
			return printed + p_ftype(l, pid, name, false, true, tc.type_spacing, true, fp);
		if (pt && (is_aggr(pt) || btf_is_any_enum(pt)) && !lay_name(l, pt)) {
			/* a pointer to an unnamed type: the type inline, "* name" after it */
			if (inner_ptr)
				return printed + not_found(&tc, name, true, fp);
			snprintf(namebfptr, sizeof(namebfptr), "* %.*s",
				 (int)sizeof(namebfptr) - 3, name);
			inner_ptr = true;
			tc.rel_offset = true;
			name = namebfptr;
			id = pid;
			t = pt;
			tc.type_spacing -= 8;
			goto inner;
		}
		goto plain;
	}
	case BTF_KIND_FUNC_PROTO:
		return printed + p_ftype(l, id, name, false, false, tc.type_spacing, true, fp);
	case BTF_KIND_CONST: {
		const struct btf_type *under = lay_tag(l, t->type);
		size_t n = fprintf(fp, "const ");

		tc.type_spacing -= n;
		printed += n;
		if (!under)
			goto plain;
		id = t->type;
		t = under;
		goto again;
	}
	case BTF_KIND_ARRAY:
		return printed + p_array(l, id, name, &tc, fp);
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
	case BTF_KIND_FWD:
		if (is_union(t))
			return printed + p_union_decl(l, id, name, &tc, fp);
		if (lay_name(l, t) && !c->expand_types)
			return printed + fprintf(fp, "struct %-*s %s", tc.type_spacing - 7,
						 lay_name(l, t), name ? name : "");
		tc.type_spacing -= 8;
		return printed + p_class(l, lay_holes(l, id), &tc, fp);
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		if (lay_name(l, t) && !c->expand_types)
			return printed + fprintf(fp, "enum %-*s %s", tc.type_spacing - 5,
						 lay_name(l, t), name ? name : "");
		return printed + p_enum(l, id, &tc, fp);
	case BTF_KIND_TYPE_TAG:
		if (!lay_tag(l, t->type))
			return printed + not_found(&tc, name, inner_ptr, fp);
		id = t->type;
		t = lay_tag(l, id);
		goto again;
	default:
		break;
	}
plain:
	return printed + fprintf(fp, "%-*s %s", tc.type_spacing, name_of(l, id, tbf, sizeof(tbf)),
				 name);
}

static size_t cacheline_boundary(const struct btf_layout *l, const struct lay_pconf *c,
				 uint32_t offset, FILE *fp)
{
	uint32_t cl = l->conf.cacheline_size, line = offset / cl, pos = offset % cl;
	size_t printed;

	if (line <= *c->cachelinep)
		return 0;
	if (!pos)
		printed = fprintf(fp, "/* --- cacheline %u boundary (%u bytes) --- */\n",
				  line, offset - pos);
	else
		printed = fprintf(fp, "/* --- cacheline %u boundary (%u bytes) was %u byte%s ago --- */\n",
				  line, offset - pos, pos, pos > 1 ? "s" : "");
	printed += fprintf(fp, "%.*s", c->indent, TABS);
	*c->cachelinep = line;
	return printed;
}

/* The offset comment after a member ("OFF[:BIT] SIZE"), SPACES blanks before it. */
static size_t offset_comment(bool hex, int spaces, uint32_t offset, const struct lay_mem *m,
			     FILE *fp)
{
	int size_width = 5;
	size_t printed;

	printed = fprintf(fp, hex ? "%*s/* %#5x" : "%*s/* %5u", spaces, " ", offset);
	if (m->bitfield_size) {
		unsigned int bit = m->bitfield_offset < 0 ? m->byte_size * 8 + m->bitfield_offset
							  : (unsigned int)m->bitfield_offset;

		printed += fprintf(fp, hex ? ":%#2x" : ":%2u", bit);
		size_width -= 3;
	}
	return printed + fprintf(fp, hex ? " %#*x */" : " %*u */", size_width, (int)m->byte_size);
}

/* pahole's class_member__fprintf(): member M of a struct or union. */
static size_t p_member(struct btf_layout *l, const struct lay_mem *m, bool in_union,
		       const struct lay_pconf *c, FILE *fp)
{
	const char *name = btf_view__str(l->btf, m->name_off);
	uint32_t mt = m->type;
	const struct btf_type *t = lay_tag(l, mt);
	struct lay_pconf sc = *c;
	uint32_t offset = m->byte_offset;
	size_t printed = 0, cl_printed;
	int align_printed = 0;
	bool inline_type;

	if (name && !*name)
		name = NULL;
	if (!sc.rel_offset) {
		offset += sc.base_offset;
		if (!in_union)
			sc.base_offset = offset;
	}
	if (m->bitfield_offset < 0)
		offset += m->byte_size;
	cl_printed = c->suppress_comments ? 0 : cacheline_boundary(l, c, offset, fp);
	if (is_aggr(t) || btf_is_any_enum(t)) {
		printed += p_type(l, mt, NULL, &sc, fp);
		if (name) {
			if (!lay_name(l, t) || sc.expand_types)
				printed += fprintf(fp, " ");
			printed += fprintf(fp, "%s", name);
		}
	} else {
		printed += p_type(l, mt, name, &sc, fp);
	}
	if (m->bitfield_size)
		printed += fprintf(fp, ":%u", m->bitfield_size);
	if (!sc.suppress_aligned && m->alignment) {
		align_printed = fprintf(fp, " __attribute__((__aligned__(%u)))", m->alignment);
		printed += align_printed;
	}
	fputc(';', fp);
	printed++;
	inline_type = (is_aggr(t) || btf_is_any_enum(t)) && !lay_name(l, t);
	if (sc.suppress_offset_comment)
		return printed + cl_printed;
	if (inline_type) {
		int slen = align_printed + (name ? (int)strlen(name) : -1);
		const struct lay_type *lt = l->types[mt];

		if (is_struct(t) && lt && (lt->flags & LT_PACKED) && !c->suppress_packed)
			slen += sizeof("__attribute__((__packed__))");
		printed += offset_comment(sc.hex, sc.type_spacing + sc.name_spacing - slen - 3,
					  offset, m, fp);
	} else {
		int spaces = sc.type_spacing + sc.name_spacing - (int)printed;

		printed += offset_comment(sc.hex, spaces > 0 ? spaces : 0, offset, m, fp);
	}
	return printed + cl_printed;
}

static size_t p_union(struct btf_layout *l, uint32_t id, const struct lay_pconf *c, FILE *fp)
{
	const struct btf_type *t = lay_tag(l, id);
	const char *name = lay_name(l, t);
	struct lay_type *lt = lay_fixed(l, id);
	int indent = cap_indent(c->indent);
	struct lay_pconf uc = *c;
	uint32_t cacheline = 0, initial, i, n = nr_members(t);
	size_t printed = 0;

	if (!lt)
		return 0;
	if (c->prefix)
		printed += fprintf(fp, "%s ", c->prefix);
	printed += fprintf(fp, "union%s%s {\n", name ? " " : "", name ? name : "");
	uc.indent = indent + 1;
	lay_union_packed(l, id);
	if (!uc.cachelinep)
		uc.cachelinep = &cacheline;
	initial = *uc.cachelinep;
	for (i = 0; i < n; i++) {
		uint32_t mt = lt->mem[i].type;

		printed += fprintf(fp, "%.*s", uc.indent, TABS);
		if (!lay_tag(l, mt)) {
			printed += fprintf(fp, "<ERROR: type %u not found!>\n", mt);
			continue;
		}
		uc.union_member = true;
		printed += p_member(l, &lt->mem[i], true, &uc, fp);
		fputc('\n', fp);
		printed++;
		*uc.cachelinep = initial;
	}
	return printed + fprintf(fp, "%.*s}%s%s", indent, TABS, c->suffix ? " " : "",
				 c->suffix ? c->suffix : "");
}

/* What the members' own struct types hold: pahole's summary after the stats. */
struct member_holes {
	uint16_t nr_paddings, nr_with_bit_paddings, nr_with_holes, nr_with_bit_holes;
	uint16_t total_nr_holes, total_nr_bit_holes, nr_flex, nr_emb_flex;
	uint32_t sum_paddings, sum_bit_paddings;
};

static bool newline_once(uint8_t *newline, size_t *printed, FILE *fp)
{
	if ((*newline)++)
		return false;
	fputc('\n', fp);
	(*printed)++;
	return true;
}

/* "XXX last struct has ...": the holes of a member's struct type. */
static size_t p_member_type_holes(struct btf_layout *l, uint32_t id, struct member_holes *h,
				  uint8_t *newline, const struct lay_pconf *c, FILE *fp)
{
	struct lay_type *lt = lay_holes(l, id);
	bool first = true, flex, emb;
	size_t printed = 0;

	if (!lt)
		return 0;
	lay_packed(l, id);
	flex = lay_has_flex(l, id);
	emb = lay_has_emb_flex(l, id);
	if (!lt->padding && !lt->bit_padding && !lt->nr_holes && !lt->nr_bit_holes && !flex && !emb)
		return 0;
	newline_once(newline, &printed, fp);
	printed += fprintf(fp, "\n%.*s/* XXX last struct has", c->indent, TABS);
	if (flex) {
		printed += fprintf(fp, " a flexible array");
		h->nr_flex++;
		first = false;
	}
	if (emb) {
		printed += fprintf(fp, "%s embedded flexible array(s)", first ? "" : ",");
		h->nr_emb_flex++;
		first = false;
	}
	if (lt->padding) {
		h->nr_paddings++;
		h->sum_paddings += lt->padding;
		printed += fprintf(fp, "%s %d byte%s of padding", first ? "" : ",", lt->padding,
				   lt->padding != 1 ? "s" : "");
		first = false;
	}
	if (lt->bit_padding) {
		h->nr_with_bit_paddings++;
		h->sum_bit_paddings += lt->bit_padding;
		printed += fprintf(fp, "%s %d bit%s of padding", first ? "" : ",", lt->bit_padding,
				   lt->bit_padding != 1 ? "s" : "");
		first = false;
	}
	if (lt->nr_holes) {
		h->nr_with_holes++;
		h->total_nr_holes += lt->nr_holes;
		printed += fprintf(fp, "%s %d hole%s", first ? "" : ",", lt->nr_holes,
				   lt->nr_holes != 1 ? "s" : "");
		first = false;
	}
	if (lt->nr_bit_holes) {
		h->nr_with_bit_holes++;
		h->total_nr_bit_holes += lt->nr_bit_holes;
		printed += fprintf(fp, "%s %d bit hole%s", first ? "" : ",", lt->nr_bit_holes,
				   lt->nr_bit_holes != 1 ? "s" : "");
	}
	return printed + fprintf(fp, " */");
}

/* The running sums of a struct's printing, for its closing comments. */
struct class_sums {
	uint32_t bytes, bits, holes, bit_holes;
	uint16_t nr_forced, nr_forced_holes;
	uint32_t sum_forced_holes;
	struct member_holes mh;
};


/*
 * The notes pahole writes before member POS when it shares storage with
 * LAST (LAST_SIZE: the storage LAST began): an explicit bitfield filler,
 * "Bitfield combined with previous/next fields".
 */
static size_t p_bitfield_notes(struct btf_layout *l, uint32_t pos_type, const struct lay_mem *pos,
			       const struct lay_mem *last, size_t last_size, uint8_t *newline,
			       const struct lay_pconf *c, FILE *fp)
{
	size_t printed = 0;

	if (last->bit_hole && pos->bitfield_size) {
		unsigned int width = last->bit_hole;

		if (!lay_tag(l, pos_type))
			return printed;
		if (last->byte_offset != pos->byte_offset) {
			printed += fprintf(fp, "\n%.*s/* Force alignment to the next boundary: */\n",
					   c->indent, TABS);
			width = 0;
		}
		printed += fprintf(fp, "%.*s", c->indent, TABS);
		printed += p_type(l, pos_type, "", c, fp);
		printed += fprintf(fp, ":%u;\n", width);
	}
	if (pos->byte_offset < last->byte_offset ||
	    (pos->byte_offset == last->byte_offset && !last->bitfield_size && pos->bitfield_size)) {
		if (c->suppress_comments)
			return printed;
		newline_once(newline, &printed, fp);
		printed += fprintf(fp, "%.*s/* Bitfield combined with previous fields */\n",
				   c->indent, TABS);
	} else {
		long long delta = (long long)pos->byte_offset - last->byte_offset;

		if (delta > 0 && (size_t)delta < last_size) {
			if (c->suppress_comments)
				return printed;
			newline_once(newline, &printed, fp);
			printed += fprintf(fp, "%.*s/* Bitfield combined with next fields */\n",
					   c->indent, TABS);
		}
	}
	return printed;
}

static size_t p_hole_note(int n, const char *unit, int indent, uint8_t *newline, FILE *fp)
{
	size_t printed = 0;

	newline_once(newline, &printed, fp);
	return printed + fprintf(fp, "\n%.*s/* XXX %d %s%s hole, try to pack */", indent, TABS, n,
				 unit, n != 1 ? "s" : "");
}

/* The comments that close a struct: its size, holes, paddings, alignments. */
static size_t p_class_stats(struct btf_layout *l, const struct lay_type *lt,
			    const struct class_sums *s, const struct lay_pconf *c, FILE *fp)
{
	const struct member_holes *h = &s->mh;
	uint32_t cl = l->conf.cacheline_size, n = lt->nr_mem, last_line;
	int in = c->indent, diff;
	size_t printed;

	printed = fprintf(fp, "\n%.*s/* size: %d, cachelines: %zd, members: %u */\n", in, TABS,
			  (int)lt->size, lay_type__nr_cachelines(l, lt), (uint16_t)n);
	if (s->holes || s->bit_holes) {
		if (s->bytes) {
			printed += fprintf(fp, "%.*s/* sum members: %u", in, TABS, s->bytes);
			if (s->holes)
				printed += fprintf(fp, ", holes: %d, sum holes: %u", lt->nr_holes,
						   s->holes);
			printed += fprintf(fp, " */\n");
		}
		if (s->bits) {
			printed += fprintf(fp, "%.*s/* sum bitfield members: %u bits", in, TABS, s->bits);
			if (s->bit_holes)
				printed += fprintf(fp, ", bit holes: %d, sum bit holes: %u bits",
						   lt->nr_bit_holes, s->bit_holes);
			else
				printed += fprintf(fp, " (%u bytes)", s->bits / 8);
			printed += fprintf(fp, " */\n");
		}
	}
	if (lt->padding)
		printed += fprintf(fp, "%.*s/* padding: %u */\n", in, TABS, lt->padding);
	if (h->nr_with_holes || h->nr_with_bit_holes || h->nr_with_bit_paddings) {
		const char *sep = "";

		printed += fprintf(fp, "%.*s/* member types with ", in, TABS);
		if (h->nr_with_holes) {
			printed += fprintf(fp, "holes: %u, total: %u", h->nr_with_holes,
					   h->total_nr_holes);
			sep = ", ";
		}
		if (h->nr_with_bit_holes) {
			printed += fprintf(fp, "%sbit holes: %u, total: %u", sep, h->nr_with_bit_holes,
					   h->total_nr_bit_holes);
			sep = ", ";
		}
		if (h->nr_with_bit_paddings)
			printed += fprintf(fp, "%sbit paddings: %u, total: %u bit%s", sep,
					   h->nr_with_bit_paddings, h->sum_bit_paddings,
					   h->sum_bit_paddings > 1 ? "s" : "");
		printed += fprintf(fp, " */\n");
	}
	if (h->nr_paddings)
		printed += fprintf(fp, "%.*s/* paddings: %u, sum paddings: %u */\n", in, TABS,
				   h->nr_paddings, h->sum_paddings);
	if (lt->bit_padding)
		printed += fprintf(fp, "%.*s/* bit_padding: %u bits */\n", in, TABS, lt->bit_padding);
	if (s->nr_forced) {
		printed += fprintf(fp, "%.*s/* forced alignments: %u", in, TABS, s->nr_forced);
		if (s->nr_forced_holes)
			printed += fprintf(fp, ", forced holes: %u, sum forced holes: %u",
					   s->nr_forced_holes, s->sum_forced_holes);
		printed += fprintf(fp, " */\n");
	}
	if (h->nr_flex || h->nr_emb_flex) {
		printed += fprintf(fp, "%.*s/* flexible array members: ", in, TABS);
		if (h->nr_flex)
			printed += fprintf(fp, "end: %u", h->nr_flex);
		if (h->nr_emb_flex)
			printed += fprintf(fp, "%smiddle: %u", h->nr_flex ? ", " : "", h->nr_emb_flex);
		printed += fprintf(fp, " */\n");
	}
	last_line = (c->base_offset + lt->size) % cl;
	if (last_line)
		printed += fprintf(fp, "%.*s/* last cacheline: %u bytes */\n", in, TABS, last_line);
	diff = lt->size * 8 - (s->bytes * 8 + s->bits + s->holes * 8 + s->bit_holes +
			      lt->padding * 8 + lt->bit_padding);
	if (diff && (uint16_t)n)
		printed += fprintf(fp, "\n%.*s/* BRAIN FART ALERT! %d bytes != %u (member bytes) + "
				   "%u (member bits) + %u (byte holes) + %u (bit holes), diff = %d bits */\n",
				   in, TABS, (int)lt->size, s->bytes, s->bits, s->holes, s->bit_holes, diff);
	return printed;
}

/* pahole's __class__fprintf(): struct LT with its members and comments. */
static size_t p_class(struct btf_layout *l, struct lay_type *lt, const struct lay_pconf *c,
		      FILE *fp)
{
	const struct lay_mem *last = NULL;
	struct class_sums s = {};
	struct lay_pconf cc = *c;
	uint32_t cacheline = 0, i, n;
	int indent = cap_indent(c->indent);
	size_t printed, last_size = 0;
	uint8_t newline = 0;
	const char *name;

	if (!lt)
		return 0;
	name = lay_name(l, lay_tag(l, lt->id));
	n = lt->nr_mem;
	printed = fprintf(fp, "%s%sstruct%s%s", c->prefix ? c->prefix : "", c->prefix ? " " : "",
			  name ? " " : "", name ? name : "");
	if (!cc.cachelinep)
		cc.cachelinep = &cacheline;
	cc.indent = indent + 1;
	lay_type__packed(l, lt);
	printed += fprintf(fp, " {\n");
	if (lt->pre_bit_hole && !cc.suppress_comments) {
		newline_once(&newline, &printed, fp);
		printed += fprintf(fp, "%.*s/* XXX %d bit%s hole, try to pack */\n", cc.indent, TABS,
				   lt->pre_bit_hole, lt->pre_bit_hole != 1 ? "s" : "");
		s.bit_holes += lt->pre_bit_hole;
	}
	if (lt->pre_hole && !cc.suppress_comments) {
		newline_once(&newline, &printed, fp);
		printed += fprintf(fp, "%.*s/* XXX %d byte%s hole, try to pack */\n", cc.indent, TABS,
				   lt->pre_hole, lt->pre_hole != 1 ? "s" : "");
		s.holes += lt->pre_hole;
	}
	for (i = 0; i < n; i++) {
		const struct lay_mem *pos = &lt->mem[i];
		uint32_t mt = pos->type;
		const struct btf_type *mtt = lay_tag(l, mt);
		size_t size;

		if (pos->alignment && !cc.suppress_aligned) {
			int forced_hole = last ? last->hole : lt->pre_hole;

			if (forced_hole) {
				s.nr_forced_holes++;
				s.sum_forced_holes += forced_hole;
			}
			s.nr_forced++;
		}
		if (last && last_size)
			printed += p_bitfield_notes(l, mt, pos, last, last_size, &newline, &cc, fp);
		if (newline) {
			fputc('\n', fp);
			newline = 0;
			printed++;
		}
		if (!mtt) {
			printed += fprintf(fp, "%.*s<ERROR: type %u not found!>\n", cc.indent, TABS, mt);
			last = pos;
			continue;
		}
		cc.last_member = i == n - 1;
		cc.first_member = !last;
		size = pos->byte_size;
		printed += fprintf(fp, "%.*s", cc.indent, TABS);
		printed += p_member(l, pos, false, &cc, fp);
		if (is_struct(mtt) && !cc.suppress_comments)
			printed += p_member_type_holes(l, mt, &s.mh, &newline, &cc, fp);
		if (pos->bit_hole && !cc.suppress_comments) {
			printed += p_hole_note(pos->bit_hole, "bit", cc.indent, &newline, fp);
			s.bit_holes += pos->bit_hole;
		}
		if (pos->hole > 0 && !cc.suppress_comments) {
			printed += p_hole_note(pos->hole, "byte", cc.indent, &newline, fp);
			s.holes += pos->hole;
		}
		fputc('\n', fp);
		printed++;
		if (pos->bitfield_size)
			s.bits += pos->bitfield_size;
		else
			s.bytes += size;
		if (!last || !last_size || last->byte_offset != pos->byte_offset ||
		    (!last->bitfield_size && pos->bitfield_size))
			last_size = size;
		last = pos;
	}
	if (cc.emit_stats)
		printed += p_class_stats(l, lt, &s, &cc, fp);
	/* read now: printing the members may have marked this struct packed */
	printed += fprintf(fp, "%.*s}", indent, TABS);
	if ((lt->flags & LT_PACKED) && !cc.suppress_packed)
		printed += fprintf(fp, " __attribute__((__packed__))");
	if (cc.suffix)
		printed += fprintf(fp, " %s", cc.suffix);
	if (!cc.suppress_aligned && lt->alignment && !(lt->flags & LT_PACKED))
		printed += fprintf(fp, " __attribute__((__aligned__(%u)))", lt->alignment);
	return printed;
}

/* pahole's typedef__fprintf(): "typedef TARGET NAME". */
static size_t p_typedef(struct btf_layout *l, uint32_t id, const struct lay_pconf *c, FILE *fp)
{
	const struct btf_type *t = lay_tag(l, id), *tt, *pt;
	const char *name = lay_name(l, t);
	struct lay_pconf tc = *c;
	size_t printed = fprintf(fp, "typedef ");
	bool is_pointer = false;
	uint32_t tid = t->type;
	char bf[512];

	if (!tid)
		return printed + fprintf(fp, "void %s", name);
	tt = lay_tag(l, tid);
	if (!tt)
		return printed + fprintf(fp, "<ERROR: type %u not found!> %s", tid, name);
	switch (btf_kind(tt)) {
	case BTF_KIND_ARRAY:
		return printed + p_array(l, tid, name, c, fp);
	case BTF_KIND_PTR:
		pt = lay_tag(l, tt->type);
		if (!tt->type || !pt || !btf_is_func_proto(pt))
			break;
		tid = tt->type;
		is_pointer = true;
		/* fall through */
	case BTF_KIND_FUNC_PROTO:
		return printed + p_ftype(l, tid, name, false, is_pointer, 0, true, fp);
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
	case BTF_KIND_FWD:
		if (is_union(tt))
			return printed + p_union_decl(l, tid, name, c, fp);
		if (lay_name(l, tt) && !c->expand_types)
			return printed + fprintf(fp, "struct %s %s", lay_name(l, tt), name);
		tc.type_spacing -= 8;
		tc.suffix = name;
		return printed + p_class(l, lay_holes(l, tid), &tc, fp);
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		if (lay_name(l, tt))
			return printed + fprintf(fp, "enum %s %s", lay_name(l, tt), name);
		tc.suffix = name;
		return printed + p_enum(l, tid, &tc, fp);
	default:
		break;
	}
	return printed + fprintf(fp, "%s %s", name_of(l, tid, bf, sizeof(bf)), name);
}

/* ---- the entry points ---- */

/*
 * The printer's descent through the types, as a graph whose nodes are a
 * type and how it is reached: by value (a member's own type, what a
 * typedef, modifier or array stands for: printed out, with -E even when
 * named) or by name (behind a pointer, in a prototype: a named struct,
 * union, enum or typedef ends there; an unnamed struct behind a pointer
 * is printed out).  Node 2 * ID + BYNAME.  The Ith edge of NODE into *TO
 * (UINT32_MAX: none to follow), false past the last.
 */
static bool descent(const struct btf_layout *l, uint32_t node, uint32_t i, uint32_t *to)
{
	const struct btf_type *t = lay_t(l, node / 2);
	bool byname = node & 1;
	uint32_t next;

	*to = UINT32_MAX;
	if (!t)
		return false;
	switch (btf_kind(t)) {
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		if (i >= btf_vlen(t))
			return false;
		if (!byname || !lay_name(l, t))
			*to = 2 * btf_members(t)[i].type;
		return true;
	case BTF_KIND_FUNC_PROTO:
		if (i > btf_vlen(t))
			return false;
		*to = 2 * (i ? btf_params(t)[i - 1].type : t->type) + 1;
		return true;
	case BTF_KIND_PTR:
		next = 2 * t->type + 1;
		break;
	case BTF_KIND_TYPEDEF:
		if (byname && lay_name(l, t))
			return !i;
		/* fall through */
	case BTF_KIND_ARRAY:
	case BTF_KIND_CONST:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_TYPE_TAG:
		next = 2 * (btf_is_array(t) ? btf_array(t)->type : t->type) + byname;
		break;
	default:
		return false;
	}
	if (i)
		return false;
	*to = next;
	return true;
}

/*
 * 0, or -ELOOP with *AT a type on a cycle of descent(): BTF no compiler
 * writes (a type that holds itself), which the printer would follow for
 * ever.  One depth-first walk over every node, without recursion.
 */
static int find_loop(const struct btf_layout *l, uint32_t *at)
{
	struct frame { uint32_t node, next; } *st;
	uint32_t nodes = 2 * l->nr_types, root, n, to;
	uint8_t *color = calloc(nodes, 1);	/* 0 new, 1 on the path, 2 done */
	int err = 0;

	st = malloc(sizeof(*st) * nodes);
	if (!color || !st) {
		free(color), free(st);
		return -ENOMEM;
	}
	for (root = 2; root < nodes && !err; root++) {
		if (color[root])
			continue;
		n = 0;
		st[n++] = (struct frame){ root, 0 };
		color[root] = 1;
		while (n) {
			struct frame *f = &st[n - 1];

			if (!descent(l, f->node, f->next++, &to)) {
				color[f->node] = 2;
				n--;
				continue;
			}
			if (to < 2 || to >= nodes || color[to] == 2)
				continue;	/* void, none, or already walked */
			if (color[to] == 1) {
				*at = to / 2;
				err = -ELOOP;
				break;
			}
			color[to] = 1;
			st[n++] = (struct frame){ to, 0 };
		}
	}
	free(color);
	free(st);
	return err;
}

struct btf_layout *btf_layout__new(const struct btf *btf, const struct btf_layout_conf *conf)
{
	struct btf_layout *l = calloc(1, sizeof(*l));
	int err;

	if (!l)
		return NULL;
	l->btf = btf;
	l->conf = *conf;
	if (!l->conf.cacheline_size)
		l->conf.cacheline_size = 64;
	l->nr_types = btf__type_cnt(btf);
	l->ptr_size = btf__pointer_size(btf) ? btf__pointer_size(btf) : sizeof(void *);
	l->types = calloc(l->nr_types, sizeof(*l->types));
	if (!l->types) {
		free(l);
		errno = ENOMEM;
		return NULL;
	}
	err = find_loop(l, &(uint32_t){ 0 });
	if (err) {
		btf_layout__free(l);
		errno = -err;
		return NULL;
	}
	return l;
}

uint32_t btf_layout__loop(const struct btf *btf)
{
	struct btf_layout l = { .btf = btf, .nr_types = btf__type_cnt(btf) };
	uint32_t at = 0;

	find_loop(&l, &at);
	return at;
}

void btf_layout__free(struct btf_layout *l)
{
	uint32_t i;

	if (!l)
		return;
	for (i = 0; i < l->nr_types; i++) {
		if (l->types[i])
			free(l->types[i]->mem);
		free(l->types[i]);
	}
	free(l->types);
	free(l->tdef);
	free(l);
}

uint32_t btf_layout__find(const struct btf_layout *l, const char *name)
{
	uint32_t id;

	for (id = 1; id < l->nr_types; id++) {
		const struct btf_type *t = btf__type_by_id(l->btf, id);
		const char *n;

		if (!(btf_is_composite(t) || btf_is_typedef(t) || btf_is_any_enum(t)))
			continue;	/* FWDs are declarations: pahole -C skips them */
		n = lay_name(l, t);
		if (n && !strcmp(n, name))
			return id;
	}
	return 0;
}

int btf_layout__print(struct btf_layout *l, uint32_t id, FILE *fp)
{
	return btf_layout__print_as(l, id, NULL, NULL, fp);
}

/* The top level's printing state: the command's settings, or pahole's defaults (DEFAULTS). */
static void pconf_init(const struct btf_layout *l, struct lay_pconf *c, bool defaults)
{
	const struct btf_layout_conf *k = &l->conf;

	*c = (struct lay_pconf){ .type_spacing = 26, .name_spacing = 23, .emit_stats = true };
	if (defaults)
		return;
	c->name_spacing = k->expand_types ? 55 : 23;
	c->expand_types = k->expand_types;
	c->hex = k->hex;
	c->rel_offset = k->rel_offset;
	c->emit_stats = !k->quiet;
	c->suppress_comments = c->suppress_offset_comment = k->quiet;
	c->suppress_aligned = k->suppress_aligned;
	c->suppress_packed = k->suppress_packed;
}

int btf_layout__print_as(struct btf_layout *l, uint32_t id, const char *prefix, const char *suffix,
			 FILE *fp)
{
	const struct btf_type *t = lay_tag(l, id);
	struct lay_pconf c;

	if (!t)
		return -ENOENT;
	pconf_init(l, &c, false);
	c.prefix = prefix;
	c.suffix = suffix;
	if (!l->conf.expand_types && is_union(t))
		c.name_spacing = 21;
	if (btf_is_typedef(t))
		p_typedef(l, id, &c, fp);
	else if (btf_is_any_enum(t))
		p_enum(l, id, &c, fp);
	else if (is_union(t))
		p_union(l, id, &c, fp);
	else if (is_struct(t))
		p_class(l, lay_holes(l, id), &c, fp);
	else
		return -EINVAL;
	fputs(";\n", fp);
	return l->err;
}

size_t lay_type__print(struct btf_layout *l, struct lay_type *lt, bool defaults, FILE *fp)
{
	struct lay_pconf c;

	pconf_init(l, &c, defaults);
	return p_class(l, lt, &c, fp);
}

size_t lay_type__nr_cachelines(const struct btf_layout *l, const struct lay_type *lt)
{
	const struct btf_type *t = lay_tag(l, lt->id);
	size_t size = lt->size, cl = l->conf.cacheline_size;

	/* tag__size(): a declaration has none, nor an empty base (one byte, no members) */
	if (!t || btf_is_fwd(t) || (lt->size == 1 && !lt->nr_mem))
		size = 0;
	return (size + cl - 1) / cl;
}

const char *lay_mem__name(const struct btf_layout *l, const struct lay_mem *m)
{
	/* glibc's printf() writes a NULL string as "(null)", pahole's messages show it */
	return btf_view__str(l->btf, m->name_off) ?: "(null)";
}

/* pahole's order of two structs when it drops repeats (its type__compare()). */
static int same_struct_cmp(const struct btf_layout *l, uint32_t a, uint32_t b)
{
	const struct btf_type *ta = btf__type_by_id(l->btf, a), *tb = btf__type_by_id(l->btf, b);
	uint32_t i, n = btf_vlen(ta);
	int r = strcmp(lay_name(l, ta), lay_name(l, tb));

	if (r)
		return r;
	if (ta->size != tb->size)
		return (int)ta->size - (int)tb->size;
	if (btf_vlen(ta) != btf_vlen(tb))
		return (int)btf_vlen(ta) - (int)btf_vlen(tb);
	for (i = 0; i < n; i++) {
		const struct btf_member *ma = &btf_members(ta)[i], *mb = &btf_members(tb)[i];

		if (ma->name_off && mb->name_off) {
			r = strcmp(btf_view__str(l->btf, ma->name_off),
				   btf_view__str(l->btf, mb->name_off));
			if (r)
				return r;
		}
		if (btf_member_bit_offset(ta, i) != btf_member_bit_offset(tb, i))
			return (int)btf_member_bit_offset(ta, i) - (int)btf_member_bit_offset(tb, i);
		if (btf_member_bitfield_size(ta, i) != btf_member_bitfield_size(tb, i))
			return (int)btf_member_bitfield_size(ta, i) -
			       (int)btf_member_bitfield_size(tb, i);
	}
	return 0;
}

static int by_struct_then_id(const void *pa, const void *pb, void *l)
{
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
	int r = same_struct_cmp(l, a, b);

	return r ? r : (a > b) - (a < b);
}

/*
 * The structs and unions pahole walks with no -C, in id order (pahole's),
 * declarations left out: *IDS, and for each its class in *GROUP, equal
 * for two named ones that pahole takes for the same struct (name, size and
 * members: a later one is a repeat, not printed), UINT32_MAX for an
 * unnamed one.  Both arrays are the caller's.
 */
int btf_layout__walk(const struct btf_layout *l, uint32_t **ids, uint32_t **group, uint32_t *cnt)
{
	uint32_t id, n = 0, named = 0, i, g = 0, *v, *grp, *sorted;

	*ids = *group = NULL;
	*cnt = 0;
	v = malloc(sizeof(*v) * l->nr_types);
	grp = malloc(sizeof(*grp) * l->nr_types);
	sorted = malloc(sizeof(*sorted) * l->nr_types);
	if (!v || !grp || !sorted) {
		free(v), free(grp), free(sorted);
		return -ENOMEM;
	}
	for (id = 1; id < l->nr_types; id++) {
		const struct btf_type *t = btf__type_by_id(l->btf, id);

		if (!btf_is_composite(t))
			continue;
		grp[n] = UINT32_MAX;
		if (lay_name(l, t))
			sorted[named++] = n;	/* positions, sorted below by their structs */
		v[n++] = id;
	}
	for (i = 0; i < named; i++)
		sorted[i] = v[sorted[i]];
	qsort_r(sorted, named, sizeof(*sorted), by_struct_then_id, (void *)l);
	/* a group's number: its first member's id, found back by a search in V */
	for (i = 0; i < named; i++) {
		uint32_t lo = 0, hi = n, pos;

		if (!i || same_struct_cmp(l, sorted[i - 1], sorted[i]))
			g = sorted[i];
		while (lo < hi) {	/* V is sorted: ids in order */
			pos = lo + (hi - lo) / 2;
			if (v[pos] < sorted[i])
				lo = pos + 1;
			else
				hi = pos;
		}
		grp[lo] = g;
	}
	free(sorted);
	*ids = v;
	*group = grp;
	*cnt = n;
	return 0;
}

/*
 * The first typedef of ID (pahole names an unnamed struct by it), 0: none.
 * The map from types to their first typedef is built at the first call.
 */
uint32_t btf_layout__typedef_of(struct btf_layout *l, uint32_t id)
{
	uint32_t i;

	if (!l->tdef) {
		l->tdef = calloc(l->nr_types, sizeof(*l->tdef));
		if (!l->tdef) {
			l->err = -ENOMEM;
			return 0;
		}
		for (i = l->nr_types - 1; i > 0; i--) {
			const struct btf_type *t = btf__type_by_id(l->btf, i);

			if (btf_is_typedef(t) && t->type < l->nr_types)
				l->tdef[t->type] = i;	/* downwards: the first one stays */
		}
	}
	return id < l->nr_types ? l->tdef[id] : 0;
}

int btf_layout__facts(struct btf_layout *l, uint32_t id, struct btf_layout_facts *f)
{
	const struct btf_type *t = lay_tag(l, id);
	struct lay_type *lt;
	uint32_t i, n = nr_members(t);

	memset(f, 0, sizeof(*f));
	if (!is_aggr(t))
		return -EINVAL;
	f->is_struct = is_struct(t);
	f->flex = lay_has_flex(l, id);
	if (!f->is_struct)
		return 0;
	lt = lay_holes(l, id);
	if (!lt)
		return l->err;
	f->nr_holes = lt->nr_holes;
	f->nr_bit_holes = lt->nr_bit_holes;
	f->padding = lt->padding;
	for (i = 0; i < n; i++)
		if (lt->mem[i].hole > 0 && (uint32_t)lt->mem[i].hole > f->max_hole)
			f->max_hole = lt->mem[i].hole;
	f->emb_flex = lay_has_emb_flex(l, id);
	return 0;
}

bool btf_layout__packed(struct btf_layout *l, uint32_t id)
{
	return lay_packed(l, id);
}

/* The hole count pahole's --sizes prints: a struct's holes, 0 for a union. */
unsigned int btf_layout__nr_holes(struct btf_layout *l, uint32_t id)
{
	const struct btf_type *t = lay_tag(l, id);
	struct lay_type *lt;

	if (!is_struct(t))
		return 0;
	lt = lay_holes(l, id);
	return lt ? lt->nr_holes : 0;
}
