// SPDX-License-Identifier: GPL-2.0
/*
 * A function DIE -> FUNC and its FUNC_PROTO (dwarf_cu_int.h), under
 * pahole's rules: an ELF symbol of its name, every parameter named, its
 * parameters in the registers the ABI says (optimized_func), and one
 * signature for all of its definitions (consistent_func), kept as a 64-bit
 * hash per definition so that batches compare them without their BTF.  A
 * function that fails a rule gets no FUNC; encode.c drops one whose later
 * definitions disagree.  pahole 1.32 adds three rules: no FUNC for a clone
 * with optimized-out parameters nor for reordered parameters, and the
 * prototype of the definition at the symbol's address (the strong one).
 */
#include <dwarf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>

#include "btf/encode/dwarf_cu_int.h"
#include "lib/array.h"
#include "lib/hash.h"

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


/*
 * pahole 1.28 to 1.30 read the register a parameter arrives in only from
 * expressions of one operation (a trailing DW_OP_stack_value aside):
 * DW_OP_regN in the first entry of its location list, DW_OP_entry_value
 * of one operation in any entry.  Its own register, wherever found, wins;
 * else the last found.  A longer expression says nothing: arm64 passes a
 * large union by reference and gcc describes it as DW_OP_reg19;
 * DW_OP_piece 4; DW_OP_piece 28, so a parameter with only such entries is
 * "optimized out" there, not in a wrong register, and keeps its FUNC
 * (6.12's mlx5_devlink_max_uc_list_validate).  -1: none found.
 */
static int loc_reg_libdw_130(Dwarf_Attribute *a, int expected)
{
	Dwarf_Addr base, start, end;
	Dwarf_Op *expr, *inner;
	Dwarf_Attribute ia;
	ptrdiff_t off = 0;
	size_t len, ilen;
	int n, reg = -1;

	for (n = 0; reg != expected &&
		    (off = dwarf_getlocations(a, off, &base, &start, &end, &expr, &len)) > 0; n++) {
		if (len > 1 && expr[len - 1].atom == DW_OP_stack_value)
			len--;
		if (len != 1)
			continue;
		if (expr[0].atom >= DW_OP_reg0 && expr[0].atom <= DW_OP_reg31) {
			if (n == 0)
				reg = expr[0].atom;
		} else if ((expr[0].atom == DW_OP_entry_value ||
			    expr[0].atom == DW_OP_GNU_entry_value) &&
			   !dwarf_getlocation_attr(a, expr, &ia) &&
			   !dwarf_getlocation(&ia, &inner, &ilen) && ilen == 1) {
			reg = inner->atom;	/* 1.30 takes any lone operation here */
		}
	}
	return reg;
}

/*
 * 1.30's verdict: a parameter found in a register other than EXPECTED.
 * The cursor answers the common cases (the list starts in the expected
 * register: pahole looks no further; a lone expression of one register,
 * or one that starts with neither a register nor DW_OP_entry_value);
 * libdw reads the rest as pahole does, through the whole list.
 */
static bool param_unexpected_reg(const struct enc_batch *b, const die_t *parm, int expected)
{
	struct dwarf_attr a;
	Dwarf_Die mem, *d;
	Dwarf_Attribute la;
	size_t len;
	uint8_t op;
	int r, reg;

	if (!attr(b, parm, DW_AT_location, &a))
		return false;
	r = dwarf_attr__first_op(b->u, &a, &op, &len);
	if (r <= 0 && r != -ENOTSUP)
		return false;
	if (r > 0 && len == 1 && op == expected)
		return false;
	if (r > 0 && a.form == DW_FORM_exprloc) {
		if (len == 1 && op >= DW_OP_reg0 && op <= DW_OP_reg31)
			return true;
		if ((op < DW_OP_reg0 || op > DW_OP_reg31) && op != DW_OP_entry_value &&
		    op != DW_OP_GNU_entry_value)
			return false;
	}
	d = libdw_die(b, parm, &mem);
	if (!d || !dwarf_attr(d, DW_AT_location, &la))
		return false;
	reg = loc_reg_libdw_130(&la, expected);
	return reg >= 0 && reg != expected;
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
 * pahole 1.32 reads the register a parameter arrives in from the first
 * entry of its location list (or its one expression): DW_OP_regN, or
 * DW_OP_bregN with DW_OP_stack_value, or the first register of a piece
 * list; failing that, from any entry that is only DW_OP_entry_value of a
 * register.  Anything else (a stack slot, a constant) does not say: -1.
 */
static int loc_reg_libdw(Dwarf_Attribute *a)
{
	Dwarf_Addr base, start, end;
	Dwarf_Op *expr, *inner;
	Dwarf_Attribute ia;
	ptrdiff_t off = 0;
	size_t len, ilen, i;
	bool stack_value;
	int n, reg = -1;

	for (n = 0; (off = dwarf_getlocations(a, off, &base, &start, &end, &expr, &len)) > 0; n++) {
		if (!len)
			continue;
		stack_value = expr[len - 1].atom == DW_OP_stack_value;
		if (expr[0].atom == DW_OP_entry_value || expr[0].atom == DW_OP_GNU_entry_value) {
			if (reg < 0 && len == 1 + (size_t)stack_value &&
			    !dwarf_getlocation_attr(a, expr, &ia) &&
			    !dwarf_getlocation(&ia, &inner, &ilen) && ilen == 1 &&
			    inner->atom >= DW_OP_reg0 && inner->atom <= DW_OP_reg31)
				reg = inner->atom;
			continue;
		}
		if (n > 0 || reg >= 0)
			continue;
		if (expr[0].atom >= DW_OP_reg0 && expr[0].atom <= DW_OP_reg31)
			reg = expr[0].atom;
		else if (expr[0].atom >= DW_OP_breg0 && expr[0].atom <= DW_OP_breg31 && stack_value)
			reg = expr[0].atom - DW_OP_breg0 + DW_OP_reg0;
		else if (expr[0].atom == DW_OP_piece)
			for (i = 1; i < len && reg < 0; i++)
				if (expr[i].atom >= DW_OP_reg0 && expr[i].atom <= DW_OP_reg31)
					reg = expr[i].atom;
	}
	return reg;
}

/*
 * The same from the cursor where it can say (one DW_OP_regN, or a first
 * operation that names no register in a lone expression), else libdw.
 * -2: no location at all.
 */
static int param_loc_reg(const struct enc_batch *b, const die_t *parm)
{
	struct dwarf_attr a;
	Dwarf_Die mem, *d;
	Dwarf_Attribute la;
	size_t len;
	uint8_t op;
	int r;

	if (!attr(b, parm, DW_AT_location, &a))
		return -2;
	r = dwarf_attr__first_op(b->u, &a, &op, &len);
	if (r > 0 && len == 1 && op >= DW_OP_reg0 && op <= DW_OP_reg31)
		return op;
	if (r >= 0 && a.form == DW_FORM_exprloc &&
	    !(r > 0 && ((op >= DW_OP_reg0 && op <= DW_OP_breg31) || op == DW_OP_piece ||
			op == DW_OP_entry_value || op == DW_OP_GNU_entry_value)))
		return -1;
	d = libdw_die(b, parm, &mem);
	if (!d || !dwarf_attr(d, DW_AT_location, &la))
		return -1;
	return loc_reg_libdw(&la);
}

/* How many argument registers a parameter takes: a struct of 9 to 16 bytes two. */
static int param_slots(const struct enc_batch *b, const die_t *parm)
{
	struct dwarf_attr a;
	die_t t;
	int i;

	if (!attr_integrate(b, parm, DW_AT_type, &a) || !ref_die(b, &a, &t))
		return 1;
	for (i = 0; i < MAX_ALIAS_DEPTH; i++) {
		switch (dwarf_die__tag(&t)) {
		case DW_TAG_structure_type:
		case DW_TAG_union_type:
			return udata(b, &t, DW_AT_byte_size, 0) > 8 &&
			       udata(b, &t, DW_AT_byte_size, 0) <= 16 ? 2 : 1;
		case DW_TAG_const_type:
		case DW_TAG_volatile_type:
		case DW_TAG_typedef:
			if (!attr(b, &t, DW_AT_type, &a) || !ref_die(b, &a, &t))
				return 1;
			break;
		default:
			return 1;
		}
	}
	return 1;
}

/*
 * What pahole records of a definition before deciding on its FUNC: the
 * prototype's hash, and whether the compiler moved a register parameter
 * (unless a struct parameter makes the register mapping unknowable).
 */
static int func_sig(struct enc_batch *b, const die_t *die, uint64_t last, struct enc_fsig *out)
{
	const uint8_t *regs = NULL;
	int nregs = param_regs(b->ctx, &regs), i = 0, slot = 0, reg, err, r;
	bool unexpected = false, has_struct = false;
	bool rules_132 = b->ctx->opts->rules >= BTF_RULES_PAHOLE_1_32;
	uint64_t h = HASH_FNV1A_SEED;
	uint32_t t;
	die_t c;

	err = dcu__type_id(b, die, true, &t);
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
		err = dcu__type_id(b, &c, true, &t);
		if (err)
			return err;
		h = type_sig(b->btf, t, h);
		if (rules_132) {
			/* 1.32 counts argument registers by slots, a 16-byte struct two. */
			if (slot < nregs) {
				reg = param_loc_reg(b, &c);
				if (reg >= 0 && reg != regs[slot])
					unexpected = true;
				slot += param_slots(b, &c);
			}
		} else if (i < nregs && param_unexpected_reg(b, &c, regs[i])) {
			unexpected = true;
		}
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
	into->flags |= s->flags & (FSIG_UNEXPECTED | FSIG_OPTIMIZED | FSIG_REORDERED);
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
		return ctx->func_ambig && ctx->func_ambig[idx] ? -1 : idx;
	}
	if (!ctx->has_suffix || !(ctx->feats & BTF_FEAT_OPTIMIZED_FUNC))
		return -1;
	idx = enc_ctx__func_prefix(ctx, name);
	*saved = idx >= 0;
	return idx >= 0 && ctx->func_ambig && ctx->func_ambig[idx] ? -1 : idx;
}

/*
 * pahole 1.32's "optimized parameters": a parameter of this definition has
 * no location, or, among those passed in registers (the first NREGS
 * slots), one whose location does not name its register.
 */
static bool params_optimized(const struct enc_batch *b, const die_t *die, uint64_t last)
{
	int nregs = b->ctx->ef.ehdr.e_machine == EM_X86_64 ? 6 :
		    b->ctx->ef.ehdr.e_machine == EM_AARCH64 ? 8 : 0;
	int slot = 0, reg, r;
	die_t c;

	for (r = first(b, die, &c); !r && c.off <= last; r = next(b, &c)) {
		if (dwarf_die__tag(&c) != DW_TAG_formal_parameter)
			continue;
		reg = param_loc_reg(b, &c);
		if (reg == -2)
			return true;
		if (slot >= nregs)
			continue;
		if (reg < 0)
			return true;
		slot += param_slots(b, &c);
	}
	return false;
}

/*
 * pahole 1.32's "reordered parameters": a concrete definition whose Ith
 * parameter is not the Ith of the declaration it instantiates (its
 * DW_AT_abstract_origin), as when gcc drops or moves parameters.
 */
static bool params_reordered(const struct enc_batch *b, const die_t *die, uint64_t last)
{
	uint64_t offs[64], off;
	struct dwarf_attr a;
	die_t abs, c;
	int n = 0, i = 0, r;

	if (!attr(b, die, DW_AT_abstract_origin, &a) || !ref_die(b, &a, &abs))
		return false;
	for (r = first(b, &abs, &c); !r && n < 64; r = next(b, &c))
		if (dwarf_die__tag(&c) == DW_TAG_formal_parameter)
			offs[n++] = c.off;
	for (r = first(b, die, &c); !r && c.off <= last; r = next(b, &c)) {
		if (dwarf_die__tag(&c) != DW_TAG_formal_parameter)
			continue;
		if (i < n && attr(b, &c, DW_AT_abstract_origin, &a) &&
		    !dwarf_attr__ref(b->u, &a, &off) && off != offs[i])
			return true;
		i++;
	}
	return false;
}

/* A .isra or .constprop clone's symbol (gcc changed its ABI, maybe). */
static bool clone_symbol(const char *name)
{
	const char *dot = strchr(name, '.');

	return dot && (strstr(dot, ".isra") || strstr(dot, ".constprop"));
}

/*
 * pahole 1.32: is this definition the one at the symbol's address (its
 * DW_AT_low_pc), the strong one rather than a weak stub the linker
 * dropped?  Without the rule (no func_addr) every definition is.
 */
static bool at_symbol(const struct enc_batch *b, const die_t *die, int idx)
{
	Dwarf_Die mem, *d;
	struct dwarf_attr a;
	Dwarf_Addr pc;
	uint64_t v;

	if (!b->ctx->func_addr)
		return true;
	/*
	 * In a relocatable object (a module) pahole compares libdwfl's
	 * address of the definition, its sections laid out from 0x10000 up,
	 * with the symbol's section-relative st_value: never equal.  So no
	 * definition is at its symbol there: the first one gives the FUNC,
	 * and no clone is left out for its optimized parameters.
	 */
	if (b->ctx->is_rel)
		return false;
	if (!attr(b, die, DW_AT_low_pc, &a))
		return false;
	if (a.form == DW_FORM_addr && b->u->addrsz == 8) {
		memcpy(&v, a.p, sizeof(v));	/* little-endian targets only (param_regs) */
		return v == b->ctx->func_addr[idx];
	}
	d = libdw_die(b, die, &mem);
	return d && !dwarf_lowpc(d, &pc) && pc == b->ctx->func_addr[idx];
}

/*
 * A FUNC for a defined function with an ELF symbol of its name, the first
 * such definition only (pahole 1.24's rule); without any function symbols
 * (a stripped file), every external function.  A saved function's
 * definitions are all looked at; the FUNC is the first one's, and the
 * encoder drops it at the end if they disagree (encode.c).
 */
int dcu__emit_func(struct enc_batch *b, const struct cu_sub *sub)
{
	const die_t *die = &sub->die;
	uint64_t last = sub->last_param;
	const struct enc_ctx *ctx = b->ctx;
	const char *name;
	int idx = -1, proto, id, err, i = 0, r;
	bool saved = false, at_sym = true;
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
		at_sym = at_symbol(b, die, idx);
		if (saved && b->fsig) {
			struct enc_fsig s;

			err = func_sig(b, die, last, &s);
			if (err)
				return err;
			if (ctx->opts->rules >= BTF_RULES_PAHOLE_1_32) {
				if (params_reordered(b, die, last))
					s.flags |= FSIG_REORDERED;
				if (at_sym && clone_symbol(ctx->funcs[idx]) &&
				    params_optimized(b, die, last))
					s.flags |= FSIG_OPTIMIZED;
			}
			if (!(b->fsig[idx].flags & FSIG_SEEN)) {
				if (array__grow(&b->fsigs, &b->fsigs_cap, b->nfsigs + 1,
						sizeof(*b->fsigs), 256))
					return -ENOMEM;
				b->fsigs[b->nfsigs++].idx = (uint32_t)idx;
			}
			fsig_merge(&b->fsig[idx], &s);
		}
		/* A weak stub's FUNC gives way to the strong one's (index_funcs). */
		if (b->func_done[idx] == 1 || (b->func_done[idx] && !at_sym))
			return 0;
	} else if (!flag(b, die, DW_AT_external)) {
		return 0;
	}
	proto = dcu__emit_proto(b, die, true, last);
	if (proto < 0)
		return proto;
	id = btf__add_func(b->btf, name, b->ctx->func_addr && at_sym ? FUNC_MARK_AT_SYM :
			   BTF_FUNC_STATIC, proto);
	if (id < 0)
		return dcu__btf_ret(b, die, id);
	if (idx >= 0)
		b->func_done[idx] = at_sym ? 1 : 2;
	if (!b->decl_tags)
		return 0;
	err = dcu__emit_decl_tags(b, die, id, -1);
	if (err)
		return err;
	for (r = first(b, die, &c); !r && c.off <= last; r = next(b, &c)) {
		if (dwarf_die__tag(&c) != DW_TAG_formal_parameter)
			continue;
		err = dcu__emit_decl_tags(b, &c, id, i++);
		if (err)
			return err;
	}
	return 0;
}
