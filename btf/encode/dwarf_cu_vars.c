// SPDX-License-Identifier: GPL-2.0
/*
 * A variable DIE -> VAR in its DATASEC (dwarf_cu_int.h): its address
 * from DW_AT_location (libdw for the forms the cursor leaves to it), its
 * section from the ELF's, per-CPU variables by pahole 1.24's rules or
 * every global one with the global_var feature, relocatable files by
 * their symbols.  A variable without an address, or one the features do
 * not ask for, gets nothing.
 */
#include <dwarf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>

#include "btf/encode/dwarf_cu_int.h"
#include "lib/array.h"

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
		return dcu__type_id(b, &spec, true, t);
	return dcu__type_id(b, die, true, t);
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
		return dcu__btf_ret(b, die, id);
	if (array__grow(&b->vars, &b->vars_cap, b->nvars + 1, sizeof(*b->vars), 64))
		return -ENOMEM;
	b->vars[b->nvars++] = (struct enc_var){ off, size, shndx };
	if (b->decl_tags)
		return dcu__emit_decl_tags(b, die, id, -1);
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
	size_t i;

	if (ctx->opts->rules < BTF_RULES_PAHOLE_1_30)
		return emit_pcpu_var_124(b, die, addr);
	for (i = 0; i < ctx->npcpu_shadow; i++)
		if (off >= ctx->pcpu_shadow[i].lo && off < ctx->pcpu_shadow[i].hi)
			return 0;	/* an earlier section holds it, for pahole */
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

int dcu__emit_var(struct enc_batch *b, const die_t *die)
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
