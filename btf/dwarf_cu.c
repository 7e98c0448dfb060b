// SPDX-License-Identifier: GPL-2.0
/*
 * One compile unit's DIEs -> BTF types, straight from libdw with no
 * intermediate tree.  Two walks: the first gives every type DIE its BTF id
 * (a DIE may refer to one defined later, and btf__add_field() must follow
 * its struct directly, so ids are known before anything is emitted); the
 * second revisits only the type DIEs and emits them in DIE order.  The
 * shapes follow pahole 1.24 so that, after dedup, the types are the same:
 * multi-dimensional arrays are one ARRAY of all elements, clang's
 * btf_type_tag annotations hang between a PTR and its target in reverse
 * order, FUNCs exist only for functions with an ELF symbol.
 */
#include <dwarf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>

#include "btf/encode_int.h"
#include "lib/array.h"

#define MAX_ALIAS_DEPTH 16

/* clang's tag for btf_type_tag/btf_decl_tag; elfutils 0.188 lacks the name. */
#ifndef DW_TAG_LLVM_annotation
#define DW_TAG_LLVM_annotation 0x6000
#endif

int enc_batch__err(struct enc_batch *b, int err, const char *fmt, ...)
{
	va_list ap;

	if (!b->err[0]) {
		va_start(ap, fmt);
		vsnprintf(b->err, sizeof(b->err), fmt, ap);
		va_end(ap);
	}
	return err;
}

static int dwarf_err(struct enc_batch *b, Dwarf_Die *die)
{
	return enc_batch__err(b, -EINVAL, "bad DWARF at DIE 0x%llx: %s",
			      (unsigned long long)dwarf_dieoffset(die), dwarf_errmsg(-1));
}

static int add_die(Dwarf_Die **v, size_t *n, size_t *cap, Dwarf_Die *die)
{
	if (array__grow(v, cap, *n + 1, sizeof(**v), 64))
		return -ENOMEM;
	(*v)[(*n)++] = *die;
	return 0;
}

/* Is DIE an LLVM annotation named KIND ("btf_type_tag", "btf_decl_tag")? */
static const char *annotation(Dwarf_Die *die, const char *kind)
{
	Dwarf_Attribute a;
	const char *name;

	if (dwarf_tag(die) != DW_TAG_LLVM_annotation)
		return NULL;
	name = dwarf_diename(die);
	if (!name || strcmp(name, kind))
		return NULL;
	if (!dwarf_attr(die, DW_AT_const_value, &a))
		return NULL;
	return dwarf_formstring(&a);
}

static int count_type_tags(Dwarf_Die *die)
{
	Dwarf_Die c;
	int n = 0;

	if (dwarf_child(die, &c))
		return 0;
	do {
		if (annotation(&c, "btf_type_tag"))
			n++;
	} while (dwarf_siblingof(&c, &c) == 0);
	return n;
}

static int add_ent(struct enc_batch *b, Dwarf_Die *die, int nids)
{
	struct cu_ent *e;

	if (array__grow(&b->ents, &b->ents_cap, b->nents + 1, sizeof(*e), 64))
		return -ENOMEM;
	e = &b->ents[b->nents++];
	e->off = dwarf_dieoffset(die);
	e->die = *die;
	e->id = nids ? b->next_id : 0;
	e->nids = nids;
	b->next_id += nids;
	return 0;
}

static int scan_children(struct enc_batch *b, Dwarf_Die *parent, bool top);
static int64_t udata(Dwarf_Die *die, int name, int64_t dflt);

/*
 * BTF integers are 1, 2, 4, 8 or 16 bytes.  clang describes DW_OP_convert
 * targets such as a 6-byte "DW_ATE_unsigned_48"; pahole encodes those as
 * a 4-byte "__SANITIZED_FAKE_INT__", and so do we.
 */
static bool base_size_ok(int64_t size)
{
	return size == 1 || size == 2 || size == 4 || size == 8 || size == 16;
}

/* First walk: which DIEs become types, and how many ids each takes. */
static int scan_die(struct enc_batch *b, Dwarf_Die *die, bool top)
{
	unsigned int feats = b->ctx->feats;
	int tag = dwarf_tag(die);
	int err;

	switch (tag) {
	case DW_TAG_base_type:
		if (!b->int_id) {
			const char *n = dwarf_diename(die);

			if (n && !strcmp(n, "int"))
				b->int_id = b->next_id;
		}
		return add_ent(b, die, 1);
	case DW_TAG_const_type:
	case DW_TAG_volatile_type:
	case DW_TAG_restrict_type:
	case DW_TAG_typedef:
	case DW_TAG_subroutine_type:
	case DW_TAG_enumeration_type:
		return add_ent(b, die, 1);
	case DW_TAG_array_type:
		b->has_array = true;
		return add_ent(b, die, 1);
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
		return add_ent(b, die, 1 + ((feats & BTF_FEAT_TYPE_TAG) ? count_type_tags(die) : 0));
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
	case DW_TAG_class_type:
		err = add_ent(b, die, 1);
		return err ? err : scan_children(b, die, false);
	case DW_TAG_atomic_type:
	case DW_TAG_unspecified_type:
		return add_ent(b, die, 0);
	case DW_TAG_subprogram:
		err = add_die(&b->subs, &b->nsubs, &b->subs_cap, die);
		return err ? err : scan_children(b, die, false);
	/*
	 * Local types live under their function or lexical block; inlined
	 * copies point at the abstract instance's, so their (many, deeply
	 * nested) DIEs are not walked.
	 */
	case DW_TAG_lexical_block:
	case DW_TAG_namespace:
		return scan_children(b, die, false);
	case DW_TAG_variable:
		if (top && (feats & (BTF_FEAT_VAR | BTF_FEAT_GLOBAL_VAR)))
			return add_die(&b->gvars, &b->ngvars, &b->gvars_cap, die);
		return 0;
	default:
		return 0;
	}
}

static int scan_children(struct enc_batch *b, Dwarf_Die *parent, bool top)
{
	Dwarf_Die c;
	int r, err;

	r = dwarf_child(parent, &c);
	if (r < 0)
		return dwarf_err(b, parent);
	while (r == 0) {
		err = scan_die(b, &c, top);
		if (err)
			return err;
		r = dwarf_siblingof(&c, &c);
	}
	if (r < 0)
		return dwarf_err(b, parent);
	return 0;
}

static struct Dwarf_CU *cudie_cu(const struct enc_batch *b)
{
	return b->cu;
}

/*
 * The CU-relative offset of a reference.  dwarf_formref() is deprecated in
 * favour of dwarf_formref_die(), but that one finds the unit of the target
 * through a locked tree search on every call, and a CU-local reference
 * (DW_FORM_ref1..8, ref_udata: nearly all of them) needs no search.
 */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
static int local_ref(Dwarf_Attribute *a, Dwarf_Off *ref)
{
	return dwarf_formref(a, ref);
}
#pragma GCC diagnostic pop

static const struct cu_ent *find_ent(const struct enc_batch *b, Dwarf_Off off)
{
	size_t lo = 0, hi = b->nents;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (b->ents[mid].off < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < b->nents && b->ents[lo].off == off ? &b->ents[lo] : NULL;
}

/*
 * The BTF id of DIE's DW_AT_type (0 for void).  Aliases (_Atomic, which BTF
 * has no kind for) resolve to what they qualify.  A reference to a DIE that
 * is not a type of this CU is bad DWARF.
 */
static int type_id(struct enc_batch *b, Dwarf_Die *die, bool integrate, uint32_t *id);

/* The BTF id that DW_AT_type attribute A (of DIE) refers to. */
static int attr_type_id(struct enc_batch *b, Dwarf_Attribute *a, Dwarf_Die *die,
			uint32_t *id)
{
	const struct cu_ent *e;
	Dwarf_Off ref, off;
	Dwarf_Die t;

	*id = 0;
	/* CU-local forms need no DIE lookup, the common and fast case. */
	if (a->cu == cudie_cu(b) && local_ref(a, &ref) == 0) {
		off = b->cu_start + ref;
	} else {
		if (!dwarf_formref_die(a, &t))
			return dwarf_err(b, die);
		off = dwarf_dieoffset(&t);
	}
	e = find_ent(b, off);
	if (!e)
		return enc_batch__err(b, -EINVAL,
			"DIE 0x%llx refers to 0x%llx, not a type of its unit",
			(unsigned long long)dwarf_dieoffset(die), (unsigned long long)off);
	if (e->nids) {
		*id = e->id;
		return 0;
	}
	t = e->die;
	if (dwarf_tag(&t) == DW_TAG_unspecified_type)
		return 0;
	if (++b->alias_depth > MAX_ALIAS_DEPTH)
		return enc_batch__err(b, -ELOOP, "DIE 0x%llx: type alias loop",
				      (unsigned long long)dwarf_dieoffset(die));
	return type_id(b, &t, false, id);
}

static int type_id(struct enc_batch *b, Dwarf_Die *die, bool integrate, uint32_t *id)
{
	Dwarf_Attribute a;
	int err;

	*id = 0;
	if (!(integrate ? dwarf_attr_integrate(die, DW_AT_type, &a)
			: dwarf_attr(die, DW_AT_type, &a)))
		return 0;
	err = attr_type_id(b, &a, die, id);
	b->alias_depth = 0;
	return err;
}

/* The attributes of one DIE, read in a single pass (dwarf_attr rescans). */
enum { DA_NAME, DA_TYPE, DA_DATA_BIT_OFFSET, DA_MEMBER_LOC, DA_BIT_OFFSET,
       DA_BIT_SIZE, DA_BYTE_SIZE, DA_CONST_VALUE, DA_NR };

struct die_attrs {
	Dwarf_Attribute a[DA_NR];
	unsigned int has;
	bool skip;		/* DW_AT_external or DW_AT_declaration */
};

static int collect_attr(Dwarf_Attribute *attr, void *arg)
{
	struct die_attrs *da = arg;
	int i;

	switch (dwarf_whatattr(attr)) {
	case DW_AT_name: i = DA_NAME; break;
	case DW_AT_type: i = DA_TYPE; break;
	case DW_AT_data_bit_offset: i = DA_DATA_BIT_OFFSET; break;
	case DW_AT_data_member_location: i = DA_MEMBER_LOC; break;
	case DW_AT_bit_offset: i = DA_BIT_OFFSET; break;
	case DW_AT_bit_size: i = DA_BIT_SIZE; break;
	case DW_AT_byte_size: i = DA_BYTE_SIZE; break;
	case DW_AT_const_value: i = DA_CONST_VALUE; break;
	case DW_AT_external: case DW_AT_declaration:
		da->skip = true;
		return DWARF_CB_OK;
	default:
		return DWARF_CB_OK;
	}
	da->a[i] = *attr;
	da->has |= 1u << i;
	return DWARF_CB_OK;
}

static int die_attrs__read(Dwarf_Die *die, struct die_attrs *da)
{
	da->has = 0;
	da->skip = false;
	/* 1: every attribute seen; -1: bad DWARF */
	return dwarf_getattrs(die, collect_attr, da, 0) == 1 ? 0 : -1;
}

static uint64_t da_udata(struct die_attrs *da, int i, uint64_t dflt)
{
	Dwarf_Word w;

	if (!(da->has & (1u << i)) || dwarf_formudata(&da->a[i], &w))
		return dflt;
	return w;
}

static int64_t udata(Dwarf_Die *die, int name, int64_t dflt)
{
	Dwarf_Attribute a;
	Dwarf_Word w;

	if (!dwarf_attr(die, name, &a) || dwarf_formudata(&a, &w))
		return dflt;
	return (int64_t)w;
}

static bool flag(Dwarf_Die *die, int name)
{
	Dwarf_Attribute a;
	bool v = false;

	return dwarf_attr(die, name, &a) && !dwarf_formflag(&a, &v) && v;
}

static int btf_ret(struct enc_batch *b, Dwarf_Die *die, int id)
{
	if (id >= 0)
		return 0;
	return enc_batch__err(b, id, "DIE 0x%llx: cannot add BTF type: %s",
			      (unsigned long long)dwarf_dieoffset(die), strerror(-id));
}

/*
 * Interning a name in the BTF string table hashes and compares it; a batch
 * adds the same few hundred thousand names millions of times (every CU
 * repeats its headers' members).  Names in .debug_str are one pointer per
 * distinct string, so a batch maps that pointer to its string offset once.
 */
static uint32_t ptr_hash(const void *p)
{
	uint64_t v = (uintptr_t)p;

	return (uint32_t)((v * 0x9E3779B97F4A7C15ull) >> 32);
}

/*
 * At most this many slots (4 MB of keys, 2 MB of offsets).  A module's
 * .debug_str is not merged across its units, so each unit's names are
 * pointers of their own: mlx5_core.ko's would take 1M entries, 37 MB at
 * the encoder's peak, for no hit across units.  A full cache at this size
 * is emptied instead of grown; it only saves lookups, never changes an
 * offset (btf__add_str returns the same one for the same string).
 */
#define STR_CACHE_MAX	(1u << 19)

static int str_cache_grow(struct enc_batch *b)
{
	size_t cap = b->str_cap ? b->str_cap * 2 : 1 << 14, i, slot;

	if (b->str_cap >= STR_CACHE_MAX) {
		memset(b->str_keys, 0, b->str_cap * sizeof(*b->str_keys));
		b->str_n = 0;
		return 0;
	}
	const char **keys = calloc(cap, sizeof(*keys));
	uint32_t *offs = malloc(cap * sizeof(*offs));

	if (!keys || !offs) {
		free(keys);
		free(offs);
		return -ENOMEM;
	}
	for (i = 0; i < b->str_cap; i++) {
		if (!b->str_keys[i])
			continue;
		slot = ptr_hash(b->str_keys[i]) & (cap - 1);
		while (keys[slot])
			slot = (slot + 1) & (cap - 1);
		keys[slot] = b->str_keys[i];
		offs[slot] = b->str_offs[i];
	}
	free(b->str_keys);
	free(b->str_offs);
	b->str_keys = keys;
	b->str_offs = offs;
	b->str_cap = cap;
	return 0;
}

/* The string offset of name attribute A in b->btf; 0 for no name. */
static int name_off(struct enc_batch *b, Dwarf_Attribute *a)
{
	const char *name = a ? dwarf_formstring(a) : NULL;
	unsigned int form;
	size_t slot;
	int off;

	if (!name || !*name)
		return 0;
	form = dwarf_whatform(a);
	if (form == DW_FORM_string)	/* inline in the DIE: no identity */
		return btf__add_str(b->btf, name);
	if (b->str_n * 2 >= b->str_cap && str_cache_grow(b))
		return -ENOMEM;
	slot = ptr_hash(name) & (b->str_cap - 1);
	while (b->str_keys[slot]) {
		if (b->str_keys[slot] == name)
			return b->str_offs[slot];
		slot = (slot + 1) & (b->str_cap - 1);
	}
	off = btf__add_str(b->btf, name);
	if (off < 0)
		return off;
	b->str_keys[slot] = name;
	b->str_offs[slot] = off;
	b->str_n++;
	return off;
}

/* Set the name of the last member/enumerator/param of type ID. */
static void set_last_name(struct enc_batch *b, int id, int off)
{
	struct btf_type *t = (struct btf_type *)btf__type_by_id(b->btf, id);
	int i = btf_vlen(t) - 1;

	switch (btf_kind(t)) {
	case BTF_KIND_STRUCT: case BTF_KIND_UNION:
		btf_members(t)[i].name_off = off;
		break;
	case BTF_KIND_ENUM:
		btf_enum(t)[i].name_off = off;
		break;
	case BTF_KIND_ENUM64:
		btf_enum64(t)[i].name_off = off;
		break;
	case BTF_KIND_FUNC_PROTO:
		btf_params(t)[i].name_off = off;
		break;
	default:
		break;
	}
}

static void set_type_name(struct enc_batch *b, int id, int off)
{
	((struct btf_type *)btf__type_by_id(b->btf, id))->name_off = off;
}

static int emit_base(struct enc_batch *b, Dwarf_Die *die)
{
	int enc = udata(die, DW_AT_encoding, 0);
	int64_t size = udata(die, DW_AT_byte_size, 0);
	const char *name = dwarf_diename(die);
	int flags = 0;

	if (!name)
		name = "";
	if (!base_size_ok(size))
		return btf_ret(b, die, btf__add_int(b->btf, "__SANITIZED_FAKE_INT__", 4, 0));
	if (enc == DW_ATE_float && (b->ctx->feats & BTF_FEAT_FLOAT))
		return btf_ret(b, die, btf__add_float(b->btf, name, size));
	if (enc == DW_ATE_signed || enc == DW_ATE_signed_char)
		flags = BTF_INT_SIGNED;
	else if (enc == DW_ATE_boolean)
		flags = BTF_INT_BOOL;
	return btf_ret(b, die, btf__add_int(b->btf, name, size, flags));
}

static int emit_ptr(struct enc_batch *b, Dwarf_Die *die, const struct cu_ent *e)
{
	uint32_t target, id = e->id;
	Dwarf_Die c;
	int err;

	err = type_id(b, die, false, &target);
	if (err)
		return err;
	/* PTR -> last tag -> ... -> first tag -> target, as pahole does. */
	err = btf__add_ptr(b->btf, e->nids > 1 ? id + e->nids - 1 : target);
	if (err < 0 || e->nids == 1)
		return btf_ret(b, die, err);
	if (dwarf_child(die, &c))
		return dwarf_err(b, die);
	do {
		const char *v = annotation(&c, "btf_type_tag");

		if (!v)
			continue;
		err = btf__add_type_tag(b->btf, v, target);
		if (err < 0)
			return btf_ret(b, die, err);
		target = err;
	} while (dwarf_siblingof(&c, &c) == 0);
	return 0;
}

/*
 * An array bound, -1 if absent or not a constant.  Only DW_FORM_sdata is
 * signed: libdw sign-extends data1..data8, which would make 200 negative.
 */
static int64_t bound(Dwarf_Die *die, int name)
{
	Dwarf_Attribute a;
	Dwarf_Sword s;
	Dwarf_Word u;

	if (!dwarf_attr(die, name, &a))
		return -1;
	if (dwarf_whatform(&a) == DW_FORM_sdata)
		return dwarf_formsdata(&a, &s) ? -1 : s;
	if (dwarf_whatform(&a) == DW_FORM_ref4 || dwarf_whatform(&a) == DW_FORM_exprloc)
		return -1;
	return dwarf_formudata(&a, &u) || (int64_t)u < 0 ? -1 : (int64_t)u;
}

/* pahole 1.24 encodes T a[2][3] as one ARRAY of 6 T. */
static int emit_array(struct enc_batch *b, Dwarf_Die *die)
{
	uint64_t nelems = 1;
	uint32_t elem;
	Dwarf_Die c;
	int err;

	err = type_id(b, die, false, &elem);
	if (err)
		return err;
	if (dwarf_child(die, &c) == 0) {
		do {
			int64_t n;

			if (dwarf_tag(&c) != DW_TAG_subrange_type)
				continue;
			n = bound(&c, DW_AT_count);
			if (n < 0) {
				n = bound(&c, DW_AT_upper_bound);
				n = n < 0 ? 0 : n + 1 - udata(&c, DW_AT_lower_bound, 0);
			}
			nelems *= (uint64_t)n;
		} while (dwarf_siblingof(&c, &c) == 0);
	} else {
		nelems = 0;
	}
	return btf_ret(b, die, btf__add_array(b->btf, b->int_id, elem, (uint32_t)nelems));
}

static uint64_t member_bit_offset(struct die_attrs *da)
{
	Dwarf_Word w;
	Dwarf_Op *ops;
	size_t nops;
	uint64_t off = 0;

	if (da->has & (1u << DA_DATA_BIT_OFFSET))
		return da_udata(da, DA_DATA_BIT_OFFSET, 0);
	if (da->has & (1u << DA_MEMBER_LOC)) {
		if (dwarf_formudata(&da->a[DA_MEMBER_LOC], &w) == 0)
			off = w * 8;
		else if (dwarf_getlocation(&da->a[DA_MEMBER_LOC], &ops, &nops) == 0 &&
			 nops == 1 && ops[0].atom == DW_OP_plus_uconst)
			off = ops[0].number * 8;
	}
	/* DWARF 2-4 bitfields count DW_AT_bit_offset from the storage unit's MSB. */
	if (da->has & (1u << DA_BIT_OFFSET)) {
		w = da_udata(da, DA_BIT_OFFSET, 0);
		off += da_udata(da, DA_BYTE_SIZE, 0) * 8 - w - da_udata(da, DA_BIT_SIZE, 0);
	}
	return off;
}

static int emit_struct(struct enc_batch *b, Dwarf_Die *die, int tag)
{
	const char *name = dwarf_diename(die);
	bool is_union = tag == DW_TAG_union_type;
	Dwarf_Attribute na;
	Dwarf_Die c;
	int err, id;

	if (flag(die, DW_AT_declaration))
		return btf_ret(b, die, btf__add_fwd(b->btf, name ? name : "",
				       is_union ? BTF_FWD_UNION : BTF_FWD_STRUCT));
	err = is_union ? btf__add_union(b->btf, NULL, udata(die, DW_AT_byte_size, 0))
		       : btf__add_struct(b->btf, NULL, udata(die, DW_AT_byte_size, 0));
	if (err < 0)
		return btf_ret(b, die, err);
	id = err;
	err = name_off(b, dwarf_attr(die, DW_AT_name, &na));
	if (err < 0)
		return btf_ret(b, die, err);
	set_type_name(b, id, err);
	if (dwarf_child(die, &c))
		return 0;
	do {
		struct die_attrs da;
		uint32_t t = 0;

		if (dwarf_tag(&c) != DW_TAG_member)
			continue;
		if (die_attrs__read(&c, &da))
			return dwarf_err(b, &c);
		if (da.skip)
			continue;
		if (da.has & (1u << DA_TYPE)) {
			err = attr_type_id(b, &da.a[DA_TYPE], &c, &t);
			b->alias_depth = 0;
			if (err)
				return err;
		}
		err = btf__add_field(b->btf, NULL, t, member_bit_offset(&da),
				     da_udata(&da, DA_BIT_SIZE, 0));
		if (err < 0)
			return btf_ret(b, &c, err);
		err = name_off(b, (da.has & (1u << DA_NAME)) ? &da.a[DA_NAME] : NULL);
		if (err < 0)
			return btf_ret(b, &c, err);
		set_last_name(b, id, err);
	} while (dwarf_siblingof(&c, &c) == 0);
	return 0;
}

static bool enum_is_signed(Dwarf_Die *die)
{
	Dwarf_Attribute a;
	Dwarf_Die t;
	int enc;

	if (!dwarf_attr(die, DW_AT_type, &a) || !dwarf_formref_die(&a, &t))
		return false;
	while (dwarf_tag(&t) == DW_TAG_typedef || dwarf_tag(&t) == DW_TAG_const_type) {
		if (!dwarf_attr(&t, DW_AT_type, &a) || !dwarf_formref_die(&a, &t))
			return false;
	}
	enc = udata(&t, DW_AT_encoding, 0);
	return enc == DW_ATE_signed || enc == DW_ATE_signed_char;
}

/* An enumerator's value: sign-extend the fixed-size forms of signed enums. */
static int64_t enumerator_value(Dwarf_Die *c, bool is_signed, int size)
{
	Dwarf_Attribute a;
	Dwarf_Word u = 0;
	Dwarf_Sword s = 0;

	if (!dwarf_attr(c, DW_AT_const_value, &a))
		return 0;
	if (dwarf_whatform(&a) == DW_FORM_sdata) {
		dwarf_formsdata(&a, &s);
		return s;
	}
	dwarf_formudata(&a, &u);
	if (is_signed && size > 0 && size < 8 && (u >> (size * 8 - 1)) & 1)
		u |= ~0ULL << (size * 8);
	return (int64_t)u;
}

static int emit_enum(struct enc_batch *b, Dwarf_Die *die)
{
	const char *name = dwarf_diename(die);
	int64_t size = udata(die, DW_AT_byte_size, 4);
	bool is_signed = enum_is_signed(die);
	bool is64 = size > 4 && (b->ctx->feats & BTF_FEAT_ENUM64);
	Dwarf_Attribute na;
	Dwarf_Die c;
	int err, id;

	if (is64)
		err = btf__add_enum64(b->btf, name, size, is_signed);
	else
		err = btf__add_enum(b->btf, name, size);
	if (err < 0 || dwarf_child(die, &c))
		return btf_ret(b, die, err);
	id = err;
	do {
		int64_t v;

		if (dwarf_tag(&c) != DW_TAG_enumerator)
			continue;
		v = enumerator_value(&c, is_signed, size);
		/*
		 * Without ENUM64 pahole 1.24 encodes as before signed enums
		 * existed: the low 32 bits, unsigned.
		 */
		if (!(b->ctx->feats & BTF_FEAT_ENUM64))
			v = (uint32_t)v;
		/* A placeholder name (libbpf wants one), then the cached one. */
		err = is64 ? btf__add_enum64_value(b->btf, "_", v)
			   : btf__add_enum_value(b->btf, "_", v);
		if (err < 0)
			return btf_ret(b, &c, err);
		err = name_off(b, dwarf_attr(&c, DW_AT_name, &na));
		if (err < 0)
			return btf_ret(b, &c, err);
		set_last_name(b, id, err);
	} while (dwarf_siblingof(&c, &c) == 0);
	return 0;
}

/*
 * FUNC_PROTO from DIE's formal parameters; NAMED gives them their names (a
 * function's, not a subroutine type's).  DW_AT_abstract_origin is followed
 * so out-of-line copies of inline functions get their names and types.
 */
static int emit_proto(struct enc_batch *b, Dwarf_Die *die, bool named)
{
	uint32_t ret, t;
	Dwarf_Attribute na;
	Dwarf_Die c;
	int err, id;

	err = type_id(b, die, named, &ret);
	if (err)
		return err;
	id = btf__add_func_proto(b->btf, ret);
	if (id < 0)
		return btf_ret(b, die, id);
	if (dwarf_child(die, &c))
		return id;
	do {
		int tag = dwarf_tag(&c);

		if (tag == DW_TAG_unspecified_parameters) {
			err = btf__add_func_param(b->btf, "", 0);
		} else if (tag == DW_TAG_formal_parameter) {
			err = type_id(b, &c, named, &t);
			if (err)
				return err;
			err = btf__add_func_param(b->btf, NULL, t);
			if (err >= 0 && named) {
				err = name_off(b, dwarf_attr_integrate(&c, DW_AT_name, &na));
				if (err >= 0)
					set_last_name(b, id, err);
			}
		} else {
			continue;
		}
		if (err < 0)
			return btf_ret(b, &c, err);
	} while (dwarf_siblingof(&c, &c) == 0);
	return id;
}

static int emit_ent(struct enc_batch *b, const struct cu_ent *e, Dwarf_Die *die)
{
	int tag = dwarf_tag(die);
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
		return emit_array(b, die);
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
	case DW_TAG_class_type:
		return emit_struct(b, die, tag);
	case DW_TAG_enumeration_type:
		return emit_enum(b, die);
	case DW_TAG_subroutine_type:
		err = emit_proto(b, die, false);
		return err < 0 ? err : 0;
	}
	err = type_id(b, die, false, &t);
	if (err)
		return err;
	switch (tag) {
	case DW_TAG_const_type:
		return btf_ret(b, die, btf__add_const(b->btf, t));
	case DW_TAG_volatile_type:
		return btf_ret(b, die, btf__add_volatile(b->btf, t));
	case DW_TAG_restrict_type:
		return btf_ret(b, die, btf__add_restrict(b->btf, t));
	case DW_TAG_typedef:
		return btf_ret(b, die, btf__add_typedef(b->btf, dwarf_diename(die), t));
	}
	return enc_batch__err(b, -EINVAL, "DIE 0x%llx: unexpected tag 0x%x",
			      (unsigned long long)e->off, tag);
}

/* clang's btf_decl_tag annotations on DIE (the BTF type ID), COMP = -1. */
static int emit_decl_tags(struct enc_batch *b, Dwarf_Die *die, uint32_t id, int comp)
{
	Dwarf_Die c;
	const char *v;
	int err;

	if (dwarf_child(die, &c))
		return 0;
	do {
		v = annotation(&c, "btf_decl_tag");
		if (!v)
			continue;
		err = btf__add_decl_tag(b->btf, v, id, comp);
		if (err < 0)
			return btf_ret(b, die, err);
	} while (dwarf_siblingof(&c, &c) == 0);
	return 0;
}

/* Decl tags of a struct/union/typedef/member: after all of the CU's types. */
static int emit_type_decl_tags(struct enc_batch *b, const struct cu_ent *e, Dwarf_Die *die)
{
	int tag = dwarf_tag(die), idx = 0, err;
	Dwarf_Die c;

	if (tag != DW_TAG_structure_type && tag != DW_TAG_union_type &&
	    tag != DW_TAG_typedef)
		return 0;
	if (tag != DW_TAG_typedef && dwarf_child(die, &c) == 0) {
		do {
			if (dwarf_tag(&c) != DW_TAG_member)
				continue;
			err = emit_decl_tags(b, &c, e->id, idx++);
			if (err)
				return err;
		} while (dwarf_siblingof(&c, &c) == 0);
	}
	return emit_decl_tags(b, die, e->id, -1);
}

/* pahole 1.24: every parameter must be named, else no FUNC. */
static bool params_named(Dwarf_Die *die)
{
	Dwarf_Attribute a;
	Dwarf_Die c;

	if (dwarf_child(die, &c))
		return true;
	do {
		if (dwarf_tag(&c) == DW_TAG_formal_parameter &&
		    !dwarf_attr_integrate(&c, DW_AT_name, &a))
			return false;
	} while (dwarf_siblingof(&c, &c) == 0);
	return true;
}

/*
 * consistent_func / optimized_func compare a function's definitions the way
 * pahole (1.27) does: same number of parameters, and return and parameter
 * types that match by kind and name along their chains, CONST ignored (a
 * "const char *" parameter matches a "char *" one), structs, unions,
 * enums and typedefs by name only, a FWD like the struct it declares, and
 * function prototypes by parameter count and return type only.  Each
 * definition is reduced to a 64-bit hash of exactly that, so definitions
 * in different batches compare without holding their BTF.
 */
static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;

	while (n--)
		h = (h ^ *c++) * 1099511628211ull;
	return h;
}

static uint64_t fnv_u32(uint64_t h, uint32_t v)
{
	return fnv(h, &v, sizeof(v));
}

static uint64_t fnv_name(uint64_t h, const struct btf *btf, const struct btf_type *t)
{
	const char *n = btf__name_by_offset(btf, t->name_off);

	return n ? fnv(h, n, strlen(n) + 1) : fnv_u32(h, 0);
}

static uint64_t type_sig(const struct btf *btf, uint32_t id, uint64_t h)
{
	const struct btf_type *t;
	int kind, depth;

	for (depth = 0; depth < 64; depth++) {
		if (!id)
			return fnv_u32(h, 0);
		t = btf__type_by_id(btf, id);
		if (!t)
			return fnv_u32(h, ~0u);
		kind = btf_kind(t);
		if (kind == BTF_KIND_FWD)
			kind = btf_kflag(t) ? BTF_KIND_UNION : BTF_KIND_STRUCT;
		if (kind == BTF_KIND_CONST) {
			id = t->type;
			continue;
		}
		h = fnv_u32(h, kind + 1);
		switch (kind) {
		case BTF_KIND_INT:
			h = fnv_u32(fnv_u32(h, t->size), *(const uint32_t *)(t + 1));
			return fnv_name(h, btf, t);
		case BTF_KIND_FLOAT:
			return fnv_name(fnv_u32(h, t->size), btf, t);
		case BTF_KIND_TYPEDEF: case BTF_KIND_STRUCT: case BTF_KIND_UNION:
		case BTF_KIND_ENUM: case BTF_KIND_ENUM64:
			return fnv_name(h, btf, t);
		case BTF_KIND_PTR: case BTF_KIND_VOLATILE: case BTF_KIND_RESTRICT:
		case BTF_KIND_TYPE_TAG:
			id = t->type;
			break;
		case BTF_KIND_ARRAY:
			h = fnv_u32(h, btf_array(t)->nelems);
			id = btf_array(t)->type;
			break;
		case BTF_KIND_FUNC_PROTO:
			/* pahole compares a prototype's return type, not its parameters */
			h = fnv_u32(h, btf_vlen(t));
			id = t->type;
			break;
		default:
			return h;
		}
	}
	return h;
}

/* x86_64 and aarch64 pass the first parameters in these DWARF registers. */
static int param_regs(const struct enc_ctx *ctx, const uint8_t **regs)
{
	static const uint8_t x86_64[] = { DW_OP_reg5, DW_OP_reg4, DW_OP_reg1,
					  DW_OP_reg2, DW_OP_reg8, DW_OP_reg9 };
	static const uint8_t arm64[] = { DW_OP_reg0, DW_OP_reg1, DW_OP_reg2, DW_OP_reg3,
					 DW_OP_reg4, DW_OP_reg5, DW_OP_reg6, DW_OP_reg7 };

	switch (ctx->ef.ehdr.e_machine) {
	case EM_X86_64:
		*regs = x86_64;
		return sizeof(x86_64);
	case EM_AARCH64:
		*regs = arm64;
		return sizeof(arm64);
	default:
		return 0;
	}
}

/* A parameter whose first location is a register other than its own. */
static bool param_unexpected_reg(Dwarf_Die *parm, int expected)
{
	Dwarf_Addr base, start, end;
	Dwarf_Attribute a;
	Dwarf_Op *expr;
	size_t len;

	if (!dwarf_attr(parm, DW_AT_location, &a) ||
	    dwarf_getlocations(&a, 0, &base, &start, &end, &expr, &len) <= 0 || !len)
		return false;
	return expr[0].atom >= DW_OP_reg0 && expr[0].atom <= DW_OP_reg31 &&
	       expr[0].atom != expected;
}

/* A parameter of struct type (through typedefs and const) spans registers. */
static bool param_is_struct(Dwarf_Die *parm)
{
	Dwarf_Attribute a;
	Dwarf_Die t;
	int i;

	if (!dwarf_attr_integrate(parm, DW_AT_type, &a) || !dwarf_formref_die(&a, &t))
		return false;
	for (i = 0; i < MAX_ALIAS_DEPTH; i++) {
		switch (dwarf_tag(&t)) {
		case DW_TAG_structure_type:
			return true;
		case DW_TAG_const_type:
		case DW_TAG_typedef:
			if (!dwarf_attr(&t, DW_AT_type, &a) || !dwarf_formref_die(&a, &t))
				return false;
			break;
		default:
			return false;
		}
	}
	return false;
}

/*
 * What pahole records of a definition before deciding on its FUNC: the
 * prototype's hash, and whether the compiler moved a register parameter
 * (unless a struct parameter makes the register mapping unknowable).
 */
static int func_sig(struct enc_batch *b, Dwarf_Die *die, struct enc_fsig *out)
{
	const uint8_t *regs;
	int nregs = param_regs(b->ctx, &regs), i = 0, err;
	bool unexpected = false, has_struct = false;
	uint64_t h = 14695981039346656037ull;
	uint32_t t;
	Dwarf_Die c;

	err = type_id(b, die, true, &t);
	if (err)
		return err;
	h = type_sig(b->btf, t, h);
	if (dwarf_child(die, &c) == 0) {
		do {
			int tag = dwarf_tag(&c);

			if (tag == DW_TAG_unspecified_parameters) {
				h = type_sig(b->btf, 0, h);
				i++;
				continue;
			}
			if (tag != DW_TAG_formal_parameter)
				continue;
			err = type_id(b, &c, true, &t);
			if (err)
				return err;
			h = type_sig(b->btf, t, h);
			if (i < nregs && param_unexpected_reg(&c, regs[i]))
				unexpected = true;
			has_struct |= param_is_struct(&c);
			i++;
		} while (dwarf_siblingof(&c, &c) == 0);
	}
	out->sig = fnv_u32(h, i);
	out->flags = FSIG_SEEN | (unexpected && !has_struct ? FSIG_UNEXPECTED : 0);
	return 0;
}

/* Fold one definition's observations into what the batch knows of IDX. */
static void fsig_merge(struct enc_fsig *into, const struct enc_fsig *s)
{
	if (!(into->flags & FSIG_SEEN)) {
		*into = *s;
		return;
	}
	into->flags |= s->flags & FSIG_UNEXPECTED;
	if (into->sig != s->sig)
		into->flags |= FSIG_MISMATCH;
}

/*
 * Which function symbol a definition named NAME gets a FUNC for, and
 * whether its FUNC waits for every CU's verdict (*SAVED): with
 * consistent_func, every function; with optimized_func, a function known
 * only by a clone's symbol (foo.isra.0), whose FUNC is named foo.  Else
 * the first definition wins, as in pahole 1.24.  -1: no FUNC.
 */
static int func_slot(const struct enc_batch *b, const char *name, bool *saved)
{
	const struct enc_ctx *ctx = b->ctx;
	int idx = enc_ctx__func(ctx, name);

	*saved = false;
	if (idx >= 0) {
		*saved = ctx->feats & BTF_FEAT_CONSISTENT_FUNC;
		return idx;
	}
	if (!ctx->has_suffix || !(ctx->feats & BTF_FEAT_OPTIMIZED_FUNC))
		return -1;
	idx = enc_ctx__func_prefix(ctx, name);
	*saved = idx >= 0;
	return idx;
}

/*
 * A FUNC for a defined function with an ELF symbol of its name, the first
 * such definition only (pahole 1.24's rule); without any function symbols
 * (a stripped file), every external function.  A saved function's
 * definitions are all looked at; the FUNC is the first one's, and the
 * encoder drops it at the end if they disagree (encode.c).
 */
static int emit_func(struct enc_batch *b, Dwarf_Die *die)
{
	const struct enc_ctx *ctx = b->ctx;
	const char *name;
	Dwarf_Attribute a;
	int idx = -1, proto, id, err, i = 0;
	bool saved = false;
	Dwarf_Die c;

	if (flag(die, DW_AT_declaration))
		return 0;
	name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &a));
	if (!name || !params_named(die))
		return 0;
	if (ctx->nfuncs) {
		idx = func_slot(b, name, &saved);
		if (idx < 0)
			return 0;
		if (saved && b->fsig) {
			struct enc_fsig s;

			err = func_sig(b, die, &s);
			if (err)
				return err;
			fsig_merge(&b->fsig[idx], &s);
		}
		if (b->func_done[idx])
			return 0;
	} else if (!flag(die, DW_AT_external)) {
		return 0;
	}
	proto = emit_proto(b, die, true);
	if (proto < 0)
		return proto;
	id = btf__add_func(b->btf, name, BTF_FUNC_STATIC, proto);
	if (id < 0)
		return btf_ret(b, die, id);
	if (idx >= 0)
		b->func_done[idx] = 1;
	if (!b->decl_tags)
		return 0;
	err = emit_decl_tags(b, die, id, -1);
	if (err || dwarf_child(die, &c))
		return err;
	do {
		if (dwarf_tag(&c) != DW_TAG_formal_parameter)
			continue;
		err = emit_decl_tags(b, &c, id, i++);
		if (err)
			return err;
	} while (dwarf_siblingof(&c, &c) == 0);
	return 0;
}

/* DW_OP_addr of a variable's location, if that is all it is. */
static bool var_addr(Dwarf_Die *die, uint64_t *addr)
{
	Dwarf_Attribute a;
	Dwarf_Op *ops;
	size_t nops;

	Dwarf_Attribute ax;
	Dwarf_Addr v;

	if (!dwarf_attr(die, DW_AT_location, &a) ||
	    dwarf_getlocation(&a, &ops, &nops) || nops != 1)
		return false;
	if (ops[0].atom == DW_OP_addr) {
		*addr = ops[0].number;
		return true;
	}
	/* DWARF 5 (clang): the address is in .debug_addr. */
	if ((ops[0].atom == DW_OP_addrx || ops[0].atom == DW_OP_GNU_addr_index) &&
	    dwarf_getlocation_attr(&a, &ops[0], &ax) == 0 && dwarf_formaddr(&ax, &v) == 0) {
		*addr = v;
		return true;
	}
	return false;
}

static const struct enc_pcpu *find_pcpu(const struct enc_ctx *ctx, uint64_t off)
{
	size_t lo = 0, hi = ctx->npcpu;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (ctx->pcpu[mid].off == off)
			return &ctx->pcpu[mid];
		if (ctx->pcpu[mid].off < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/*
 * pahole 1.28+: is there a .data..percpu object symbol NAME?  In ET_REL it
 * must sit at OFF (every section starts at 0 there, so the symbol is what
 * says the variable is in .data..percpu); elsewhere anywhere will do.
 */
static bool pcpu_has_name(const struct enc_ctx *ctx, const char *name, uint64_t off)
{
	size_t lo = 0, hi = ctx->npcpu, i;

	if (!ctx->is_rel) {
		for (i = 0; i < ctx->npcpu; i++)
			if (!strcmp(ctx->pcpu[i].name, name))
				return true;
		return false;
	}
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (ctx->pcpu[mid].off < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo; i < ctx->npcpu && ctx->pcpu[i].off == off; i++)
		if (!strcmp(ctx->pcpu[i].name, name))
			return true;
	return false;
}

/*
 * The type of a variable definition: its declaration's when it has one
 * (DW_AT_specification), as pahole takes it.  They differ for an array
 * declared without a size (extern struct node *node_devices[]): pahole then
 * sizes the variable 0 and leaves it out.
 */
static int var_type_id(struct enc_batch *b, Dwarf_Die *die, uint32_t *t)
{
	Dwarf_Attribute a;
	Dwarf_Die spec;

	if (dwarf_attr(die, DW_AT_specification, &a) && dwarf_formref_die(&a, &spec))
		return type_id(b, &spec, true, t);
	return type_id(b, die, true, t);
}

/* BTF's linkage of a variable DIE (or of its declaration). */
static int var_linkage(Dwarf_Die *die)
{
	Dwarf_Attribute a;

	return flag(die, DW_AT_external) ||
	       (dwarf_attr(die, DW_AT_specification, &a) &&
		dwarf_attr_integrate(die, DW_AT_external, &a))
	       ? BTF_VAR_GLOBAL_ALLOCATED : BTF_VAR_STATIC;
}

/* Add a VAR and its DATASEC slot (section SHNDX, OFF, SIZE). */
static int add_var(struct enc_batch *b, Dwarf_Die *die, const char *name, uint32_t t,
		   uint64_t off, uint32_t size, uint32_t shndx)
{
	int id = btf__add_var(b->btf, name, var_linkage(die), t);

	if (id < 0)
		return btf_ret(b, die, id);
	if (array__grow(&b->vars, &b->vars_cap, b->nvars + 1, sizeof(*b->vars), 64))
		return -ENOMEM;
	b->vars[b->nvars++] = (struct enc_var){ off, size, shndx };
	if (b->decl_tags)
		return emit_decl_tags(b, die, id, -1);
	return 0;
}

/*
 * pahole 1.24's per-CPU VAR: a global whose address is a sized
 * .data..percpu symbol of the same name (pahole compares names, since many
 * special variables share address 0 with the first per-CPU one).
 */
static int emit_pcpu_var_124(struct enc_batch *b, Dwarf_Die *die, uint64_t addr)
{
	const struct enc_ctx *ctx = b->ctx;
	const struct enc_pcpu *p;
	Dwarf_Attribute a;
	const char *name;
	uint32_t t;
	int err;

	addr -= b->pcpu_addr;
	p = find_pcpu(ctx, addr);
	/*
	 * Many special symbols share address 0 with a real variable, so the
	 * DWARF and ELF names must agree.  pahole 1.24 leaves vmlinux's
	 * variable at offset 0 (DEFINE_PER_CPU_FIRST's fixed_percpu_data) out.
	 */
	name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &a));
	if (!p || !name || strcmp(name, p->name) || (!addr && !ctx->is_rel))
		return 0;
	err = var_type_id(b, die, &t);
	if (err)
		return err;
	if (!t && !(ctx->feats & BTF_FEAT_ENCODE_FORCE))
		return enc_batch__err(b, -EINVAL, "variable '%s' has void type", name);
	if (!t)
		return 0;
	return add_var(b, die, name, t, p->off, p->size, ctx->pcpu_shndx);
}

/* The data section holding ADDR, as pahole looks: the first that does. */
static const struct enc_sec *find_sec(const struct enc_ctx *ctx, uint64_t addr)
{
	size_t i;

	for (i = 0; i < ctx->nsecs; i++)
		if (addr >= ctx->secs[i].addr && addr - ctx->secs[i].addr < ctx->secs[i].size)
			return &ctx->secs[i];
	return NULL;
}

/* Names pahole's global_var leaves out: compiler and macro plumbing. */
static bool var_name_filtered(const char *name)
{
	static const char *const skip[] = { "__UNIQUE_ID", "__tpstrtab_", "__exitcall_",
					    "__gendwarfksyms_ptr_",	/* since 1.30 */
					    "__func_stack_frame_non_standard_" };
	size_t i;

	for (i = 0; name[0] == '_' && i < sizeof(skip) / sizeof(skip[0]); i++)
		if (!strncmp(name, skip[i], strlen(skip[i])))
			return true;
	return false;
}

/*
 * global_var (pahole 1.28 to 1.30): a VAR for every top-level variable with
 * a static address in a PROGBITS/NOBITS section, in that section's
 * DATASEC at its offset OFF there, sized by its type.
 */
static int emit_global_var(struct enc_batch *b, Dwarf_Die *die, uint32_t shndx, uint64_t off)
{
	const struct enc_ctx *ctx = b->ctx;
	bool force = ctx->feats & BTF_FEAT_ENCODE_FORCE;
	Dwarf_Attribute a;
	const char *name;
	uint32_t t;
	__s64 size;
	int err;

	if (flag(die, DW_AT_artificial))
		return 0;
	name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &a));
	if (!name || var_name_filtered(name))
		return 0;
	/*
	 * Offset 0 is also where DWARF puts variables of discarded sections:
	 * pahole then wants a symbol of the name in the section.
	 */
	if (!off && !(ctx->has_pcpu && shndx == ctx->pcpu_shndx ? pcpu_has_name(ctx, name, 0)
							      : enc_ctx__obj_in(ctx, name, shndx)))
		return 0;
	if (!enc_name_valid(name)) {
		if (force)
			return 0;
		return enc_batch__err(b, -EINVAL, "variable '%s': not a valid BTF name", name);
	}
	err = var_type_id(b, die, &t);
	if (err)
		return err;
	if (!t && !force)
		return enc_batch__err(b, -EINVAL, "variable '%s' has void type", name);
	size = t ? btf__resolve_size(b->btf, t) : 0;
	if (size <= 0 || size > UINT32_MAX || off > UINT32_MAX)
		return 0;
	return add_var(b, die, name, t, off, (uint32_t)size, shndx);
}

/*
 * A VAR for a per-CPU variable.  pahole 1.28 and later treat it as any
 * other global whose address is inside .data..percpu (global_var's rule);
 * 1.24 wanted a sized symbol of the name at that offset.  In ET_REL the
 * symbol is what places it in .data..percpu at all (addresses start at 0
 * in every section), so it is needed there under both rules.
 */
static int emit_pcpu_var(struct enc_batch *b, Dwarf_Die *die, uint64_t addr)
{
	const struct enc_ctx *ctx = b->ctx;
	uint64_t off = addr - b->pcpu_addr;
	Dwarf_Attribute a;
	const char *name;

	if (ctx->opts->rules != BTF_RULES_PAHOLE_1_30)
		return emit_pcpu_var_124(b, die, addr);
	if (ctx->is_rel) {
		name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &a));
		if (!name || !pcpu_has_name(ctx, name, off))
			return 0;
	}
	return emit_global_var(b, die, ctx->pcpu_shndx, off);
}

static const struct enc_sec *sec_of_shndx(const struct enc_ctx *ctx, uint32_t shndx)
{
	size_t i;

	for (i = 0; i < ctx->nsecs; i++)
		if (ctx->secs[i].shndx == shndx)
			return &ctx->secs[i];
	return NULL;
}

/*
 * global_var in ET_REL, where every section starts at 0: the variable's
 * symbol names its section and offset.  Per-CPU ones keep the var rule.
 */
static int emit_rel_var(struct enc_batch *b, Dwarf_Die *die, uint64_t addr)
{
	const struct enc_ctx *ctx = b->ctx;
	const struct enc_obj *obj = NULL;
	const struct enc_sec *sec;
	Dwarf_Attribute a;
	const char *name;

	name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &a));
	if (name)
		obj = enc_ctx__obj(ctx, name, addr);
	if (ctx->has_pcpu && (obj ? obj->shndx == ctx->pcpu_shndx :
			      addr >= b->pcpu_addr && addr - b->pcpu_addr < ctx->pcpu_size))
		return emit_pcpu_var(b, die, addr);
	if (!obj)
		return 0;
	/*
	 * st_value is already the offset in the section; sh_addr is not
	 * always 0 in a module (6.12's .data: 0x40), and is no part of it.
	 */
	sec = sec_of_shndx(ctx, obj->shndx);
	if (!sec)
		return 0;
	return emit_global_var(b, die, sec->shndx, obj->off);
}

static int emit_var(struct enc_batch *b, Dwarf_Die *die)
{
	const struct enc_ctx *ctx = b->ctx;
	const struct enc_sec *sec;
	Dwarf_Attribute a;
	uint64_t addr;

	if (flag(die, DW_AT_declaration) && !dwarf_attr(die, DW_AT_specification, &a))
		return 0;
	if (!var_addr(die, &addr))
		return 0;
	if (ctx->is_rel && (ctx->feats & BTF_FEAT_GLOBAL_VAR))
		return emit_rel_var(b, die, addr);
	if (ctx->has_pcpu && addr >= b->pcpu_addr && addr - b->pcpu_addr < ctx->pcpu_size)
		return emit_pcpu_var(b, die, addr);
	if (!ctx->nsecs)
		return 0;
	sec = find_sec(ctx, addr);
	return sec ? emit_global_var(b, die, sec->shndx, addr - sec->addr) : 0;
}

static int emit_all(struct enc_batch *b)
{
	Dwarf_Die die;
	size_t i;
	int err;

	for (i = 0; i < b->nents; i++) {
		const struct cu_ent *e = &b->ents[i];

		if (!e->nids)
			continue;
		die = e->die;
		err = emit_ent(b, e, &die);
		if (err)
			return err;
		if (btf__type_cnt(b->btf) != e->id + e->nids)
			return enc_batch__err(b, -EINVAL,
				"DIE 0x%llx: BTF id drift", (unsigned long long)e->off);
	}
	if (b->decl_tags) {
		for (i = 0; i < b->nents; i++) {
			if (!b->ents[i].nids)
				continue;
			die = b->ents[i].die;
			err = emit_type_decl_tags(b, &b->ents[i], &die);
			if (err)
				return err;
		}
	}
	return 0;
}

/* Only clang emits btf_decl_tag annotations: skip looking for them otherwise. */
static bool may_have_annotations(Dwarf_Die *cudie)
{
	Dwarf_Attribute a;
	const char *p = dwarf_formstring(dwarf_attr(cudie, DW_AT_producer, &a));

	return !p || strstr(p, "clang");
}

int dcu__encode(struct enc_batch *b, Dwarf_Die *cudie)
{
	bool need_int;
	size_t i;
	int err;

	b->nents = b->nsubs = b->ngvars = 0;
	b->cu = cudie->cu;
	b->decl_tags = (b->ctx->feats & BTF_FEAT_DECL_TAG) && may_have_annotations(cudie);
	b->cu_start = dwarf_dieoffset(cudie) - dwarf_cuoffset(cudie);
	b->int_id = 0;
	b->has_array = false;
	b->next_id = btf__type_cnt(b->btf);
	err = scan_children(b, cudie, true);
	if (err)
		return err;
	/*
	 * pahole indexes every array by the first CU's "int"; a CU without one
	 * gets its own "int" after its types, the same type after dedup.
	 */
	need_int = !b->int_id && b->has_array;
	if (need_int)
		b->int_id = b->next_id;
	err = emit_all(b);
	if (err)
		return err;
	if (need_int) {
		err = btf__add_int(b->btf, "int", 4, BTF_INT_SIGNED);
		if (err < 0)
			return btf_ret(b, cudie, err);
	}
	for (i = 0; i < b->nsubs; i++) {
		err = emit_func(b, &b->subs[i]);
		if (err)
			return err;
	}
	for (i = 0; i < b->ngvars; i++) {
		err = emit_var(b, &b->gvars[i]);
		if (err)
			return err;
	}
	return 0;
}
