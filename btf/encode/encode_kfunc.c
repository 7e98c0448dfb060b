// SPDX-License-Identifier: GPL-2.0
/*
 * decl_tag_kfuncs: a "bpf_kfunc" DECL_TAG on the FUNC of every kernel
 * function registered as a kfunc, as pahole 1.27 to 1.30 add them.  The
 * kernel's BTF_KFUNCS_START(set) emits a symbol __BTF_ID__set8__SET in
 * .BTF_ids, sized to the set, whose second word holds the set's flags
 * (BTF_SET8_KFUNCS for kfunc sets); each BTF_ID_FLAGS(func, NAME, FLAGS)
 * inside it emits a symbol __BTF_ID__func__NAME__N at its {id, flags} pair.
 * The ids themselves are filled in later by resolve_btfids; names, ranges
 * and flags are all we need.  A function in several sets gets one tag
 * (pahole marks the function, then tags it once), and with KF_FASTCALL
 * (6.13+) a second one, "bpf_fastcall" (pahole 1.28+), taken from the last
 * of its symbols in symbol table order, as pahole overwrites the flags.
 *
 * With `attributes` (pahole 1.32 on libbpf 1.6+), a
 * kfunc whose flags say that its return value or first or second argument
 * points into a BPF arena (KF_ARENA_RET, _ARG1, _ARG2: 6.16+) gets a
 * prototype of its own, where that pointer's target carries the attribute
 * "address_space(1)" (a TYPE_TAG with kind_flag set), as pahole writes it.
 * That is independent of decl_tag, as in pahole; under pahole 1.32's rules
 * only, as Debian's pahole 1.30, on libbpf 1.5, has no way to write it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>

#include "btf/encode/encode_int.h"
#include "lib/array.h"

#define SET8_PFX "__BTF_ID__set8__"
#define FUNC_PFX "__BTF_ID__func__"
#define BTF_SET8_KFUNCS (1u << 0)
#define KF_FASTCALL (1u << 12)		/* include/linux/btf.h */
#define KF_ARENA_RET (1u << 13)
#define KF_ARENA_ARG1 (1u << 14)
#define KF_ARENA_ARG2 (1u << 15)
#define KF_ARENA (KF_ARENA_RET | KF_ARENA_ARG1 | KF_ARENA_ARG2)
#define ARENA_ATTR "address_space(1)"

struct range {
	uint64_t lo, hi;
};

/* The kfunc sets: [value, value + size) of each flagged set8 symbol. */
static int kfunc_sets(const struct elf_file *ef, const struct elf_symtab *st,
		      size_t ids_shndx, const GElf_Shdr *ids, Elf_Data *data,
		      struct range **out, size_t *n)
{
	struct range *r = NULL;
	size_t cap = 0;
	GElf_Sym sym;
	Elf32_Word shndx;
	const char *name;
	uint64_t off;
	uint32_t flags;
	size_t i;

	*n = 0;
	for (i = 1; i < st->count; i++) {
		name = elf_file__sym(ef, st, i, &sym, &shndx);
		if (!name || shndx != ids_shndx || strncmp(name, SET8_PFX, strlen(SET8_PFX)))
			continue;
		off = sym.st_value - (ef->ehdr.e_type == ET_REL ? 0 : ids->sh_addr);
		if (!elf_range_ok(off, 8, data->d_size))
			continue;
		memcpy(&flags, (const char *)data->d_buf + off + 4, 4);
		if (!(flags & BTF_SET8_KFUNCS))
			continue;
		if (array__grow(&r, &cap, *n + 1, sizeof(*r), 16)) {
			free(r);
			return -ENOMEM;
		}
		r[(*n)++] = (struct range){ sym.st_value, sym.st_value + sym.st_size };
	}
	*out = r;
	return 0;
}

/* A kfunc: NAME (not NUL-terminated, LEN bytes) and its pair's flags. */
struct kfunc {
	const char *name;
	size_t len;
	uint32_t flags;
	size_t order;			/* symbol index: the last one's flags win */
};

static int cmp_kfunc_name(const char *name, size_t len, const struct kfunc *k)
{
	int c = strncmp(name, k->name, len < k->len ? len : k->len);

	return c ? c : (len > k->len) - (len < k->len);
}

static int cmp_kfunc(const void *a, const void *b)
{
	const struct kfunc *x = a, *y = b;
	int c = cmp_kfunc_name(x->name, x->len, y);

	return c ? c : (x->order > y->order) - (x->order < y->order);
}

/* Sort by name, one entry per name with its last symbol's flags. */
static size_t kfuncs_uniq(struct kfunc *k, size_t n)
{
	size_t i, out = 0;

	qsort(k, n, sizeof(*k), cmp_kfunc);
	for (i = 0; i < n; i++) {
		if (out && !cmp_kfunc_name(k[i].name, k[i].len, &k[out - 1]))
			k[out - 1] = k[i];
		else
			k[out++] = k[i];
	}
	return out;
}

static const struct kfunc *kfunc_find(const struct kfunc *k, size_t n, const char *name)
{
	size_t lo = 0, hi = n, len = strlen(name);

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = cmp_kfunc_name(name, len, &k[mid]);

		if (!c)
			return &k[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

/* The kfuncs: every __BTF_ID__func__ symbol inside a kfunc set. */
static int collect_kfuncs(const struct elf_file *ef, const struct elf_symtab *st,
			  size_t ids_shndx, const GElf_Shdr *ids, Elf_Data *data,
			  const struct range *sets, size_t nsets,
			  struct kfunc **out, size_t *n)
{
	struct kfunc *k = NULL;
	size_t cap = 0, i, s;
	const char *name, *p, *end;
	Elf32_Word shndx;
	GElf_Sym sym;
	uint64_t off;
	uint32_t flags;

	*n = 0;
	for (i = 1; i < st->count; i++) {
		name = elf_file__sym(ef, st, i, &sym, &shndx);
		if (!name || shndx != ids_shndx || strncmp(name, FUNC_PFX, strlen(FUNC_PFX)))
			continue;
		/* __BTF_ID__func__NAME__N: NAME ends before the last "__". */
		p = name + strlen(FUNC_PFX);
		end = strrchr(p, '_');
		if (!end || end - p < 2 || end[-1] != '_')
			continue;
		for (s = 0; s < nsets; s++)
			if (sym.st_value >= sets[s].lo && sym.st_value < sets[s].hi)
				break;
		if (s == nsets)
			continue;
		off = sym.st_value - (ef->ehdr.e_type == ET_REL ? 0 : ids->sh_addr);
		flags = 0;
		if (elf_range_ok(off, 8, data->d_size))
			memcpy(&flags, (const char *)data->d_buf + off + 4, 4);
		if (array__grow(&k, &cap, *n + 1, sizeof(*k), 64)) {
			free(k);
			return -ENOMEM;
		}
		k[(*n)++] = (struct kfunc){ p, (size_t)(end - 1 - p), flags, i };
	}
	*out = k;
	return 0;
}

/*
 * A type tag with kind_flag set: an attribute.  libbpf 1.6 has
 * btf__add_type_attr(); ours writes the tag and sets the flag in place
 * (its dedup compares the whole info word, flag included).
 */
static int add_type_attr(struct btf *btf, const char *value, int ref)
{
	int id = btf__add_type_tag(btf, value, ref);

	if (id > 0)
		((struct btf_type *)btf__type_by_id(btf, id))->info |= 1u << 31;
	return id;
}

/* PTR, a pointer, with its target behind the arena attribute: a new PTR's id. */
static int arena_ptr(struct btf *btf, uint32_t ptr)
{
	const struct btf_type *t = btf__type_by_id(btf, ptr);
	int id;

	if (!t || !btf_is_ptr(t))
		return -EINVAL;
	id = add_type_attr(btf, ARENA_ATTR, t->type);
	return id < 0 ? id : btf__add_ptr(btf, id);
}

struct count_refs {
	uint32_t id, n;
};

static void count_ref(uint32_t *id, void *arg)
{
	struct count_refs *c = arg;

	c->n += *id == c->id;
}

/* How many references BTF's own types (from id FIRST) make to type ID. */
static uint32_t refs_to(struct btf *btf, uint32_t first, uint32_t id)
{
	struct count_refs c = { id, 0 };
	uint32_t i, n = btf__type_cnt(btf);

	for (i = first; i < n; i++)
		enc_visit_ids((struct btf_type *)btf__type_by_id(btf, i), count_ref, &c);
	return c.n;
}

/*
 * FUNC (a kfunc with FLAGS & KF_ARENA) with the attribute on the pointers
 * FLAGS names.  pahole builds a prototype per function and dedups after:
 * the kfunc's own prototype changes in place when nothing else uses it
 * (none is left over), else the FUNC gets a new one.  Types are looked up
 * again after each addition, which may move them.
 */
static int arena_proto(struct btf *btf, uint32_t first, uint32_t func, uint32_t flags)
{
	uint32_t proto = btf__type_by_id(btf, func)->type, i, n;
	bool own = proto >= first && refs_to(btf, first, proto) == 1;
	int id, ret, args[2] = { -1, -1 };
	struct btf_type *t;

	t = (struct btf_type *)btf__type_by_id(btf, proto);
	n = btf_vlen(t);
	ret = flags & KF_ARENA_RET ? arena_ptr(btf, t->type) : (int)t->type;
	for (i = 0; i < 2 && i < n && ret >= 0; i++) {
		if (!(flags & (i ? KF_ARENA_ARG2 : KF_ARENA_ARG1)))
			continue;
		t = (struct btf_type *)btf__type_by_id(btf, proto);
		args[i] = arena_ptr(btf, btf_params(t)[i].type);
		if (args[i] < 0)
			return args[i];
	}
	if (ret < 0)
		return ret;
	if (!own) {
		id = btf__add_func_proto(btf, ret);
		for (i = 0; i < n && id >= 0; i++) {
			const struct btf_param *p = &btf_params(btf__type_by_id(btf, proto))[i];
			char *name = strdup(btf__name_by_offset(btf, p->name_off));
			int err = name ? btf__add_func_param(btf, name, i < 2 && args[i] >= 0 ?
							     args[i] : (int)p->type) : -ENOMEM;

			free(name);	/* adding may move the strings it pointed into */
			if (err < 0)
				id = err;
		}
		if (id < 0)
			return id;
		/* The FUNC keeps its id, which the decl tags name. */
		((struct btf_type *)btf__type_by_id(btf, func))->type = id;
		return 0;
	}
	t = (struct btf_type *)btf__type_by_id(btf, proto);
	t->type = ret;
	for (i = 0; i < 2 && i < n; i++)
		if (args[i] >= 0)
			btf_params(t)[i].type = args[i];
	return 0;
}

/*
 * Each FUNC of BTF (from id FIRST) that is a kfunc: tagged when TAGS, its
 * arena pointers given the attribute when ATTRS.
 */
static int tag_funcs(struct btf *btf, uint32_t first, const struct kfunc *k, size_t n,
		     bool tags, bool attrs)
{
	uint32_t id, last = btf__type_cnt(btf);
	const struct btf_type *t;
	const struct kfunc *kf;
	int err = 0;

	for (id = first; id < last && err >= 0; id++) {
		t = btf__type_by_id(btf, id);
		if (!btf_is_func(t))
			continue;
		kf = kfunc_find(k, n, btf__name_by_offset(btf, t->name_off));
		if (!kf)
			continue;
		if (attrs && (kf->flags & KF_ARENA))
			err = arena_proto(btf, first, id, kf->flags);
		if (err >= 0 && tags)
			err = btf__add_decl_tag(btf, "bpf_kfunc", id, -1);
		if (err >= 0 && tags && (kf->flags & KF_FASTCALL))
			err = btf__add_decl_tag(btf, "bpf_fastcall", id, -1);
	}
	return err < 0 ? err : 0;
}

int enc_tag_kfuncs(const struct enc_ctx *ctx, struct btf *btf)
{
	const struct elf_file *ef = &ctx->ef;
	struct range *sets = NULL;
	struct kfunc *k = NULL;
	struct elf_symtab st;
	size_t nsets = 0, n = 0;
	GElf_Shdr ids;
	Elf_Scn *scn;
	Elf_Data *data;
	uint32_t first = ctx->base ? btf__type_cnt(ctx->base) : 1;
	int err;

	/* pahole tags kfuncs only when it encodes decl tags at all. */
	bool tags = ctx->feats & BTF_FEAT_DECL_TAG;
	/* Debian's pahole 1.30 (libbpf 1.5) cannot write them, 1.32 (libbpf 1.7) does. */
	bool attrs = (ctx->feats & BTF_FEAT_ATTRIBUTES) && ctx->opts->rules >= BTF_RULES_PAHOLE_1_32;

	if (!tags && !attrs)
		return 0;
	scn = elf_file__section(ef, ".BTF_ids", &ids);
	if (!scn || elf_file__symtab(ef, &st))
		return 0;
	data = elf_rawdata(scn, NULL);
	if (!data || !data->d_buf)
		return 0;
	err = kfunc_sets(ef, &st, elf_ndxscn(scn), &ids, data, &sets, &nsets);
	if (!err && nsets)
		err = collect_kfuncs(ef, &st, elf_ndxscn(scn), &ids, data, sets, nsets, &k, &n);
	if (!err && n)
		err = tag_funcs(btf, first, k, kfuncs_uniq(k, n), tags, attrs);
	free(k);
	free(sets);
	return err;
}
