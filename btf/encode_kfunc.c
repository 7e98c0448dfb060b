// SPDX-License-Identifier: GPL-2.0
/*
 * decl_tag_kfuncs: a "bpf_kfunc" DECL_TAG on the FUNC of every kernel
 * function registered as a kfunc, as pahole 1.27 adds them.  The kernel's
 * BTF_KFUNCS_START(set) emits a symbol __BTF_ID__set8__SET in .BTF_ids,
 * sized to the set, whose second word holds the set's flags
 * (BTF_SET8_KFUNCS for kfunc sets); each BTF_ID_FLAGS(func, NAME) inside it
 * emits a symbol __BTF_ID__func__NAME__N at its entry.  The ids themselves
 * are filled in later by resolve_btfids; names and ranges are all we need.
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
		if (off + 8 > data->d_size)
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

/* NAME of __BTF_ID__func__NAME__N into buf; false if it does not parse. */
static bool kfunc_name(const char *sym, char *buf, size_t len)
{
	const char *p = sym + strlen(FUNC_PFX), *end = strrchr(p, '_');

	if (!end || end - p < 2 || end[-1] != '_' || (size_t)(end - 1 - p) >= len)
		return false;
	memcpy(buf, p, end - 1 - p);
	buf[end - 1 - p] = '\0';
	return true;
}

static int tag_func(struct btf *btf, uint32_t first, const char *name)
{
	uint32_t id, n = btf__type_cnt(btf);
	const struct btf_type *t;
	int err;

	for (id = first; id < n; id++) {
		t = btf__type_by_id(btf, id);
		if (!btf_is_func(t) || strcmp(btf__name_by_offset(btf, t->name_off), name))
			continue;
		err = btf__add_decl_tag(btf, "bpf_kfunc", id, -1);
		return err < 0 ? err : 0;
	}
	return 0;	/* no FUNC of that name: nothing to tag */
}

int enc_tag_kfuncs(const struct enc_ctx *ctx, struct btf *btf)
{
	const struct elf_file *ef = &ctx->ef;
	struct range *sets = NULL;
	struct elf_symtab st;
	size_t nsets = 0, i, k;
	GElf_Shdr ids;
	GElf_Sym sym;
	Elf32_Word shndx;
	Elf_Scn *scn;
	Elf_Data *data;
	const char *name;
	char fn[256];
	uint32_t first = ctx->base ? btf__type_cnt(ctx->base) : 1;
	int err;

	scn = elf_file__section(ef, ".BTF_ids", &ids);
	if (!scn || elf_file__symtab(ef, &st))
		return 0;
	data = elf_rawdata(scn, NULL);
	if (!data || !data->d_buf)
		return 0;
	err = kfunc_sets(ef, &st, elf_ndxscn(scn), &ids, data, &sets, &nsets);
	for (i = 1; !err && nsets && i < st.count; i++) {
		name = elf_file__sym(ef, &st, i, &sym, &shndx);
		if (!name || strncmp(name, FUNC_PFX, strlen(FUNC_PFX)) ||
		    !kfunc_name(name, fn, sizeof(fn)))
			continue;
		for (k = 0; k < nsets; k++)
			if (sym.st_value >= sets[k].lo && sym.st_value < sets[k].hi)
				break;
		if (k < nsets)
			err = tag_func(btf, first, fn);
	}
	free(sets);
	return err;
}
