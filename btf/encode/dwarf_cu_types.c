// SPDX-License-Identifier: GPL-2.0
/*
 * The second walk over one CU's type DIEs (dwarf_cu_int.h): each entry the
 * first walk gave ids becomes exactly that many BTF types, in DIE order,
 * with the shapes of pahole 1.24 (one ARRAY for all dimensions, an ARRAY
 * a dimension under pahole 1.32's rules, type tags between a PTR and its
 * target, bitfields by their bit offsets).  Types
 * that repeat in every unit are added under PH_NAME and named from the
 * batch's string cache.  Members are read through a per-abbreviation map of
 * where their attributes are (die_attrs), else attribute by attribute.
 */
#include <dwarf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>

#include "btf/encode/dwarf_cu_int.h"
#include "lib/array.h"

/* The attributes of one member, read in a single pass. */
enum { DA_NAME, DA_TYPE, DA_DATA_BIT_OFFSET, DA_MEMBER_LOC, DA_BIT_OFFSET,
       DA_BIT_SIZE, DA_BYTE_SIZE, DA_CONST_VALUE, DA_NR };

struct die_attrs {
	struct dwarf_attr a[DA_NR];
	unsigned int has;
	bool skip;		/* DW_AT_external or DW_AT_declaration */
};

/*
 * Which of a member's attributes are where, by abbreviation: a unit's
 * members share a few dozen abbreviations, so the walk over every
 * attribute and the switch on its name (12 instructions an attribute, 6
 * attributes a member, 7.9 million members in the 6.12 vmlinux) is done
 * once per abbreviation and unit.  Direct-mapped; an entry of an earlier
 * unit (da_gen) is stale, as its abbreviations may be decoded anew.
 */
#define DA_MAPS	256
struct da_map {
	const struct dwarf_abbrev *ab;
	uint32_t gen;
	uint16_t has;
	bool skip, slow;	/* slow: read attribute by attribute */
	uint8_t spec[DA_NR];	/* index in the abbreviation's specs */
};

static int da_index(unsigned int name)
{
	switch (name) {
	case DW_AT_name: return DA_NAME;
	case DW_AT_type: return DA_TYPE;
	case DW_AT_data_bit_offset: return DA_DATA_BIT_OFFSET;
	case DW_AT_data_member_location: return DA_MEMBER_LOC;
	case DW_AT_bit_offset: return DA_BIT_OFFSET;
	case DW_AT_bit_size: return DA_BIT_SIZE;
	case DW_AT_byte_size: return DA_BYTE_SIZE;
	case DW_AT_const_value: return DA_CONST_VALUE;
	case DW_AT_external: case DW_AT_declaration: return -2;
	default: return -1;
	}
}

static void da_map_build(const struct enc_batch *b, const struct dwarf_abbrev *ab,
			 struct da_map *m)
{
	const struct dwarf_spec *sp = b->u->abbrevs.specs + ab->first;
	uint32_t k;
	int i;

	*m = (struct da_map){ .ab = ab, .gen = b->da_gen, .slow = ab->n > UINT8_MAX };
	for (k = 0; k < ab->n && !m->slow; k++) {
		/* An indirect or unknown form is read (and checked) in order. */
		if (sp[k].form == DW_FORM_indirect || sp[k].size == -2)
			m->slow = true;
		i = da_index(sp[k].name);
		if (i == -2) {
			m->skip = true;
		} else if (i >= 0) {
			m->spec[i] = (uint8_t)k;	/* the last one, as in order */
			m->has |= 1u << i;
		}
	}
}

static int die_attrs__read(struct enc_batch *b, const die_t *die, struct die_attrs *da)
{
	const struct dwarf_spec *sp;
	struct dwarf_attr_iter it;
	struct dwarf_attr a;
	struct da_map *m;
	unsigned int has;
	int i, r;

	if (!b->da_maps && !(b->da_maps = calloc(DA_MAPS, sizeof(*b->da_maps))))
		return -ENOMEM;
	m = &b->da_maps[((uintptr_t)die->ab / sizeof(*die->ab)) % DA_MAPS];
	if (m->ab != die->ab || m->gen != b->da_gen)
		da_map_build(b, die->ab, m);
	da->has = 0;
	da->skip = m->skip;
	if (!m->slow) {
		sp = b->u->abbrevs.specs + die->ab->first;
		for (has = m->has; has; has &= has - 1) {
			const struct dwarf_spec *s;

			i = __builtin_ctz(has);
			s = &sp[m->spec[i]];
			da->a[i] = (struct dwarf_attr){ s->name, s->form,
				dwarf_die__value(b->u, die, s),
				s->implicit };
		}
		da->has = m->has;
		return 0;
	}
	da->skip = false;
	dwarf_die__attrs(b->u, die, &it);
	while ((r = dwarf_attr__next(b->u, &it, &a)) > 0) {
		i = da_index(a.name);
		if (i == -2) {
			da->skip = true;
			continue;
		}
		if (i < 0)
			continue;
		da->a[i] = a;
		da->has |= 1u << i;
	}
	return r;
}

static uint64_t da_udata(const struct enc_batch *b, struct die_attrs *da, int i, uint64_t dflt)
{
	uint64_t w;

	if (!(da->has & (1u << i)) || dwarf_attr__udata(b->u, &da->a[i], &w))
		return dflt;
	return w;
}

/*
 * The members of struct entry E: for (i = 0; !member(b, e, die, &i, &c);).
 * 0 with the next in *C, 1 at the end, < 0 on bad DWARF.  *I is the
 * position (an index into b->members, or 0 then 1 while walking).
 */
static int member(const struct enc_batch *b, const struct cu_ent *e, const die_t *die,
		  size_t *i, die_t *c)
{
	int r;

	if (e->mfirst >= 0) {
		if (*i >= e->mcount)
			return 1;
		*c = b->members[e->mfirst + (*i)++];
		return 0;
	}
	do {
		r = (*i)++ ? next(b, c) : first(b, die, c);
	} while (!r && dwarf_die__tag(c) != DW_TAG_member);
	return r;
}

static int emit_base(struct enc_batch *b, const die_t *die)
{
	int enc = udata(b, die, DW_AT_encoding, 0);
	int64_t size = udata(b, die, DW_AT_byte_size, 0);
	const char *name;
	int flags = 0, off;

	if (!dcu__base_size_ok(size))
		return dcu__btf_ret(b, die, btf__add_int(b->btf, "__SANITIZED_FAKE_INT__", 4, 0));
	off = dcu__cached_diename(b, die, &name);
	if (off < 0)
		return dcu__btf_ret(b, die, off);
	name = off ? PH_NAME : name ? name : "";
	if (enc == DW_ATE_float && (b->ctx->feats & BTF_FEAT_FLOAT))
		return dcu__btf_ret(b, die, dcu__named(b, btf__add_float(b->btf, name, size), off));
	if (enc == DW_ATE_signed || enc == DW_ATE_signed_char)
		flags = BTF_INT_SIGNED;
	else if (enc == DW_ATE_boolean)
		flags = BTF_INT_BOOL;
	return dcu__btf_ret(b, die, dcu__named(b, btf__add_int(b->btf, name, size, flags), off));
}

static int emit_ptr(struct enc_batch *b, const die_t *die, const struct cu_ent *e)
{
	uint32_t target, id = e->id;
	die_t c;
	int err, r;

	err = dcu__type_id(b, die, false, &target);
	if (err)
		return err;
	/* PTR -> last tag -> ... -> first tag -> target, as pahole does. */
	err = btf__add_ptr(b->btf, e->nids > 1 ? id + e->nids - 1 : target);
	if (err < 0 || e->nids == 1)
		return dcu__btf_ret(b, die, err);
	for (r = first(b, die, &c); !r; r = next(b, &c)) {
		const char *v = dcu__annotation(b, &c, "btf_type_tag");

		if (!v)
			continue;
		err = btf__add_type_tag(b->btf, v, target);
		if (err < 0)
			return dcu__btf_ret(b, die, err);
		target = err;
	}
	return r < 0 ? dwarf_err(b, die, r) : 0;
}

/*
 * An array bound, -1 if absent or not a constant.  Only DW_FORM_sdata is
 * signed: libdw sign-extends data1..data8, which would make 200 negative.
 */
static int64_t bound(const struct enc_batch *b, const die_t *die, unsigned int name)
{
	struct dwarf_attr a;
	int64_t s;
	uint64_t u;

	if (!attr(b, die, name, &a))
		return -1;
	if (a.form == DW_FORM_sdata)
		return dwarf_attr__sdata(b->u, &a, &s) ? -1 : s;
	if (a.form == DW_FORM_ref4 || a.form == DW_FORM_exprloc)
		return -1;
	return dwarf_attr__udata(b->u, &a, &u) || (int64_t)u < 0 ? -1 : (int64_t)u;
}

/* A subrange's element count: DW_AT_count, else from its bounds, else 0. */
static uint64_t subrange_count(const struct enc_batch *b, const die_t *c)
{
	int64_t n = bound(b, c, DW_AT_count);

	if (n < 0) {
		n = bound(b, c, DW_AT_upper_bound);
		n = n < 0 ? 0 : n + 1 - udata(b, c, DW_AT_lower_bound, 0);
	}
	return (uint64_t)n;
}

/*
 * pahole 1.24 to 1.30 encode T a[2][3] as one ARRAY of 6 T; 1.32 as an
 * ARRAY of 2 of an ARRAY of 3 T, a type for each of E's NIDS dimensions
 * (count_array_ids in dwarf_cu.c): the outer one first, at E's id, each
 * referring to the next id.
 */
static int emit_array(struct enc_batch *b, const struct cu_ent *e, const die_t *die)
{
	uint64_t nelems = 1;
	uint32_t elem, nested = 0, id = e->id;
	die_t c;
	int err, r;

	err = dcu__type_id(b, die, false, &elem);
	if (err)
		return err;
	r = first(b, die, &c);
	if (r)
		nelems = 0;
	for (; !r; r = next(b, &c)) {
		if (dwarf_die__tag(&c) != DW_TAG_subrange_type)
			continue;
		if (e->nids == 1) {
			nelems *= subrange_count(b, &c);
			continue;
		}
		/* The last dimension holds the element type. */
		err = btf__add_array(b->btf, b->int_id, ++nested < e->nids ? ++id : elem,
				     (uint32_t)subrange_count(b, &c));
		if (err < 0)
			return dcu__btf_ret(b, die, err);
	}
	if (e->nids > 1)
		return r < 0 ? dwarf_err(b, die, r) : 0;
	return dcu__btf_ret(b, die, btf__add_array(b->btf, b->int_id, elem, (uint32_t)nelems));
}

/* A location that is one DW_OP_plus_uconst (an old member offset): its operand. */
static bool plus_uconst(const struct enc_batch *b, const struct dwarf_attr *a, uint64_t *v)
{
	const uint8_t *p, *end;
	unsigned int shift = 0;
	size_t len;

	if (dwarf_attr__block(b->u, a, &p, &len) || len < 2 || p[0] != DW_OP_plus_uconst)
		return false;
	end = p + len;
	*v = 0;
	for (p++; p < end; p++) {
		if (shift < 64)
			*v |= (uint64_t)(*p & 0x7f) << shift;
		shift += 7;
		if (!(*p & 0x80))
			return p + 1 == end;	/* one operation, nothing after it */
	}
	return false;
}

static uint64_t member_bit_offset(const struct enc_batch *b, struct die_attrs *da)
{
	uint64_t w, off = 0;

	if (da->has & (1u << DA_DATA_BIT_OFFSET))
		return da_udata(b, da, DA_DATA_BIT_OFFSET, 0);
	if (da->has & (1u << DA_MEMBER_LOC)) {
		if (dwarf_attr__udata(b->u, &da->a[DA_MEMBER_LOC], &w) == 0)
			off = w * 8;
		else if (plus_uconst(b, &da->a[DA_MEMBER_LOC], &w))
			off = w * 8;
	}
	/* DWARF 2-4 bitfields count DW_AT_bit_offset from the storage unit's MSB. */
	if (da->has & (1u << DA_BIT_OFFSET)) {
		w = da_udata(b, da, DA_BIT_OFFSET, 0);
		off += da_udata(b, da, DA_BYTE_SIZE, 0) * 8 - w - da_udata(b, da, DA_BIT_SIZE, 0);
	}
	return off;
}

static int emit_struct(struct enc_batch *b, const struct cu_ent *e, const die_t *die,
		       unsigned int tag)
{
	bool is_union = tag == DW_TAG_union_type;
	const char *name;
	size_t i = 0;
	die_t c;
	int err, id, r;

	if (flag(b, die, DW_AT_declaration)) {
		err = dcu__cached_diename(b, die, &name);
		if (err < 0)
			return dcu__btf_ret(b, die, err);
		id = btf__add_fwd(b->btf, err ? PH_NAME : name ? name : "",
				  is_union ? BTF_FWD_UNION : BTF_FWD_STRUCT);
		return dcu__btf_ret(b, die, dcu__named(b, id, err));
	}
	err = is_union ? btf__add_union(b->btf, NULL, udata(b, die, DW_AT_byte_size, 0))
		       : btf__add_struct(b->btf, NULL, udata(b, die, DW_AT_byte_size, 0));
	if (err < 0)
		return dcu__btf_ret(b, die, err);
	id = err;
	err = dcu__name_off_of(b, die, DW_AT_name, false);
	if (err < 0)
		return dcu__btf_ret(b, die, err);
	dcu__set_type_name(b, id, err);
	while (!(r = member(b, e, die, &i, &c))) {
		struct die_attrs da;
		uint32_t t = 0;

		err = die_attrs__read(b, &c, &da);
		if (err)
			return dwarf_err(b, &c, err);
		if (da.skip)
			continue;
		if (da.has & (1u << DA_TYPE)) {
			err = dcu__attr_type_id(b, &da.a[DA_TYPE], &c, &t);
			b->alias_depth = 0;
			if (err)
				return err;
		}
		err = btf__add_field(b->btf, NULL, t, member_bit_offset(b, &da),
				     da_udata(b, &da, DA_BIT_SIZE, 0));
		if (err < 0)
			return dcu__btf_ret(b, &c, err);
		err = dcu__name_off(b, (da.has & (1u << DA_NAME)) ? &da.a[DA_NAME] : NULL);
		if (err < 0)
			return dcu__btf_ret(b, &c, err);
		dcu__set_last_name(b, id, err);
	}
	return r < 0 ? dwarf_err(b, die, r) : 0;
}

static bool enum_is_signed(const struct enc_batch *b, const die_t *die)
{
	struct dwarf_attr a;
	die_t t;
	int enc, i;

	if (!attr(b, die, DW_AT_type, &a) || !ref_die(b, &a, &t))
		return false;
	for (i = 0; dwarf_die__tag(&t) == DW_TAG_typedef || dwarf_die__tag(&t) == DW_TAG_const_type;
	     i++) {
		if (i == MAX_ALIAS_DEPTH || !attr(b, &t, DW_AT_type, &a) || !ref_die(b, &a, &t))
			return false;
	}
	enc = udata(b, &t, DW_AT_encoding, 0);
	return enc == DW_ATE_signed || enc == DW_ATE_signed_char;
}

/* An enumerator's value: sign-extend the fixed-size forms of signed enums. */
static int64_t enumerator_value(const struct enc_batch *b, const die_t *c, bool is_signed,
				int size)
{
	struct dwarf_attr a;
	uint64_t u = 0;
	int64_t s = 0;

	if (!attr(b, c, DW_AT_const_value, &a))
		return 0;
	if (a.form == DW_FORM_sdata) {
		dwarf_attr__sdata(b->u, &a, &s);
		return s;
	}
	dwarf_attr__udata(b->u, &a, &u);
	if (is_signed && size > 0 && size < 8 && (u >> (size * 8 - 1)) & 1)
		u |= ~0ULL << (size * 8);
	return (int64_t)u;
}

static int emit_enum(struct enc_batch *b, const die_t *die)
{
	int64_t size = udata(b, die, DW_AT_byte_size, 4);
	bool is_signed = enum_is_signed(b, die);
	bool is64 = size > 4 && (b->ctx->feats & BTF_FEAT_ENUM64);
	const char *name;
	int err, id, r, off = dcu__cached_diename(b, die, &name);
	die_t c;

	if (off < 0)
		return dcu__btf_ret(b, die, off);
	if (off)
		name = PH_NAME;
	if (is64)
		err = btf__add_enum64(b->btf, name, size, is_signed);
	else
		err = btf__add_enum(b->btf, name, size);
	err = dcu__named(b, err, off);
	if (err < 0 || (r = first(b, die, &c)))
		return dcu__btf_ret(b, die, err);
	id = err;
	for (; !r; r = next(b, &c)) {
		int64_t v;

		if (dwarf_die__tag(&c) != DW_TAG_enumerator)
			continue;
		v = enumerator_value(b, &c, is_signed, size);
		/*
		 * Without ENUM64 pahole 1.24 encodes as before signed enums
		 * existed: the low 32 bits, unsigned.
		 */
		if (!(b->ctx->feats & BTF_FEAT_ENUM64))
			v = (uint32_t)v;
		/* A placeholder name (libbpf wants one), then the cached one. */
		err = is64 ? btf__add_enum64_value(b->btf, PH_NAME, v)
			   : btf__add_enum_value(b->btf, PH_NAME, v);
		if (err < 0)
			return dcu__btf_ret(b, &c, err);
		err = dcu__name_off_of(b, &c, DW_AT_name, false);
		if (err < 0)
			return dcu__btf_ret(b, &c, err);
		dcu__set_last_name(b, id, err);
	}
	return r < 0 ? dwarf_err(b, die, r) : 0;
}

/*
 * FUNC_PROTO from DIE's formal parameters; NAMED gives them their names (a
 * function's, not a subroutine type's).  DW_AT_abstract_origin is followed
 * so out-of-line copies of inline functions get their names and types.
 */
int dcu__emit_proto(struct enc_batch *b, const die_t *die, bool named, uint64_t last)
{
	uint32_t ret, t;
	die_t c;
	int err, id, r;

	err = dcu__type_id(b, die, named, &ret);
	if (err)
		return err;
	id = btf__add_func_proto(b->btf, ret);
	if (id < 0)
		return dcu__btf_ret(b, die, id);
	for (r = first(b, die, &c); !r && c.off <= last; r = next(b, &c)) {
		unsigned int tag = dwarf_die__tag(&c);

		if (tag == DW_TAG_unspecified_parameters) {
			err = btf__add_func_param(b->btf, "", 0);
		} else if (tag == DW_TAG_formal_parameter) {
			err = dcu__type_id(b, &c, named, &t);
			if (err)
				return err;
			err = btf__add_func_param(b->btf, NULL, t);
			if (err >= 0 && named) {
				err = dcu__name_off_of(b, &c, DW_AT_name, true);
				if (err >= 0)
					dcu__set_last_name(b, id, err);
			}
		} else {
			continue;
		}
		if (err < 0)
			return dcu__btf_ret(b, &c, err);
	}
	return r < 0 ? dwarf_err(b, die, r) : id;
}

int dcu__emit_ent(struct enc_batch *b, const struct cu_ent *e, const die_t *die)
{
	unsigned int tag = dwarf_die__tag(die);
	const char *name;
	uint32_t t;
	int err;

	b->next_id = e->id;
	switch (tag) {
	case DW_TAG_base_type:
		return emit_base(b, die);
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
		return emit_ptr(b, die, e);
	case DW_TAG_array_type:
		return emit_array(b, e, die);
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
	case DW_TAG_class_type:
		return emit_struct(b, e, die, tag);
	case DW_TAG_enumeration_type:
		return emit_enum(b, die);
	case DW_TAG_subroutine_type:
		err = dcu__emit_proto(b, die, false, UINT64_MAX);
		return err < 0 ? err : 0;
	}
	err = dcu__type_id(b, die, false, &t);
	if (err)
		return err;
	switch (tag) {
	case DW_TAG_const_type:
		return dcu__btf_ret(b, die, btf__add_const(b->btf, t));
	case DW_TAG_volatile_type:
		return dcu__btf_ret(b, die, btf__add_volatile(b->btf, t));
	case DW_TAG_restrict_type:
		return dcu__btf_ret(b, die, btf__add_restrict(b->btf, t));
	case DW_TAG_typedef:
		err = dcu__cached_diename(b, die, &name);
		if (err < 0)
			return dcu__btf_ret(b, die, err);
		return dcu__btf_ret(b, die, dcu__named(b, btf__add_typedef(b->btf, err ? PH_NAME : name, t),
					     err));
	}
	return enc_batch__err(b, -EINVAL, "DIE 0x%llx: unexpected tag 0x%x",
			      (unsigned long long)die->off, tag);
}

/* clang's btf_decl_tag annotations on DIE (the BTF type ID), COMP = -1. */
int dcu__emit_decl_tags(struct enc_batch *b, const die_t *die, uint32_t id, int comp)
{
	const char *v;
	die_t c;
	int err, r;

	for (r = first(b, die, &c); !r; r = next(b, &c)) {
		v = dcu__annotation(b, &c, "btf_decl_tag");
		if (!v)
			continue;
		err = btf__add_decl_tag(b->btf, v, id, comp);
		if (err < 0)
			return dcu__btf_ret(b, die, err);
	}
	return 0;
}

/* Decl tags of a struct/union/typedef/member: after all of the CU's types. */
int dcu__emit_type_decl_tags(struct enc_batch *b, const struct cu_ent *e, const die_t *die)
{
	unsigned int tag = dwarf_die__tag(die);
	int idx = 0, err;
	size_t i = 0;
	die_t c;

	if (tag != DW_TAG_structure_type && tag != DW_TAG_union_type &&
	    tag != DW_TAG_typedef)
		return 0;
	if (tag != DW_TAG_typedef) {
		while (!member(b, e, die, &i, &c)) {
			err = dcu__emit_decl_tags(b, &c, e->id, idx++);
			if (err)
				return err;
		}
	}
	return dcu__emit_decl_tags(b, die, e->id, -1);
}
