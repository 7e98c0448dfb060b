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
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>

#include "btf/encode_int.h"
#include "lib/array.h"

#define SET8_PFX "__BTF_ID__set8__"
#define FUNC_PFX "__BTF_ID__func__"
#define BTF_SET8_KFUNCS (1u << 0)
#define KF_FASTCALL (1u << 12)		/* include/linux/btf.h */

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

/* Tag each FUNC of BTF (from id FIRST) that is a kfunc. */
static int tag_funcs(struct btf *btf, uint32_t first, const struct kfunc *k, size_t n)
{
	uint32_t id, last = btf__type_cnt(btf);
	const struct btf_type *t;
	const struct kfunc *kf;
	int err;

	for (id = first; id < last; id++) {
		t = btf__type_by_id(btf, id);
		if (!btf_is_func(t))
			continue;
		kf = kfunc_find(k, n, btf__name_by_offset(btf, t->name_off));
		if (!kf)
			continue;
		err = btf__add_decl_tag(btf, "bpf_kfunc", id, -1);
		if (err >= 0 && (kf->flags & KF_FASTCALL))
			err = btf__add_decl_tag(btf, "bpf_fastcall", id, -1);
		if (err < 0)
			return err;
	}
	return 0;
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
	if (!(ctx->feats & BTF_FEAT_DECL_TAG))
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
		err = tag_funcs(btf, first, k, kfuncs_uniq(k, n));
	free(k);
	free(sets);
	return err;
}
