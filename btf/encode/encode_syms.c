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
#include <unistd.h>

#include <elfutils/libdwfl.h>

#include "btf/encode/encode_int.h"
#include "lib/hash.h"

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

static int cmp_obj(const void *a, const void *b)
{
	const struct enc_obj *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	return x->shndx < y->shndx ? -1 : x->shndx > y->shndx;
}

/* Names BTF accepts for a VAR: a C identifier, dots allowed. */
bool enc_name_valid(const char *p)
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

/* Does function symbol I start with the LEN bytes of NAME, then a '.'? */
static bool func_has_prefix(const struct enc_ctx *ctx, uint32_t i, const char *name, size_t len)
{
	return !strncmp(ctx->funcs[i], name, len) && ctx->funcs[i][len] == '.';
}

/*
 * optimized_func: gcc's clones (foo.isra.0, foo.constprop.0) have no symbol
 * "foo"; pahole then gives the DWARF function "foo" the FUNC of the clone:
 * the first, in sorted order, of the symbols that start with "foo.".
 * Looked up in pre_hash, which holds each symbol's every part before a '.',
 * by the first symbol that has it (a binary search over the names, 17
 * string compares each a cache miss, was 2% of a vmlinux's CPU: most
 * function DIEs have no symbol of their name, static inlines above all).
 */
int enc_ctx__func_prefix(const struct enc_ctx *ctx, const char *name)
{
	size_t len = strlen(name), slot;
	uint32_t i;

	if (!ctx->pre_hash)
		return -1;
	slot = hash_fnv1a(HASH_FNV1A_SEED, name, len) & ctx->pre_mask;
	while ((i = ctx->pre_hash[slot]) != UINT32_MAX) {
		if (func_has_prefix(ctx, i, name, len))
			return (int)i;
		slot = (slot + 1) & ctx->pre_mask;
	}
	return -1;
}

/* pre_hash: every function symbol's prefixes before a '.', each by its
 * first symbol (funcs are sorted: the first met). */
static int build_prefix_hash(struct enc_ctx *ctx)
{
	size_t i, n = 64, npre = 0, slot;
	const char *d;
	uint32_t k;

	for (i = 0; i < ctx->nfuncs; i++)
		for (d = strchr(ctx->funcs[i], '.'); d; d = strchr(d + 1, '.'))
			npre++;
	if (!npre)
		return 0;
	while (n < npre * 2)
		n *= 2;
	ctx->pre_hash = malloc(n * sizeof(*ctx->pre_hash));
	if (!ctx->pre_hash)
		return -ENOMEM;
	memset(ctx->pre_hash, 0xff, n * sizeof(*ctx->pre_hash));
	ctx->pre_mask = n - 1;
	for (i = 0; i < ctx->nfuncs; i++) {
		for (d = strchr(ctx->funcs[i], '.'); d; d = strchr(d + 1, '.')) {
			size_t len = (size_t)(d - ctx->funcs[i]);

			slot = hash_fnv1a(HASH_FNV1A_SEED, ctx->funcs[i], len) & ctx->pre_mask;
			while ((k = ctx->pre_hash[slot]) != UINT32_MAX &&
			       !func_has_prefix(ctx, k, ctx->funcs[i], len))
				slot = (slot + 1) & ctx->pre_mask;
			if (k == UINT32_MAX)
				ctx->pre_hash[slot] = (uint32_t)i;
		}
	}
	return 0;
}

int enc_ctx__func_of(const struct enc_ctx *ctx, const char *name)
{
	int idx = enc_ctx__func(ctx, name);

	if (idx < 0 && ctx->has_suffix && (ctx->feats & BTF_FEAT_OPTIMIZED_FUNC))
		idx = enc_ctx__func_prefix(ctx, name);
	return idx;
}

/*
 * pahole 1.32 leaves out of its function table the symbols of code that is
 * not a whole function: a suffix with ".part" (gcc's partial inlining) or
 * ".cold" (a function's cold path).  A function whose only symbol is
 * foo.part.0 then gets no FUNC.
 */
static bool not_a_function(const char *name)
{
	const char *dot = strchr(name, '.');

	return dot && (strstr(dot, ".part") || strstr(dot, ".cold"));
}

/* A function symbol by the name before its first '.', for mark_ambiguous. */
struct fsym {
	const char *name;
	size_t blen;		/* the name before its first '.' */
	uint64_t addr;
};

static int cmp_fsym(const void *a, const void *b)
{
	const struct fsym *x = a, *y = b;
	size_t n = x->blen < y->blen ? x->blen : y->blen;
	int c = strncmp(x->name, y->name, n);

	if (c)
		return c;
	if (x->blen != y->blen)
		return x->blen < y->blen ? -1 : 1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/*
 * pahole 1.32: a function whose symbols (foo, foo.isra.0, or two static
 * foo in different units; .part and .cold left out) are at two or more
 * addresses gets no FUNC, "ambiguous address": fentry could not say which
 * one it attaches to.  Sorted by name then address, a group is ambiguous
 * when its first and last addresses differ.  pahole decides each group as
 * it meets the next one, so the last name of all is never ambiguous: so
 * here.  Each symbol of an ambiguous group is marked in ctx->func_ambig,
 * and every symbol's address kept in ctx->func_addr (a FUNC's prototype
 * is the definition's at that address, dcu__emit_func).
 */
static int mark_ambiguous(struct enc_ctx *ctx, struct fsym *v, size_t n)
{
	size_t i, j, k;
	int idx;

	ctx->func_ambig = calloc(ctx->nfuncs + 1, 1);
	ctx->func_addr = calloc(ctx->nfuncs + 1, sizeof(*ctx->func_addr));
	if (!ctx->func_ambig || !ctx->func_addr)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		idx = enc_ctx__func(ctx, v[i].name);
		if (idx >= 0)
			ctx->func_addr[idx] = v[i].addr;
	}
	qsort(v, n, sizeof(*v), cmp_fsym);
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && v[j].blen == v[i].blen &&
		     !strncmp(v[j].name, v[i].name, v[i].blen); j++)
			;
		if (j == n || v[i].addr == v[j - 1].addr)
			continue;
		for (k = i; k < j; k++) {
			idx = enc_ctx__func(ctx, v[k].name);
			if (idx >= 0)
				ctx->func_ambig[idx] = 1;
		}
	}
	return 0;
}

/* global_var: every section a variable may live in, as pahole 1.28 looks. */
static int load_secs(struct enc_ctx *ctx)
{
	const struct elf_file *ef = &ctx->ef;
	Elf_Scn *scn = NULL;
	GElf_Shdr shdr;
	size_t n = 0;

	if (elf_getshdrnum(ef->elf, &n))
		return -EINVAL;
	ctx->secs = calloc(n + 1, sizeof(*ctx->secs));
	if (!ctx->secs)
		return -ENOMEM;
	while ((scn = elf_nextscn(ef->elf, scn))) {
		struct enc_sec *s = &ctx->secs[ctx->nsecs];

		if (!gelf_getshdr(scn, &shdr) ||
		    (shdr.sh_type != SHT_PROGBITS && shdr.sh_type != SHT_NOBITS))
			continue;
		s->name = elf_file__section_name(ef, &shdr);
		if (!s->name)
			continue;
		s->addr = shdr.sh_addr;
		s->size = shdr.sh_size;
		s->shndx = elf_ndxscn(scn);
		ctx->nsecs++;
	}
	return 0;
}

/* The first of ctx->objs (sorted by name) named NAME, or where it would be. */
static size_t first_obj(const struct enc_ctx *ctx, const char *name)
{
	size_t lo = 0, hi = ctx->nobjs;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (strcmp(ctx->objs[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * A name is usually defined once.  Two static variables of one name in
 * different CUs are told apart by the offset the relocation produced;
 * two at the same offset of different sections cannot be.
 */
const struct enc_obj *enc_ctx__obj(const struct enc_ctx *ctx, const char *name,
				   uint64_t addr)
{
	const struct enc_obj *hit = NULL;
	size_t lo = first_obj(ctx, name), end, i;

	for (end = lo; end < ctx->nobjs && !strcmp(ctx->objs[end].name, name); end++)
		;
	if (end - lo == 1)
		return &ctx->objs[lo];
	for (i = lo; i < end; i++) {
		if (ctx->objs[i].off != addr)
			continue;
		if (hit)
			return NULL;
		hit = &ctx->objs[i];
	}
	return hit;
}

/* Is there an object symbol NAME in section SHNDX?  (ctx->objs loaded.) */
bool enc_ctx__obj_in(const struct enc_ctx *ctx, const char *name, uint32_t shndx)
{
	size_t i;

	for (i = first_obj(ctx, name); i < ctx->nobjs && !strcmp(ctx->objs[i].name, name); i++)
		if (ctx->objs[i].shndx == shndx)
			return true;
	return false;
}

/*
 * pahole 1.28 to 1.32 place a variable in the first PROGBITS or NOBITS
 * section, in the section table's order, whose [sh_addr, sh_addr +
 * sh_size) holds its address, and keep it only if that is .data..percpu.
 * In a module that ELF is libdwfl's, whose layout gives every allocated
 * section an address of its own, but leaves the others (.comment, the
 * .debug_* sections) at 0: where the linker put those before
 * .data..percpu (sid's 7.2 kvm.ko, sctp.ko...), the one a variable's
 * address falls in first hides it, and pahole writes no VAR for it.
 * The offsets hidden so, into ctx->pcpu_shadow.  libdwfl's layout is
 * only asked for when such a section is there (it relocates the file).
 */
static const Dwfl_Callbacks layout_cb = {
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

/* Sections as pahole sees them: libdwfl's ELF in a module, else the file's. */
static int pcpu_shadow_in(struct enc_ctx *ctx, Elf *elf, uint64_t bias)
{
	Elf_Scn *scn;
	GElf_Shdr shdr;
	uint64_t lo, hi, start;
	size_t i;

	scn = elf_getscn(elf, ctx->pcpu_shndx);
	if (!scn || !gelf_getshdr(scn, &shdr))
		return -EINVAL;
	start = shdr.sh_addr + bias;
	ctx->pcpu_shadow = calloc(ctx->pcpu_shndx, sizeof(*ctx->pcpu_shadow));
	if (!ctx->pcpu_shadow)
		return -ENOMEM;
	for (i = 1; i < ctx->pcpu_shndx; i++) {
		scn = elf_getscn(elf, i);
		if (!scn || !gelf_getshdr(scn, &shdr) ||
		    (shdr.sh_type != SHT_PROGBITS && shdr.sh_type != SHT_NOBITS))
			continue;
		lo = shdr.sh_addr + ((shdr.sh_flags & SHF_ALLOC) ? bias : 0);
		hi = lo + shdr.sh_size;
		if (hi <= start || lo >= start + ctx->pcpu_size)
			continue;
		ctx->pcpu_shadow[ctx->npcpu_shadow++] = (struct enc_range){
			lo > start ? lo - start : 0, hi - start };
	}
	return 0;
}

static int pcpu_shadow(struct enc_ctx *ctx)
{
	const struct elf_file *ef = &ctx->ef;
	Dwfl_Module *mod;
	Dwfl *dwfl;
	Dwarf_Addr bias;
	Elf_Scn *scn;
	GElf_Shdr shdr;
	Elf *elf;
	size_t i;
	int fd, err;

	if (!ctx->is_rel)
		return pcpu_shadow_in(ctx, ef->elf, 0);
	for (i = 1; i < ctx->pcpu_shndx; i++) {
		scn = elf_getscn(ef->elf, i);
		if (scn && gelf_getshdr(scn, &shdr) && !(shdr.sh_flags & SHF_ALLOC) &&
		    (shdr.sh_type == SHT_PROGBITS || shdr.sh_type == SHT_NOBITS) && shdr.sh_size)
			break;
	}
	if (i == ctx->pcpu_shndx)
		return 0;	/* every earlier section has an address of its own */
	dwfl = dwfl_begin(&layout_cb);
	if (!dwfl)
		return -ENOMEM;
	fd = dup(ef->fd);
	err = fd < 0 ? -errno : 0;
	mod = err ? NULL : dwfl_report_offline(dwfl, "", ctx->opts->path, fd);
	if (!err && !mod)
		close(fd);	/* libdwfl owns it once it has the module */
	if (!err && (!mod || dwfl_report_end(dwfl, NULL, NULL)))
		err = -EINVAL;
	elf = err ? NULL : dwfl_module_getelf(mod, &bias);
	if (!err)
		err = elf ? pcpu_shadow_in(ctx, elf, bias) : -EINVAL;
	dwfl_end(dwfl);
	return err;
}

/* A variable's symbol: defined in a section, not common or absolute. */
static bool is_obj(const GElf_Sym *sym, Elf32_Word shndx)
{
	return GELF_ST_TYPE(sym->st_info) == STT_OBJECT && shndx != SHN_UNDEF &&
	       (shndx < SHN_LORESERVE || shndx > SHN_HIRESERVE);
}

int enc_ctx__load_syms(struct enc_ctx *ctx)
{
	const struct elf_file *ef = &ctx->ef;
	size_t pcpu_shndx = 0, i, nf = 0, np = 0, no = 0;
	/* global_var: object symbols by name (see enc_ctx__obj, enc_ctx__obj_in). */
	bool obj_syms = ctx->feats & BTF_FEAT_GLOBAL_VAR;
	/*
	 * pahole 1.24 takes per-CPU variables from their sized symbols; 1.28
	 * and later from DWARF, asking the symbol table only whether a name
	 * is there (zero-sized symbols count).
	 */
	bool rules_130 = ctx->opts->rules >= BTF_RULES_PAHOLE_1_30;
	bool rules_132 = ctx->opts->rules >= BTF_RULES_PAHOLE_1_32;
	struct fsym *fsyms = NULL;
	size_t nfs = 0;
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
		ctx->pcpu_shndx = pcpu_shndx;
		ctx->pcpu_addr = ctx->is_rel ? 0 : shdr.sh_addr;
		ctx->pcpu_size = shdr.sh_size;
		if (rules_130) {
			err = pcpu_shadow(ctx);
			if (err)
				return err;
		}
	}
	/*
	 * In ET_REL every section starts at address 0: a variable's address
	 * does not say which section it is in, so its symbol does (objs).
	 */
	if (ctx->feats & BTF_FEAT_GLOBAL_VAR) {
		err = load_secs(ctx);
		if (err)
			return err;
	}
	err = elf_file__symtab(ef, &st);
	if (err == -ENOENT)
		return 0;
	if (err)
		return err;
	ctx->funcs = calloc(st.count + 1, sizeof(*ctx->funcs));
	ctx->pcpu = calloc(st.count + 1, sizeof(*ctx->pcpu));
	if (obj_syms)
		ctx->objs = calloc(st.count + 1, sizeof(*ctx->objs));
	if (rules_132)
		fsyms = calloc(st.count + 1, sizeof(*fsyms));
	if (!ctx->funcs || !ctx->pcpu || (obj_syms && !ctx->objs) || (rules_132 && !fsyms)) {
		err = -ENOMEM;
		goto cleanup;
	}
	for (i = 1; i < st.count; i++) {
		name = elf_file__sym(ef, &st, i, &sym, &shndx);
		if (!name || !*name)
			continue;
		if (obj_syms && is_obj(&sym, shndx))
			ctx->objs[no++] = (struct enc_obj){ name, sym.st_value, shndx };
		if (GELF_ST_TYPE(sym.st_info) == STT_FUNC) {
			if (rules_132) {
				if (not_a_function(name))
					continue;
				fsyms[nfs++] = (struct fsym){ name, strcspn(name, "."), sym.st_value };
			}
			ctx->funcs[nf++] = name;
			if (strchr(name, '.'))
				ctx->has_suffix = true;
		} else if (pcpu_shndx && shndx == pcpu_shndx &&
			   GELF_ST_TYPE(sym.st_info) == STT_OBJECT &&
			   (sym.st_size || rules_130) && enc_name_valid(name)) {
			ctx->pcpu[np].off = sym.st_value - ctx->pcpu_addr;
			ctx->pcpu[np].size = sym.st_size;
			ctx->pcpu[np++].name = name;
		}
	}
	qsort(ctx->funcs, nf, sizeof(*ctx->funcs), cmp_str);
	ctx->nfuncs = uniq(ctx->funcs, nf);
	qsort(ctx->pcpu, np, sizeof(*ctx->pcpu), cmp_pcpu);
	ctx->npcpu = np;
	if (no)
		qsort(ctx->objs, no, sizeof(*ctx->objs), cmp_obj);
	ctx->nobjs = no;
	err = build_func_hash(ctx);
	if (!err && ctx->has_suffix)
		err = build_prefix_hash(ctx);
	if (!err && rules_132)
		err = mark_ambiguous(ctx, fsyms, nfs);
cleanup:
	free(fsyms);
	return err;
}
