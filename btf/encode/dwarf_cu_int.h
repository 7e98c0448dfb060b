/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the parts of the DWARF-to-BTF pass over one compile unit share
 * (btf/encode/dwarf_cu.c and the three files it calls), and nothing else includes:
 *
 *   dwarf_cu.c        the driver: the first walk (ids for every type DIE,
 *                     functions and variables set aside), the index of type
 *                     DIEs by offset, type references, names through the
 *                     batch's string caches; dcu__encode
 *   dwarf_cu_types.c  the second walk: one type DIE -> its BTF type(s)
 *   dwarf_cu_funcs.c  a function DIE -> FUNC + FUNC_PROTO, when its symbol
 *                     and its signature allow it
 *   dwarf_cu_vars.c   a variable DIE -> VAR in its DATASEC, when its address
 *                     and the features allow it
 *
 * Every function here works on the batch in hand (struct enc_batch, whose
 * cursor b->u is on the CU being encoded) and returns 0 (or a BTF id) or
 * a negative errno with the reason in b->err (enc_batch__err): the first
 * reason is kept.  They never print.  The emitters append to b->btf, in
 * the order the driver calls them: ids are assigned by the first walk, so
 * an emitter that adds a different number of types than its entry's nids
 * is a bug the driver reports ("BTF id drift").
 */
#ifndef FRUGAL_BTF_DWARF_CU_INT_H
#define FRUGAL_BTF_DWARF_CU_INT_H

#include <dwarf.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include "btf/encode/encode_int.h"

/* Bounds the _Atomic aliases followed in one type lookup (a loop in bad DWARF). */
#define MAX_ALIAS_DEPTH 16

/* clang's tag for btf_type_tag/btf_decl_tag; elfutils 0.188 lacks the name. */
#ifndef DW_TAG_LLVM_annotation
#define DW_TAG_LLVM_annotation 0x6000
#endif

/* The name a repeated type is added under before dcu__named() names it. */
#define PH_NAME	"_"

typedef struct dwarf_die die_t;

static inline int dwarf_err(struct enc_batch *b, const die_t *die, int err)
{
	return enc_batch__err(b, err == -ENOTSUP ? err : -EINVAL, "%s DWARF at DIE 0x%llx",
			      err == -ENOTSUP ? "unsupported" : "bad",
			      (unsigned long long)die->off);
}

/* ---- the cursor, as the encoder uses it ---- */

/* Attribute NAME of DIE (of the CU in hand): true if it has one. */
static inline bool attr(const struct enc_batch *b, const die_t *die, unsigned int name,
			struct dwarf_attr *a)
{
	return dwarf_die__attr(b->u, die, name, a) > 0;
}

static inline bool attr_integrate(const struct enc_batch *b, const die_t *die,
				  unsigned int name, struct dwarf_attr *a)
{
	return dwarf_die__attr_integrate(b->u, die, name, a) > 0;
}

static inline const char *str_of(const struct enc_batch *b, const struct dwarf_attr *a)
{
	return dwarf_attr__string(b->u, a);
}

/* libdw's dwarf_diename: the name, through abstract origins and specifications. */
static inline const char *diename(const struct enc_batch *b, const die_t *die)
{
	struct dwarf_attr a;

	return attr_integrate(b, die, DW_AT_name, &a) ? str_of(b, &a) : NULL;
}

/* The DIE attribute A refers to, in this CU. */
static inline bool ref_die(const struct enc_batch *b, const struct dwarf_attr *a, die_t *t)
{
	uint64_t off;

	return !dwarf_attr__ref(b->u, a, &off) && !dwarf_die__offdie(b->u, off, t);
}

static inline int64_t udata(const struct enc_batch *b, const die_t *die, unsigned int name,
			    int64_t dflt)
{
	struct dwarf_attr a;
	uint64_t w;

	if (!attr(b, die, name, &a) || dwarf_attr__udata(b->u, &a, &w))
		return dflt;
	return (int64_t)w;
}

static inline bool flag(const struct enc_batch *b, const die_t *die, unsigned int name)
{
	struct dwarf_attr a;
	bool v = false;

	return attr(b, die, name, &a) && !dwarf_attr__flag(b->u, &a, &v) && v;
}

/*
 * Children of a DIE: for (r = first(b, d, &c); !r; r = next(b, &c)).  r > 0
 * at the end, < 0 on bad DWARF.
 */
static inline int first(const struct enc_batch *b, const die_t *die, die_t *c)
{
	return dwarf_die__child(b->u, die, c);
}

static inline int next(const struct enc_batch *b, die_t *c)
{
	return dwarf_die__sibling(b->u, c, c);
}

/*
 * The DIE as libdw sees it, for what lib/dwarf_die leaves to libdw: NULL
 * if libdw cannot find it either.
 */
static inline Dwarf_Die *libdw_die(const struct enc_batch *b, const die_t *die, Dwarf_Die *mem)
{
	return b->dbg ? dwarf_offdie(b->dbg, die->off, mem) : NULL;
}

/* ---- dwarf_cu.c ---- */

/* Is DIE an LLVM annotation named KIND ("btf_type_tag", "btf_decl_tag")? Its value. */
const char *dcu__annotation(const struct enc_batch *b, const die_t *die, const char *kind);

/* A base type's size that BTF can hold. */
bool dcu__base_size_ok(int64_t size);

/*
 * The BTF id of DIE's DW_AT_type (0 for void).  Aliases (_Atomic, which BTF
 * has no kind for) resolve to what they qualify.  A reference to a DIE that
 * is not a type of this CU is bad DWARF.
 */
int dcu__type_id(struct enc_batch *b, const die_t *die, bool integrate, uint32_t *id);

/* The BTF id that DW_AT_type attribute A (of DIE) refers to. */
int dcu__attr_type_id(struct enc_batch *b, const struct dwarf_attr *a, const die_t *die,
		      uint32_t *id);

/* ID as libbpf's btf__add_* returned it: 0, or its error with DIE named in b->err. */
int dcu__btf_ret(struct enc_batch *b, const die_t *die, int id);

/* The string offset of name attribute A in b->btf; 0 for no name (A may be NULL). */
int dcu__name_off(struct enc_batch *b, const struct dwarf_attr *a);

/* Attribute NAME of DIE as a string offset in b->btf: 0 when it has none. */
int dcu__name_off_of(struct enc_batch *b, const die_t *die, unsigned int name, bool integrate);

/* Name the last member/enumerator/param of type ID, or type ID itself. */
void dcu__set_last_name(struct enc_batch *b, int id, int off);
void dcu__set_type_name(struct enc_batch *b, int id, int off);

/* DIE's name: its offset in b->btf (0 for none, <0 an error), the string in *NAME. */
int dcu__cached_diename(struct enc_batch *b, const die_t *die, const char **name);

/* ID as libbpf returned it, named OFF when it was added under PH_NAME. */
int dcu__named(struct enc_batch *b, int id, int off);

/* ---- dwarf_cu_types.c ---- */

/* Entry E's BTF type(s), exactly e->nids of them, at ids e->id onwards. */
int dcu__emit_ent(struct enc_batch *b, const struct cu_ent *e, const die_t *die);

/*
 * FUNC_PROTO from DIE's formal parameters (up to offset LAST); NAMED gives
 * them their names (a function's, not a subroutine type's).
 */
int dcu__emit_proto(struct enc_batch *b, const die_t *die, bool named, uint64_t last);

/* DIE's btf_decl_tag annotations on type ID (COMP: the member, or -1). */
int dcu__emit_decl_tags(struct enc_batch *b, const die_t *die, uint32_t id, int comp);

/* Decl tags of a struct/union/typedef and its members: after all of the CU's types. */
int dcu__emit_type_decl_tags(struct enc_batch *b, const struct cu_ent *e, const die_t *die);

/* ---- dwarf_cu_funcs.c ---- */

/* SUB's FUNC, if its ELF symbol and signature allow one; else 0, nothing added. */
int dcu__emit_func(struct enc_batch *b, const struct cu_sub *sub);

/* ---- dwarf_cu_vars.c ---- */

/* DIE's VAR (and its DATASEC entry), if its address and the features allow one. */
int dcu__emit_var(struct enc_batch *b, const die_t *die);

#endif
