// SPDX-License-Identifier: GPL-2.0
/*
 * One compile unit's DIEs -> BTF types, read through lib/dwarf_die (a DIE
 * cursor of our own: every DIE and attribute of the 6.12 vmlinux read
 * through it takes 1.15 s, through libdw 2.46 s, bench/dwarfwalk), with
 * no intermediate tree.  Two walks: the first gives every type DIE its BTF id
 * (a DIE may refer to one defined later, and btf__add_field() must follow
 * its struct directly, so ids are known before anything is emitted); the
 * second revisits only the type DIEs and emits them in DIE order.  The
 * shapes follow pahole 1.24 so that, after dedup, the types are the same:
 * multi-dimensional arrays are one ARRAY of all elements, clang's
 * btf_type_tag annotations hang between a PTR and its target in reverse
 * order, FUNCs exist only for functions with an ELF symbol.
 *
 * Every value is read as libdw's dwarf_form* would read it (the outputs
 * are byte-identical to those of the libdw reader this replaced); libdw is
 * asked only for what the cursor leaves to it (-ENOTSUP: a location in
 * DW_FORM_loclistx, an address without DW_AT_addr_base), through the
 * worker's own Dwarf handle.
 */
#include <dwarf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>

#include "btf/encode_int.h"
#include "lib/array.h"
#include "lib/hash.h"

#define MAX_ALIAS_DEPTH 16

/* clang's tag for btf_type_tag/btf_decl_tag; elfutils 0.188 lacks the name. */
#ifndef DW_TAG_LLVM_annotation
#define DW_TAG_LLVM_annotation 0x6000
#endif

typedef struct dwarf_die die_t;

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

static int dwarf_err(struct enc_batch *b, const die_t *die, int err)
{
	return enc_batch__err(b, err == -ENOTSUP ? err : -EINVAL, "%s DWARF at DIE 0x%llx",
			      err == -ENOTSUP ? "unsupported" : "bad",
			      (unsigned long long)die->off);
}

/* --- the cursor, as the encoder uses it --- */

/* Attribute NAME of DIE (of the CU in hand): true if it has one. */
static bool attr(const struct enc_batch *b, const die_t *die, unsigned int name,
		 struct dwarf_attr *a)
{
	return dwarf_die__attr(b->u, die, name, a) > 0;
}

static bool attr_integrate(const struct enc_batch *b, const die_t *die, unsigned int name,
			   struct dwarf_attr *a)
{
	return dwarf_die__attr_integrate(b->u, die, name, a) > 0;
}

static const char *str_of(const struct enc_batch *b, const struct dwarf_attr *a)
{
	return dwarf_attr__string(b->u, a);
}

/* libdw's dwarf_diename: the name, through abstract origins and specifications. */
static const char *diename(const struct enc_batch *b, const die_t *die)
{
	struct dwarf_attr a;

	return attr_integrate(b, die, DW_AT_name, &a) ? str_of(b, &a) : NULL;
}

/* The DIE attribute A refers to, in this CU. */
static bool ref_die(const struct enc_batch *b, const struct dwarf_attr *a, die_t *t)
{
	uint64_t off;

	return !dwarf_attr__ref(b->u, a, &off) && !dwarf_die__offdie(b->u, off, t);
}

static int64_t udata(const struct enc_batch *b, const die_t *die, unsigned int name,
		     int64_t dflt)
{
	struct dwarf_attr a;
	uint64_t w;

	if (!attr(b, die, name, &a) || dwarf_attr__udata(b->u, &a, &w))
		return dflt;
	return (int64_t)w;
}

static bool flag(const struct enc_batch *b, const die_t *die, unsigned int name)
{
	struct dwarf_attr a;
	bool v = false;

	return attr(b, die, name, &a) && !dwarf_attr__flag(b->u, &a, &v) && v;
}

/*
 * Children of a DIE: for (r = first(b, d, &c); !r; r = next(b, &c)).  r > 0
 * at the end, < 0 on bad DWARF.
 */
static int first(const struct enc_batch *b, const die_t *die, die_t *c)
{
	return dwarf_die__child(b->u, die, c);
}

static int next(const struct enc_batch *b, die_t *c)
{
	return dwarf_die__sibling(b->u, c, c);
}

/*
 * The DIE as libdw sees it, for what lib/dwarf_die leaves to libdw: NULL
 * if libdw cannot find it either.
 */
static Dwarf_Die *libdw_die(const struct enc_batch *b, const die_t *die, Dwarf_Die *mem)
{
	return b->dbg ? dwarf_offdie(b->dbg, die->off, mem) : NULL;
}

static int add_die(die_t **v, size_t *n, size_t *cap, const die_t *die)
{
	if (array__grow(v, cap, *n + 1, sizeof(**v), 64))
		return -ENOMEM;
	(*v)[(*n)++] = *die;
	return 0;
}

/* Is DIE an LLVM annotation named KIND ("btf_type_tag", "btf_decl_tag")? */
static const char *annotation(const struct enc_batch *b, const die_t *die, const char *kind)
{
	struct dwarf_attr a;
	const char *name;

	if (dwarf_die__tag(die) != DW_TAG_LLVM_annotation)
		return NULL;
	name = diename(b, die);
	if (!name || strcmp(name, kind))
		return NULL;
	if (!attr(b, die, DW_AT_const_value, &a))
		return NULL;
	return str_of(b, &a);
}

static int count_type_tags(const struct enc_batch *b, const die_t *die)
{
	die_t c;
	int n = 0, r;

	for (r = first(b, die, &c); !r; r = next(b, &c))
		if (annotation(b, &c, "btf_type_tag"))
			n++;
	return n;
}

static int add_ent(struct enc_batch *b, const die_t *die, int nids)
{
	struct cu_ent *e;

	if (array__grow(&b->ents, &b->ents_cap, b->nents + 1, sizeof(*e), 64))
		return -ENOMEM;
	e = &b->ents[b->nents++];
	e->die = *die;
	e->id = nids ? b->next_id : 0;
	e->nids = nids;
	e->mfirst = -1;
	e->mcount = 0;
	b->next_id += nids;
	return 0;
}

static int scan_children(struct enc_batch *b, const die_t *parent, bool top,
			 uint64_t *last_param);
static int scan_struct(struct enc_batch *b, const die_t *die);

/*
 * A function, and where its last parameter is: its other children (locals,
 * blocks, call sites: most of them) are walked once, in the first walk, and
 * the walks over its parameters stop there.
 */
static int add_sub(struct enc_batch *b, const die_t *die)
{
	uint64_t last = 0;
	size_t i = b->nsubs;
	int err;

	if (array__grow(&b->subs, &b->subs_cap, b->nsubs + 1, sizeof(*b->subs), 64))
		return -ENOMEM;
	b->subs[b->nsubs++].die = *die;
	/* Nested functions (a GCC extension) may grow b->subs meanwhile. */
	err = scan_children(b, die, false, &last);
	b->subs[i].last_param = last;
	return err;
}

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
static int scan_die(struct enc_batch *b, const die_t *die, bool top)
{
	unsigned int feats = b->ctx->feats;
	unsigned int tag = dwarf_die__tag(die);
	int err;

	switch (tag) {
	case DW_TAG_base_type:
		if (!b->int_id) {
			const char *n = diename(b, die);

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
		return add_ent(b, die, 1 + ((feats & BTF_FEAT_TYPE_TAG) ? count_type_tags(b, die) : 0));
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
	case DW_TAG_class_type:
		err = add_ent(b, die, 1);
		return err ? err : scan_struct(b, die);
	case DW_TAG_atomic_type:
	case DW_TAG_unspecified_type:
		return add_ent(b, die, 0);
	case DW_TAG_subprogram:
		return add_sub(b, die);
	/*
	 * Local types live under their function or lexical block; inlined
	 * copies point at the abstract instance's, so their (many, deeply
	 * nested) DIEs are not walked.
	 */
	case DW_TAG_lexical_block:
	case DW_TAG_namespace:
		return scan_children(b, die, false, NULL);
	case DW_TAG_variable:
		if (top && (feats & (BTF_FEAT_VAR | BTF_FEAT_GLOBAL_VAR)))
			return add_die(&b->gvars, &b->ngvars, &b->gvars_cap, die);
		return 0;
	default:
		return 0;
	}
}

/*
 * Nesting deeper than this (lexical blocks in lexical blocks...) is refused
 * rather than recursed into: GCC's and clang's kernels stay under 20.
 */
#define MAX_NESTING 512

/* LAST_PARAM (may be NULL) gets the offset of the last parameter child. */
static int scan_children(struct enc_batch *b, const die_t *parent, bool top,
			 uint64_t *last_param)
{
	unsigned int tag;
	die_t c;
	int r, err = 0;

	if (++b->depth > MAX_NESTING)
		return enc_batch__err(b, -ELOOP, "DIE 0x%llx: nested too deep",
				      (unsigned long long)parent->off);
	for (r = first(b, parent, &c); !r && !err; r = next(b, &c)) {
		tag = dwarf_die__tag(&c);
		if (last_param && (tag == DW_TAG_formal_parameter ||
				   tag == DW_TAG_unspecified_parameters))
			*last_param = c.off;
		err = scan_die(b, &c, top);
	}
	b->depth--;
	if (err)
		return err;
	return r < 0 ? dwarf_err(b, parent, r) : 0;
}

/*
 * A struct's children, its members kept in b->members for the second
 * walk, which then reads them without stepping again over every DIE in
 * between.  When a nested type's members come between them (C++ nests
 * types in classes), its second walk walks the children again instead.
 */
static int scan_struct(struct enc_batch *b, const die_t *die)
{
	size_t ei = b->nents - 1, m0 = b->nmembers, before;
	bool kept = true;
	die_t c;
	int r, err = 0;

	if (++b->depth > MAX_NESTING)
		return enc_batch__err(b, -ELOOP, "DIE 0x%llx: nested too deep",
				      (unsigned long long)die->off);
	for (r = first(b, die, &c); !r && !err; r = next(b, &c)) {
		if (dwarf_die__tag(&c) == DW_TAG_member) {
			if (kept)
				err = add_die(&b->members, &b->nmembers, &b->members_cap, &c);
			continue;	/* no types below a member */
		}
		before = b->nmembers;
		err = scan_die(b, &c, false);
		if (b->nmembers != before)
			kept = false;
	}
	b->depth--;
	if (err)
		return err;
	if (r < 0)
		return dwarf_err(b, die, r);
	if (kept && m0 <= INT32_MAX && b->nmembers - m0 <= UINT32_MAX) {
		b->ents[ei].mfirst = (int32_t)m0;
		b->ents[ei].mcount = (uint32_t)(b->nmembers - m0);
	}
	return 0;
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

/*
 * The CU's type DIEs by offset: lib/hashmap over indexes into
 * b->ents, built once the first walk has them all.  A binary search over
 * the entries was a twentieth of all the encoder's instructions (a
 * reference per member, parameter and qualifier, each a cache miss).
 */
static int index_ents(struct enc_batch *b)
{
	size_t i;
	int err = hashmap__reset(&b->ent_map, b->nents);

	/* DIE offsets are unique: each is added without a lookup */
	for (i = 0; !err && i < b->nents; i++)
		err = hashmap__add(&b->ent_map, b->ents[i].die.off, (uint32_t)i);
	return err;
}

static const struct cu_ent *find_ent(const struct enc_batch *b, uint64_t off)
{
	struct hashmap_probe p;
	uint32_t i;

	hashmap__probe_init(&b->ent_map, off, &p);
	while ((i = hashmap__probe_next(&b->ent_map, &p)) != HASHMAP_NONE)
		if (b->ents[i].die.off == off)
			return &b->ents[i];
	return NULL;
}

/*
 * The BTF id of DIE's DW_AT_type (0 for void).  Aliases (_Atomic, which BTF
 * has no kind for) resolve to what they qualify.  A reference to a DIE that
 * is not a type of this CU is bad DWARF.
 */
static int type_id(struct enc_batch *b, const die_t *die, bool integrate, uint32_t *id);

/* The BTF id that DW_AT_type attribute A (of DIE) refers to. */
static int attr_type_id(struct enc_batch *b, const struct dwarf_attr *a, const die_t *die,
			uint32_t *id)
{
	const struct cu_ent *e;
	uint64_t off;
	die_t t;
	int err;

	*id = 0;
	err = dwarf_attr__ref(b->u, a, &off);
	if (err)
		return dwarf_err(b, die, err);
	e = find_ent(b, off);
	if (!e)
		return enc_batch__err(b, -EINVAL,
			"DIE 0x%llx refers to 0x%llx, not a type of its unit",
			(unsigned long long)die->off, (unsigned long long)off);
	if (e->nids) {
		*id = e->id;
		return 0;
	}
	t = e->die;
	if (dwarf_die__tag(&t) == DW_TAG_unspecified_type)
		return 0;
	if (++b->alias_depth > MAX_ALIAS_DEPTH)
		return enc_batch__err(b, -ELOOP, "DIE 0x%llx: type alias loop",
				      (unsigned long long)die->off);
	return type_id(b, &t, false, id);
}

static int type_id(struct enc_batch *b, const die_t *die, bool integrate, uint32_t *id)
{
	struct dwarf_attr a;
	int err;

	*id = 0;
	err = integrate ? dwarf_die__attr_integrate(b->u, die, DW_AT_type, &a)
			: dwarf_die__attr(b->u, die, DW_AT_type, &a);
	if (err < 0)
		return dwarf_err(b, die, err);
	if (!err)
		return 0;
	err = attr_type_id(b, &a, die, id);
	b->alias_depth = 0;
	return err;
}

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
	const struct dwarf_spec *sp = b->u->specs + ab->first;
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
		sp = b->u->specs + die->ab->first;
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

static int btf_ret(struct enc_batch *b, const die_t *die, int id)
{
	if (id >= 0)
		return 0;
	return enc_batch__err(b, id, "DIE 0x%llx: cannot add BTF type: %s",
			      (unsigned long long)die->off, strerror(-id));
}

/*
 * Interning a name in the BTF string table hashes and compares it; a batch
 * adds the same few hundred thousand names millions of times (every CU
 * repeats its headers' members).  Names in .debug_str are one pointer per
 * distinct string, so a batch maps that pointer to its string offset once.
 * GCC puts names shorter than a .debug_str offset in the DIE itself
 * (DW_FORM_string: "id", "len", "ops"), a new pointer each time: 730,000
 * of them in the 6.12 vmlinux; those up to 7 bytes are keyed by their
 * bytes instead.
 *
 * At most this many entries (2 MB of slots, 4 MB of entries).  A module's
 * .debug_str is not merged across its units, so each unit's names are
 * pointers of their own: mlx5_core.ko's would take 1M entries, 37 MB at
 * the encoder's peak, for no hit across units.  A full cache is emptied
 * instead of grown; it only saves lookups, never changes an offset
 * (btf__add_str returns the same one for the same string).
 */
#define STR_CACHE_MAX	(1u << 18)

/* NAME's offset in b->btf, looked up in cache C under KEY (never 0). */
static int str_cached(struct enc_batch *b, struct str_cache *c, uint64_t key, const char *name)
{
	struct hashmap_probe p;
	uint32_t i;
	int off;

	if (c->n >= STR_CACHE_MAX) {
		hashmap__clear(&c->map);
		c->n = 0;
	}
	if (array__grow(&c->ents, &c->cap, c->n + 1, sizeof(*c->ents), 1 << 13) ||
	    hashmap__reserve(&c->map, 1))
		return -ENOMEM;
	hashmap__probe_init(&c->map, key, &p);
	while ((i = hashmap__probe_next(&c->map, &p)) != HASHMAP_NONE)
		if (c->ents[i].key == key)
			return (int)c->ents[i].off;
	off = btf__add_str(b->btf, name);
	if (off < 0)
		return off;
	hashmap__probe_put(&c->map, &p, (uint32_t)c->n);
	c->ents[c->n].key = key;
	c->ents[c->n++].off = (uint32_t)off;
	return off;
}

/* The string offset of name attribute A in b->btf; 0 for no name. */
static int name_off(struct enc_batch *b, const struct dwarf_attr *a)
{
	const char *name = a ? str_of(b, a) : NULL;
	uint64_t key = 0;
	size_t len;

	if (!name || !*name)
		return 0;
	if (a->form != DW_FORM_string)
		return str_cached(b, &b->str_ptr, (uintptr_t)name, name);
	/* Inline in the DIE: no identity but its bytes. */
	len = strnlen(name, sizeof(key));
	if (len == sizeof(key))
		return btf__add_str(b->btf, name);
	memcpy(&key, name, len);
	return str_cached(b, &b->str_inl, key, name);
}

/* NAME of DIE, through the cache (NULL: no such attribute). */
static int name_off_of(struct enc_batch *b, const die_t *die, unsigned int name, bool integrate)
{
	struct dwarf_attr a;
	bool has = integrate ? attr_integrate(b, die, name, &a) : attr(b, die, name, &a);

	return name_off(b, has ? &a : NULL);
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

/*
 * DIE's name through the cache: its offset (0 for none; <0 an error), and
 * in *NAME the string (NULL for none).  A type that repeats in every unit
 * (a typedef, an enum, a base type, a declaration) is then added under the
 * placeholder PH_NAME and named by named(), so libbpf hashes the string once
 * per batch instead of once per DIE; dedup keeps only the strings types use.
 */
#define PH_NAME	"_"
static int cached_diename(struct enc_batch *b, const die_t *die, const char **name)
{
	struct dwarf_attr a;

	if (!attr_integrate(b, die, DW_AT_name, &a)) {
		*name = NULL;
		return 0;
	}
	*name = str_of(b, &a);
	return name_off(b, &a);
}

/* ID as libbpf returned it, named OFF when it was added under PH_NAME. */
static int named(struct enc_batch *b, int id, int off)
{
	if (id >= 0 && off > 0)
		set_type_name(b, id, off);
	return id;
}

static int emit_base(struct enc_batch *b, const die_t *die)
{
	int enc = udata(b, die, DW_AT_encoding, 0);
	int64_t size = udata(b, die, DW_AT_byte_size, 0);
	const char *name;
	int flags = 0, off;

	if (!base_size_ok(size))
		return btf_ret(b, die, btf__add_int(b->btf, "__SANITIZED_FAKE_INT__", 4, 0));
	off = cached_diename(b, die, &name);
	if (off < 0)
		return btf_ret(b, die, off);
	name = off ? PH_NAME : name ? name : "";
	if (enc == DW_ATE_float && (b->ctx->feats & BTF_FEAT_FLOAT))
		return btf_ret(b, die, named(b, btf__add_float(b->btf, name, size), off));
	if (enc == DW_ATE_signed || enc == DW_ATE_signed_char)
		flags = BTF_INT_SIGNED;
	else if (enc == DW_ATE_boolean)
		flags = BTF_INT_BOOL;
	return btf_ret(b, die, named(b, btf__add_int(b->btf, name, size, flags), off));
}

static int emit_ptr(struct enc_batch *b, const die_t *die, const struct cu_ent *e)
{
	uint32_t target, id = e->id;
	die_t c;
	int err, r;

	err = type_id(b, die, false, &target);
	if (err)
		return err;
	/* PTR -> last tag -> ... -> first tag -> target, as pahole does. */
	err = btf__add_ptr(b->btf, e->nids > 1 ? id + e->nids - 1 : target);
	if (err < 0 || e->nids == 1)
		return btf_ret(b, die, err);
	for (r = first(b, die, &c); !r; r = next(b, &c)) {
		const char *v = annotation(b, &c, "btf_type_tag");

		if (!v)
			continue;
		err = btf__add_type_tag(b->btf, v, target);
		if (err < 0)
			return btf_ret(b, die, err);
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

/* pahole 1.24 encodes T a[2][3] as one ARRAY of 6 T. */
static int emit_array(struct enc_batch *b, const die_t *die)
{
	uint64_t nelems = 1;
	uint32_t elem;
	die_t c;
	int err, r;

	err = type_id(b, die, false, &elem);
	if (err)
		return err;
	r = first(b, die, &c);
	if (r)
		nelems = 0;
	for (; !r; r = next(b, &c)) {
		int64_t n;

		if (dwarf_die__tag(&c) != DW_TAG_subrange_type)
			continue;
		n = bound(b, &c, DW_AT_count);
		if (n < 0) {
			n = bound(b, &c, DW_AT_upper_bound);
			n = n < 0 ? 0 : n + 1 - udata(b, &c, DW_AT_lower_bound, 0);
		}
		nelems *= (uint64_t)n;
	}
	return btf_ret(b, die, btf__add_array(b->btf, b->int_id, elem, (uint32_t)nelems));
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
		err = cached_diename(b, die, &name);
		if (err < 0)
			return btf_ret(b, die, err);
		id = btf__add_fwd(b->btf, err ? PH_NAME : name ? name : "",
				  is_union ? BTF_FWD_UNION : BTF_FWD_STRUCT);
		return btf_ret(b, die, named(b, id, err));
	}
	err = is_union ? btf__add_union(b->btf, NULL, udata(b, die, DW_AT_byte_size, 0))
		       : btf__add_struct(b->btf, NULL, udata(b, die, DW_AT_byte_size, 0));
	if (err < 0)
		return btf_ret(b, die, err);
	id = err;
	err = name_off_of(b, die, DW_AT_name, false);
	if (err < 0)
		return btf_ret(b, die, err);
	set_type_name(b, id, err);
	while (!(r = member(b, e, die, &i, &c))) {
		struct die_attrs da;
		uint32_t t = 0;

		err = die_attrs__read(b, &c, &da);
		if (err)
			return dwarf_err(b, &c, err);
		if (da.skip)
			continue;
		if (da.has & (1u << DA_TYPE)) {
			err = attr_type_id(b, &da.a[DA_TYPE], &c, &t);
			b->alias_depth = 0;
			if (err)
				return err;
		}
		err = btf__add_field(b->btf, NULL, t, member_bit_offset(b, &da),
				     da_udata(b, &da, DA_BIT_SIZE, 0));
		if (err < 0)
			return btf_ret(b, &c, err);
		err = name_off(b, (da.has & (1u << DA_NAME)) ? &da.a[DA_NAME] : NULL);
		if (err < 0)
			return btf_ret(b, &c, err);
		set_last_name(b, id, err);
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
	int err, id, r, off = cached_diename(b, die, &name);
	die_t c;

	if (off < 0)
		return btf_ret(b, die, off);
	if (off)
		name = PH_NAME;
	if (is64)
		err = btf__add_enum64(b->btf, name, size, is_signed);
	else
		err = btf__add_enum(b->btf, name, size);
	err = named(b, err, off);
	if (err < 0 || (r = first(b, die, &c)))
		return btf_ret(b, die, err);
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
			return btf_ret(b, &c, err);
		err = name_off_of(b, &c, DW_AT_name, false);
		if (err < 0)
			return btf_ret(b, &c, err);
		set_last_name(b, id, err);
	}
	return r < 0 ? dwarf_err(b, die, r) : 0;
}

/*
 * FUNC_PROTO from DIE's formal parameters; NAMED gives them their names (a
 * function's, not a subroutine type's).  DW_AT_abstract_origin is followed
 * so out-of-line copies of inline functions get their names and types.
 */
static int emit_proto(struct enc_batch *b, const die_t *die, bool named, uint64_t last)
{
	uint32_t ret, t;
	die_t c;
	int err, id, r;

	err = type_id(b, die, named, &ret);
	if (err)
		return err;
	id = btf__add_func_proto(b->btf, ret);
	if (id < 0)
		return btf_ret(b, die, id);
	for (r = first(b, die, &c); !r && c.off <= last; r = next(b, &c)) {
		unsigned int tag = dwarf_die__tag(&c);

		if (tag == DW_TAG_unspecified_parameters) {
			err = btf__add_func_param(b->btf, "", 0);
		} else if (tag == DW_TAG_formal_parameter) {
			err = type_id(b, &c, named, &t);
			if (err)
				return err;
			err = btf__add_func_param(b->btf, NULL, t);
			if (err >= 0 && named) {
				err = name_off_of(b, &c, DW_AT_name, true);
				if (err >= 0)
					set_last_name(b, id, err);
			}
		} else {
			continue;
		}
		if (err < 0)
			return btf_ret(b, &c, err);
	}
	return r < 0 ? dwarf_err(b, die, r) : id;
}

static int emit_ent(struct enc_batch *b, const struct cu_ent *e, const die_t *die)
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
		return emit_array(b, die);
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
	case DW_TAG_class_type:
		return emit_struct(b, e, die, tag);
	case DW_TAG_enumeration_type:
		return emit_enum(b, die);
	case DW_TAG_subroutine_type:
		err = emit_proto(b, die, false, UINT64_MAX);
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
		err = cached_diename(b, die, &name);
		if (err < 0)
			return btf_ret(b, die, err);
		return btf_ret(b, die, named(b, btf__add_typedef(b->btf, err ? PH_NAME : name, t),
					     err));
	}
	return enc_batch__err(b, -EINVAL, "DIE 0x%llx: unexpected tag 0x%x",
			      (unsigned long long)die->off, tag);
}

/* clang's btf_decl_tag annotations on DIE (the BTF type ID), COMP = -1. */
static int emit_decl_tags(struct enc_batch *b, const die_t *die, uint32_t id, int comp)
{
	const char *v;
	die_t c;
	int err, r;

	for (r = first(b, die, &c); !r; r = next(b, &c)) {
		v = annotation(b, &c, "btf_decl_tag");
		if (!v)
			continue;
		err = btf__add_decl_tag(b->btf, v, id, comp);
		if (err < 0)
			return btf_ret(b, die, err);
	}
	return 0;
}

/* Decl tags of a struct/union/typedef/member: after all of the CU's types. */
static int emit_type_decl_tags(struct enc_batch *b, const struct cu_ent *e, const die_t *die)
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
			err = emit_decl_tags(b, &c, e->id, idx++);
			if (err)
				return err;
		}
	}
	return emit_decl_tags(b, die, e->id, -1);
}

/* pahole 1.24: every parameter must be named, else no FUNC. */
static bool params_named(const struct enc_batch *b, const die_t *die, uint64_t last)
{
	struct dwarf_attr a;
	die_t c;
	int r;

	for (r = first(b, die, &c); !r && c.off <= last; r = next(b, &c))
		if (dwarf_die__tag(&c) == DW_TAG_formal_parameter &&
		    !attr_integrate(b, &c, DW_AT_name, &a))
			return false;
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
static uint64_t fnv_u32(uint64_t h, uint32_t v)
{
	return hash_fnv1a(h, &v, sizeof(v));
}

static uint64_t fnv_name(uint64_t h, const struct btf *btf, const struct btf_type *t)
{
	const char *n = btf__name_by_offset(btf, t->name_off);

	return n ? hash_fnv1a(h, n, strlen(n) + 1) : fnv_u32(h, 0);
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


/* libdw's reading of a parameter's first location, for what the cursor leaves to it. */
static bool libdw_unexpected_reg(const struct enc_batch *b, const die_t *parm, int expected)
{
	Dwarf_Addr base, start, end;
	Dwarf_Die mem, *d = libdw_die(b, parm, &mem);
	Dwarf_Attribute a;
	Dwarf_Op *expr;
	size_t len;

	if (!d || !dwarf_attr(d, DW_AT_location, &a) ||
	    dwarf_getlocations(&a, 0, &base, &start, &end, &expr, &len) <= 0 || !len)
		return false;
	return expr[0].atom >= DW_OP_reg0 && expr[0].atom <= DW_OP_reg31 &&
	       expr[0].atom != expected;
}

/* A parameter whose first location is a register other than its own. */
static bool param_unexpected_reg(const struct enc_batch *b, const die_t *parm, int expected)
{
	struct dwarf_attr a;
	size_t len;
	uint8_t op;
	int r;

	if (!attr(b, parm, DW_AT_location, &a))
		return false;
	r = dwarf_attr__first_op(b->u, &a, &op, &len);
	if (r <= 0 && r != -ENOTSUP)
		return false;
	if (r > 0 && (op < DW_OP_reg0 || op > DW_OP_reg31 || op == expected))
		return false;	/* whether or not libdw could read the rest */
	/* One DW_OP_regN is read; after it, an operation libdw refuses voids it. */
	return r > 0 && len == 1 ? true : libdw_unexpected_reg(b, parm, expected);
}

/* A parameter of struct type (through typedefs and const) spans registers. */
static bool param_is_struct(const struct enc_batch *b, const die_t *parm)
{
	struct dwarf_attr a;
	die_t t;
	int i;

	if (!attr_integrate(b, parm, DW_AT_type, &a) || !ref_die(b, &a, &t))
		return false;
	for (i = 0; i < MAX_ALIAS_DEPTH; i++) {
		switch (dwarf_die__tag(&t)) {
		case DW_TAG_structure_type:
			return true;
		case DW_TAG_const_type:
		case DW_TAG_typedef:
			if (!attr(b, &t, DW_AT_type, &a) || !ref_die(b, &a, &t))
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
static int func_sig(struct enc_batch *b, const die_t *die, uint64_t last, struct enc_fsig *out)
{
	const uint8_t *regs = NULL;
	int nregs = param_regs(b->ctx, &regs), i = 0, err, r;
	bool unexpected = false, has_struct = false;
	uint64_t h = HASH_FNV1A_SEED;
	uint32_t t;
	die_t c;

	err = type_id(b, die, true, &t);
	if (err)
		return err;
	h = type_sig(b->btf, t, h);
	for (r = first(b, die, &c); !r && c.off <= last; r = next(b, &c)) {
		unsigned int tag = dwarf_die__tag(&c);

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
		if (i < nregs && param_unexpected_reg(b, &c, regs[i]))
			unexpected = true;
		has_struct |= param_is_struct(b, &c);
		i++;
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
static int emit_func(struct enc_batch *b, const struct cu_sub *sub)
{
	const die_t *die = &sub->die;
	uint64_t last = sub->last_param;
	const struct enc_ctx *ctx = b->ctx;
	const char *name;
	int idx = -1, proto, id, err, i = 0, r;
	bool saved = false;
	die_t c;

	if (flag(b, die, DW_AT_declaration))
		return 0;
	name = diename(b, die);
	if (!name || !params_named(b, die, last))
		return 0;
	if (ctx->nfuncs) {
		idx = func_slot(b, name, &saved);
		if (idx < 0)
			return 0;
		if (saved && b->fsig) {
			struct enc_fsig s;

			err = func_sig(b, die, last, &s);
			if (err)
				return err;
			if (!(b->fsig[idx].flags & FSIG_SEEN)) {
				if (array__grow(&b->fsigs, &b->fsigs_cap, b->nfsigs + 1,
						sizeof(*b->fsigs), 256))
					return -ENOMEM;
				b->fsigs[b->nfsigs++].idx = (uint32_t)idx;
			}
			fsig_merge(&b->fsig[idx], &s);
		}
		if (b->func_done[idx])
			return 0;
	} else if (!flag(b, die, DW_AT_external)) {
		return 0;
	}
	proto = emit_proto(b, die, true, last);
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
	if (err)
		return err;
	for (r = first(b, die, &c); !r && c.off <= last; r = next(b, &c)) {
		if (dwarf_die__tag(&c) != DW_TAG_formal_parameter)
			continue;
		err = emit_decl_tags(b, &c, id, i++);
		if (err)
			return err;
	}
	return 0;
}

/* libdw's reading of a variable's address, for what the cursor leaves to it. */
static bool libdw_var_addr(const struct enc_batch *b, const die_t *die, uint64_t *addr)
{
	Dwarf_Die mem, *d = libdw_die(b, die, &mem);
	Dwarf_Attribute a, ax;
	Dwarf_Op *ops;
	Dwarf_Addr v;
	size_t nops;

	if (!d || !dwarf_attr(d, DW_AT_location, &a) ||
	    dwarf_getlocation(&a, &ops, &nops) || nops != 1)
		return false;
	if (ops[0].atom == DW_OP_addr) {
		*addr = ops[0].number;
		return true;
	}
	if ((ops[0].atom == DW_OP_addrx || ops[0].atom == DW_OP_GNU_addr_index) &&
	    dwarf_getlocation_attr(&a, &ops[0], &ax) == 0 && dwarf_formaddr(&ax, &v) == 0) {
		*addr = v;
		return true;
	}
	return false;
}

/*
 * DW_OP_addr of a variable's location, if that is all it is; DWARF 5
 * (clang) has DW_OP_addrx, an index into .debug_addr.
 */
static bool var_addr(const struct enc_batch *b, const die_t *die, uint64_t *addr)
{
	const struct dwarf_unit *u = b->u;
	const uint8_t *p;
	struct dwarf_attr a;
	uint64_t idx = 0;
	unsigned int shift = 0;
	size_t len, i;
	int r;

	if (!attr(b, die, DW_AT_location, &a) || dwarf_attr__block(u, &a, &p, &len) || !len)
		return false;
	if (p[0] == DW_OP_addr) {
		if (len != 1u + u->addrsz)
			return false;
		for (*addr = 0, i = 0; i < u->addrsz; i++)
			*addr |= (uint64_t)p[1 + i] << (8 * i);
		return true;
	}
	if (p[0] != DW_OP_addrx && p[0] != DW_OP_GNU_addr_index)
		return false;
	for (i = 1; i < len; i++) {
		if (shift < 64)
			idx |= (uint64_t)(p[i] & 0x7f) << shift;
		shift += 7;
		if (!(p[i] & 0x80))
			break;
	}
	if (i + 1 != len)
		return false;		/* not one whole operation */
	r = dwarf_unit__addrx(u, idx, addr);
	if (r == -ENOTSUP)
		return libdw_var_addr(b, die, addr);
	return r == 0;
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
static int var_type_id(struct enc_batch *b, const die_t *die, uint32_t *t)
{
	struct dwarf_attr a;
	die_t spec;

	if (attr(b, die, DW_AT_specification, &a) && ref_die(b, &a, &spec))
		return type_id(b, &spec, true, t);
	return type_id(b, die, true, t);
}

/* BTF's linkage of a variable DIE (or of its declaration). */
static int var_linkage(const struct enc_batch *b, const die_t *die)
{
	struct dwarf_attr a;

	return flag(b, die, DW_AT_external) ||
	       (attr(b, die, DW_AT_specification, &a) &&
		attr_integrate(b, die, DW_AT_external, &a))
	       ? BTF_VAR_GLOBAL_ALLOCATED : BTF_VAR_STATIC;
}

/* Add a VAR and its DATASEC slot (section SHNDX, OFF, SIZE). */
static int add_var(struct enc_batch *b, const die_t *die, const char *name, uint32_t t,
		   uint64_t off, uint32_t size, uint32_t shndx)
{
	int id = btf__add_var(b->btf, name, var_linkage(b, die), t);

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
static int emit_pcpu_var_124(struct enc_batch *b, const die_t *die, uint64_t addr)
{
	const struct enc_ctx *ctx = b->ctx;
	const struct enc_pcpu *p;
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
	name = diename(b, die);
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
static int emit_global_var(struct enc_batch *b, const die_t *die, uint32_t shndx, uint64_t off)
{
	const struct enc_ctx *ctx = b->ctx;
	bool force = ctx->feats & BTF_FEAT_ENCODE_FORCE;
	const char *name;
	uint32_t t;
	__s64 size;
	int err;

	if (flag(b, die, DW_AT_artificial))
		return 0;
	name = diename(b, die);
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
static int emit_pcpu_var(struct enc_batch *b, const die_t *die, uint64_t addr)
{
	const struct enc_ctx *ctx = b->ctx;
	uint64_t off = addr - b->pcpu_addr;
	const char *name;

	if (ctx->opts->rules != BTF_RULES_PAHOLE_1_30)
		return emit_pcpu_var_124(b, die, addr);
	if (ctx->is_rel) {
		name = diename(b, die);
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
static int emit_rel_var(struct enc_batch *b, const die_t *die, uint64_t addr)
{
	const struct enc_ctx *ctx = b->ctx;
	const struct enc_obj *obj = NULL;
	const struct enc_sec *sec;
	const char *name;

	name = diename(b, die);
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

static int emit_var(struct enc_batch *b, const die_t *die)
{
	const struct enc_ctx *ctx = b->ctx;
	const struct enc_sec *sec;
	struct dwarf_attr a;
	uint64_t addr;

	if (flag(b, die, DW_AT_declaration) && !attr(b, die, DW_AT_specification, &a))
		return 0;
	if (!var_addr(b, die, &addr))
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
	size_t i;
	int err;

	for (i = 0; i < b->nents; i++) {
		const struct cu_ent *e = &b->ents[i];

		if (!e->nids)
			continue;
		err = emit_ent(b, e, &e->die);
		if (err)
			return err;
		if (btf__type_cnt(b->btf) != e->id + e->nids)
			return enc_batch__err(b, -EINVAL,
				"DIE 0x%llx: BTF id drift", (unsigned long long)e->die.off);
	}
	if (b->decl_tags) {
		for (i = 0; i < b->nents; i++) {
			if (!b->ents[i].nids)
				continue;
			err = emit_type_decl_tags(b, &b->ents[i], &b->ents[i].die);
			if (err)
				return err;
		}
	}
	return 0;
}

/* Only clang emits btf_decl_tag annotations: skip looking for them otherwise. */
static bool may_have_annotations(const struct enc_batch *b, const die_t *cudie)
{
	struct dwarf_attr a;
	const char *p = attr(b, cudie, DW_AT_producer, &a) ? str_of(b, &a) : NULL;

	return !p || strstr(p, "clang");
}

int dcu__encode(struct enc_batch *b, struct dwarf_unit *u, Dwarf *dbg)
{
	die_t cudie;
	bool need_int;
	size_t i;
	int err;

	b->nents = b->nsubs = b->ngvars = b->nmembers = 0;
	b->depth = 0;
	b->u = u;
	b->dbg = dbg;
	b->da_gen++;
	err = dwarf_unit__cudie(u, &cudie);
	if (err)
		return enc_batch__err(b, err, "bad compile unit at 0x%llx",
				      (unsigned long long)u->off);
	b->decl_tags = (b->ctx->feats & BTF_FEAT_DECL_TAG) && may_have_annotations(b, &cudie);
	b->int_id = 0;
	b->has_array = false;
	b->next_id = btf__type_cnt(b->btf);
	err = scan_children(b, &cudie, true, NULL);
	if (!err && b->nents >= UINT32_MAX)
		err = enc_batch__err(b, -E2BIG, "too many types in one unit");
	if (!err)
		err = index_ents(b);
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
			return btf_ret(b, &cudie, err);
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
