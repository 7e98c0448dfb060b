// SPDX-License-Identifier: GPL-2.0
/*
 * What the encoder needs from the ELF symbol table: the names of functions
 * (a FUNC is emitted only for a function with a symbol) and the per-CPU
 * variables (.data..percpu objects), read in place from the mapped file.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "btf/encode_int.h"

#define PERCPU_SECTION ".data..percpu"
#define KSYM_NAME_LEN 128	/* the kernel's limit on symbol names */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int cmp_pcpu(const void *a, const void *b)
{
	const struct enc_pcpu *x = a, *y = b;

	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Names BTF accepts for a VAR: a C identifier, dots allowed. */
static bool name_valid(const char *p)
{
	size_t n;

	if (!(*p == '_' || *p == '.' || isalpha((unsigned char)*p)))
		return false;
	for (n = 1; p[n]; n++)
		if (n >= KSYM_NAME_LEN ||
		    !(p[n] == '_' || p[n] == '.' || isalnum((unsigned char)p[n])))
			return false;
	return true;
}

static size_t uniq(const char **v, size_t n)
{
	size_t i, out = 0;

	for (i = 0; i < n; i++)
		if (!out || strcmp(v[out - 1], v[i]))
			v[out++] = v[i];
	return out;
}

static uint32_t hash_str(const char *s)
{
	uint32_t h = 2166136261u;	/* FNV-1a */

	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

/* An open-addressing index over ctx->funcs: looked up once per function DIE. */
static int build_func_hash(struct enc_ctx *ctx)
{
	size_t i, n = 64, slot;

	while (n < ctx->nfuncs * 2)
		n *= 2;
	ctx->func_hash = malloc(n * sizeof(*ctx->func_hash));
	if (!ctx->func_hash)
		return -ENOMEM;
	memset(ctx->func_hash, 0xff, n * sizeof(*ctx->func_hash));
	ctx->func_mask = n - 1;
	for (i = 0; i < ctx->nfuncs; i++) {
		slot = hash_str(ctx->funcs[i]) & ctx->func_mask;
		while (ctx->func_hash[slot] != UINT32_MAX)
			slot = (slot + 1) & ctx->func_mask;
		ctx->func_hash[slot] = i;
	}
	return 0;
}

int enc_ctx__func(const struct enc_ctx *ctx, const char *name)
{
	size_t slot;
	uint32_t i;

	if (!ctx->func_hash)
		return -1;
	slot = hash_str(name) & ctx->func_mask;
	while ((i = ctx->func_hash[slot]) != UINT32_MAX) {
		if (!strcmp(ctx->funcs[i], name))
			return (int)i;
		slot = (slot + 1) & ctx->func_mask;
	}
	return -1;
}

int enc_ctx__load_syms(struct enc_ctx *ctx)
{
	const struct elf_file *ef = &ctx->ef;
	size_t pcpu_shndx = 0, i, nf = 0, np = 0;
	struct elf_symtab st;
	Elf_Scn *scn;
	GElf_Shdr shdr;
	GElf_Sym sym;
	Elf32_Word shndx;
	const char *name;
	int err;

	scn = elf_file__section(ef, PERCPU_SECTION, &shdr);
	if (scn && (ctx->feats & BTF_FEAT_VAR)) {
		pcpu_shndx = elf_ndxscn(scn);
		ctx->has_pcpu = true;
		ctx->pcpu_addr = ctx->is_rel ? 0 : shdr.sh_addr;
		ctx->pcpu_size = shdr.sh_size;
	}
	err = elf_file__symtab(ef, &st);
	if (err == -ENOENT)
		return 0;
	if (err)
		return err;
	ctx->funcs = calloc(st.count + 1, sizeof(*ctx->funcs));
	ctx->pcpu = calloc(st.count + 1, sizeof(*ctx->pcpu));
	if (!ctx->funcs || !ctx->pcpu)
		return -ENOMEM;
	for (i = 1; i < st.count; i++) {
		name = elf_file__sym(ef, &st, i, &sym, &shndx);
		if (!name || !*name)
			continue;
		if (GELF_ST_TYPE(sym.st_info) == STT_FUNC) {
			ctx->funcs[nf++] = name;
		} else if (pcpu_shndx && shndx == pcpu_shndx &&
			   GELF_ST_TYPE(sym.st_info) == STT_OBJECT && sym.st_size &&
			   name_valid(name)) {
			ctx->pcpu[np].off = sym.st_value - ctx->pcpu_addr;
			ctx->pcpu[np].size = sym.st_size;
			ctx->pcpu[np++].name = name;
		}
	}
	qsort(ctx->funcs, nf, sizeof(*ctx->funcs), cmp_str);
	ctx->nfuncs = uniq(ctx->funcs, nf);
	qsort(ctx->pcpu, np, sizeof(*ctx->pcpu), cmp_pcpu);
	ctx->npcpu = np;
	return build_func_hash(ctx);
}
