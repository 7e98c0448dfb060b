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
 *
 * This file is the driver and what every part uses: the first walk, the
 * index of type DIEs, type references and names.  The second walk's
 * emitters are in dwarf_cu_types.c, dwarf_cu_funcs.c and dwarf_cu_vars.c;
 * btf/encode/dwarf_cu_int.h is their contract.
 */
#include <dwarf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>

#include "btf/encode/dwarf_cu_int.h"
#include "lib/array.h"
#include "lib/hash.h"
#include "lib/idxmap.h"

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

static int add_die(die_t **v, size_t *n, size_t *cap, const die_t *die)
{
	if (array__grow(v, cap, *n + 1, sizeof(**v), 64))
		return -ENOMEM;
	(*v)[(*n)++] = *die;
	return 0;
}

/* Is DIE an LLVM annotation named KIND ("btf_type_tag", "btf_decl_tag")? */
const char *dcu__annotation(const struct enc_batch *b, const die_t *die, const char *kind)
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
		if (dcu__annotation(b, &c, "btf_type_tag"))
			n++;
	return n;
}

/*
 * An array's ids: pahole 1.32 writes T a[2][3] as an ARRAY of 2 ARRAYs of
 * 3 T, one ARRAY a dimension (dcu__emit_array); earlier releases one ARRAY
 * of 6 T.  An array with no subrange is one ARRAY of 0 T under both.
 */
static int count_array_ids(const struct enc_batch *b, const die_t *die)
{
	die_t c;
	int n = 0, r;

	if (b->ctx->opts->rules < BTF_RULES_PAHOLE_1_32)
		return 1;
	for (r = first(b, die, &c); !r; r = next(b, &c))
		if (dwarf_die__tag(&c) == DW_TAG_subrange_type)
			n++;
	return n ? n : 1;
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
bool dcu__base_size_ok(int64_t size)
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
		return add_ent(b, die, count_array_ids(b, die));
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
 * The CU's type DIEs by offset: lib/idxmap over indexes into
 * b->ents, built once the first walk has them all.  A binary search over
 * the entries was a twentieth of all the encoder's instructions (a
 * reference per member, parameter and qualifier, each a cache miss).
 */
static int index_ents(struct enc_batch *b)
{
	size_t i;
	int err = idxmap__reset(&b->ent_map, b->nents);

	/* DIE offsets are unique: each is added without a lookup */
	for (i = 0; !err && i < b->nents; i++)
		err = idxmap__add(&b->ent_map, b->ents[i].die.off, (uint32_t)i);
	return err;
}

static const struct cu_ent *find_ent(const struct enc_batch *b, uint64_t off)
{
	struct idxmap_probe p;
	uint32_t i;

	idxmap__for_each_candidate(&b->ent_map, off, &p, i)
		if (b->ents[i].die.off == off)
			return &b->ents[i];
	return NULL;
}

/* The BTF id that DW_AT_type attribute A (of DIE) refers to. */
int dcu__attr_type_id(struct enc_batch *b, const struct dwarf_attr *a, const die_t *die,
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
	return dcu__type_id(b, &t, false, id);
}

int dcu__type_id(struct enc_batch *b, const die_t *die, bool integrate, uint32_t *id)
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
	err = dcu__attr_type_id(b, &a, die, id);
	b->alias_depth = 0;
	return err;
}

int dcu__btf_ret(struct enc_batch *b, const die_t *die, int id)
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
 * At most this many entries (2 MB of slots, 4 MB of entries).  A full
 * cache is emptied instead of grown; it only saves lookups, never changes
 * an offset (btf__add_str returns the same one for the same string).
 *
 * Not by pointer for a module (ET_REL): its .debug_str is not merged
 * across its units, so each unit's names are pointers of their own, and
 * that cache only costs (a module's names go by their bytes instead,
 * str_by_bytes).  Measured on 7.3's mlx5_core.ko: 1.29 s CPU and 84.5 MB
 * with it, 1.05 s and 72.5 MB without; vmlinux, where every unit shares
 * one copy of each name, 7.2 s with it and 9.5 s without.
 */
#define STR_CACHE_MAX	(1u << 18)

/* Room in cache C for one more entry: a full cache starts again. */
static int str_cache__room(struct str_cache *c)
{
	if (c->n >= STR_CACHE_MAX) {
		idxmap__clear(&c->map);
		c->n = 0;
	}
	if (array__grow(&c->ents, &c->cap, c->n + 1, sizeof(*c->ents), 1 << 13) ||
	    idxmap__reserve(&c->map, 1))
		return -ENOMEM;
	return 0;
}

/*
 * NAME's offset in b->btf, looked up in cache C under KEY: 0 for an empty
 * name.  NAME's bytes are read only on a miss: in .debug_str they are
 * anywhere in tens of MB, and reading the first byte of every name to
 * test for "" was 5% of a vmlinux's CPU (a cache miss per name).
 */
static int str_cached(struct enc_batch *b, struct str_cache *c, uint64_t key, const char *name)
{
	struct idxmap_probe p;
	uint32_t i;
	int off;

	if (str_cache__room(c))
		return -ENOMEM;
	idxmap__for_each_candidate(&c->map, key, &p, i)
		if (c->ents[i].key == key)
			return (int)c->ents[i].off;
	off = *name ? btf__add_str(b->btf, name) : 0;
	if (off < 0)
		return off;
	idxmap__probe_put(&c->map, &p, (uint32_t)c->n);
	c->ents[c->n].key = key;
	c->ents[c->n++].off = (uint32_t)off;
	return off;
}

/*
 * A module's name by its bytes.  In an ET_REL file each unit has its own
 * copy of every name in .debug_str (mlx5_core.ko: 896,000 strings, 25,000
 * distinct), so a pointer identifies nothing across units; and libbpf's
 * btf__add_str on split BTF looks the name up in the base, then copies
 * and hashes it again for the module's own strings: a quarter of a
 * module's CPU.  One hash of ours instead, a hit checked against the
 * string at the offset it gave (the same offset btf__add_str returns).
 */
/*
 * About how many distinct names a module's .debug_str of LEN bytes holds:
 * 12 sqrt(LEN) (crc7.ko's 34 KB, 2,233; hv_vmbus.ko's 411 KB, 7,798;
 * smc.ko's 1.9 MB, 13,079; 7.3's xfs.ko's 12.8 MB, 42,359), a power of two.
 */
#define STR_MOD_MAX	(1u << 16)
#define STR_MOD_MIN_LEN	(256u << 10)
static size_t str_mod_first(size_t len)
{
	size_t n = 1024;

	while (n < STR_MOD_MAX && n * n < 144 * len)
		n *= 2;
	return n;
}

/*
 * A module's name by its bytes.  In an ET_REL file each unit has its own
 * copy of every name in .debug_str (mlx5_core.ko: 896,000 strings, 25,000
 * distinct), so a pointer identifies nothing across units; and libbpf's
 * btf__add_str on split BTF looks the name up in the base, then copies
 * and hashes it again for the module's own strings: a quarter of a
 * module's CPU.  One hash of ours instead, each candidate checked against
 * the string at its offset (the same offset btf__add_str returns).
 *
 * The map's index is the string offset itself: nothing else is kept.
 * It is sized once, for the module's names: grown from small sizes,
 * between libbpf's growing buffers, the pieces it left raised the peak
 * RSS (smc.ko, 1.6 MB).  Only under pahole 1.30's rules (and 1.24's),
 * where a module's names are found in its base pruned to its DWARF's
 * names, and where the table left the peak lower (6.12's mlx5_core.ko:
 * 51.0 -> 42.5 MB, 7.3's xfs.ko the same); under 1.32's, on the stand-in
 * base, a large module's peak comes while it is encoded, and the
 * table's megabyte added to it (xfs.ko: 55.5 -> 56.6 MB).
 */
static int str_by_bytes(struct enc_batch *b, const char *name)
{
	struct idxmap *m = &b->str_ptr.map;
	size_t len = strlen(name);
	struct idxmap_probe p;
	const char *s;
	uint64_t key;
	uint32_t i;
	int off;

	if (!len)
		return 0;
	/* A small module's few names gain nothing worth the table's pages. */
	if (b->u->s->str_len < STR_MOD_MIN_LEN)
		return btf__add_str(b->btf, name);
	key = hash_words(name, len);
	if (!m->cap && idxmap__reserve_to(m, str_mod_first(b->u->s->str_len)))
		return -ENOMEM;
	if (idxmap__reserve(m, 1))
		return -ENOMEM;
	idxmap__for_each_candidate(m, key, &p, i) {
		s = btf__str_by_offset(b->btf, i);
		if (s && !strcmp(s, name))
			return (int)i;
	}
	off = btf__add_str(b->btf, name);
	if (off < 0 || (uint32_t)off > IDXMAP_MAX_INDEX)
		return off;
	idxmap__probe_put(m, &p, (uint32_t)off);
	return off;
}

/* The string offset of name attribute A in b->btf; 0 for no name. */
int dcu__name_off(struct enc_batch *b, const struct dwarf_attr *a)
{
	const char *name = a ? str_of(b, a) : NULL;
	uint64_t key = 0;
	size_t len;

	if (!name)
		return 0;
	if (a->form != DW_FORM_string) {
		if (!b->ctx->is_rel)
			return str_cached(b, &b->str_ptr, (uintptr_t)name, name);
		if (b->ctx->opts->rules < BTF_RULES_PAHOLE_1_32)
			return str_by_bytes(b, name);
		return *name ? btf__add_str(b->btf, name) : 0;
	}
	/* Inline in the DIE: no identity but its bytes. */
	if (!*name)
		return 0;
	len = strnlen(name, sizeof(key));
	if (len == sizeof(key))
		return btf__add_str(b->btf, name);
	memcpy(&key, name, len);
	return str_cached(b, &b->str_inl, key, name);
}

/* NAME of DIE, through the cache (NULL: no such attribute). */
int dcu__name_off_of(struct enc_batch *b, const die_t *die, unsigned int name, bool integrate)
{
	struct dwarf_attr a;
	bool has = integrate ? attr_integrate(b, die, name, &a) : attr(b, die, name, &a);

	return dcu__name_off(b, has ? &a : NULL);
}

/* Set the name of the last member/enumerator/param of type ID. */
void dcu__set_last_name(struct enc_batch *b, int id, int off)
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

void dcu__set_type_name(struct enc_batch *b, int id, int off)
{
	((struct btf_type *)btf__type_by_id(b->btf, id))->name_off = off;
}

/*
 * DIE's name through the cache: its offset (0 for none; <0 an error), and
 * in *NAME the string (NULL for none).  A type that repeats in every unit
 * (a typedef, an enum, a base type, a declaration) is then added under the
 * placeholder PH_NAME and named by dcu__named(), so libbpf hashes the string once
 * per batch instead of once per DIE; dedup keeps only the strings types use.
 */
int dcu__cached_diename(struct enc_batch *b, const die_t *die, const char **name)
{
	struct dwarf_attr a;

	if (!attr_integrate(b, die, DW_AT_name, &a)) {
		*name = NULL;
		return 0;
	}
	*name = str_of(b, &a);
	return dcu__name_off(b, &a);
}

/* ID as libbpf returned it, named OFF when it was added under PH_NAME. */
int dcu__named(struct enc_batch *b, int id, int off)
{
	if (id >= 0 && off > 0)
		dcu__set_type_name(b, id, off);
	return id;
}

static int emit_all(struct enc_batch *b)
{
	size_t i;
	int err;

	for (i = 0; i < b->nents; i++) {
		const struct cu_ent *e = &b->ents[i];

		if (!e->nids)
			continue;
		err = dcu__emit_ent(b, e, &e->die);
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
			err = dcu__emit_type_decl_tags(b, &b->ents[i], &b->ents[i].die);
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
			return dcu__btf_ret(b, &cudie, err);
	}
	for (i = 0; i < b->nsubs; i++) {
		err = dcu__emit_func(b, &b->subs[i]);
		if (err)
			return err;
	}
	for (i = 0; i < b->ngvars; i++) {
		err = dcu__emit_var(b, &b->gvars[i]);
		if (err)
			return err;
	}
	return 0;
}
