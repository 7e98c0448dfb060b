/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What pahole's layout view (layout.c) and its reorganization (reorg.c)
 * share: the per-struct state pahole keeps (its struct class and struct
 * class_member), so that a reorganized copy of a struct is one more
 * struct lay_type, held by its owner, printed and searched for holes by
 * the same code as the types of the BTF.  Private to btf/view.
 */
#ifndef FRUGAL_BTF_VIEW_LAYOUT_INT_H
#define FRUGAL_BTF_VIEW_LAYOUT_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "btf/view/view.h"

/*
 * A member as pahole's BTF loader leaves it, then as its hole search
 * does.  Its name and type are its own, not read back from the BTF
 * record: a reorganized copy holds the members in another order.
 */
struct lay_mem {
	uint32_t name_off;	/* 0: anonymous */
	uint32_t type;		/* the member's BTF type id, as recorded */
	uint32_t bit_offset, bit_size, byte_offset;
	uint32_t byte_size;
	uint32_t alignment;	/* inferred forced alignment, 0: none */
	int hole;		/* bytes after it */
	int8_t bitfield_offset;
	uint8_t bitfield_size;
	uint8_t bit_hole;	/* bits after it */
};

enum {
	LT_FIXED = 1 << 0,	/* mem[] and alignment filled */
	LT_HOLES = 1 << 1,	/* the hole search ran */
	LT_PACK_INFERRED = 1 << 2,
	LT_PACKED = 1 << 3,
	LT_FLEX_DONE = 1 << 4,
	LT_FLEX = 1 << 5,
	LT_EMB_FLEX_DONE = 1 << 6,
	LT_EMB_FLEX = 1 << 7,
};

/*
 * What pahole keeps per struct or union (its struct class), by type id,
 * filled by the fixup; a copy (pahole's class__clone()) keeps the id of
 * the type it was made from and owns its mem[].
 */
struct lay_type {
	struct lay_mem *mem;
	uint32_t id;			/* the BTF type it is a view of */
	uint32_t size;			/* bytes, as the BTF says (a copy's may shrink) */
	uint32_t nr_mem;
	uint32_t alignment;
	uint16_t natural_alignment;	/* 0: not computed yet */
	uint16_t pre_hole, padding;	/* pahole's widths: they wrap as its do */
	uint8_t nr_holes, nr_bit_holes, pre_bit_hole, bit_padding;
	uint8_t flags;
};

struct btf_layout {
	const struct btf *btf;
	struct btf_layout_conf conf;
	uint32_t nr_types;
	uint32_t ptr_size;
	struct lay_type **types;	/* by id, allocated when first reached */
	uint32_t *tdef;			/* by id, its first typedef (btf_layout__typedef_of) */
	int err;			/* the first allocation failure */
};

/* Struct ID fixed up and searched for holes (NULL: not a struct's, or no memory). */
struct lay_type *lay_holes(struct btf_layout *l, uint32_t id);
/* pahole's class__find_holes(), run again on LT's members as they are now. */
void lay_type__find_holes(struct lay_type *lt);
/* The name pahole's messages give member M ("(null)" for an anonymous one). */
const char *lay_mem__name(const struct btf_layout *l, const struct lay_mem *m);
/* pahole's tag__nr_cachelines() of struct LT. */
size_t lay_type__nr_cachelines(const struct btf_layout *l, const struct lay_type *lt);
/*
 * Struct LT as pahole's __class__fprintf() prints it, no ';' after it:
 * with the command's settings (--hex, -E), or with pahole's defaults when
 * DEFAULTS (its class__fprintf(), which the reorganization's steps use).
 */
size_t lay_type__print(struct btf_layout *l, struct lay_type *lt, bool defaults, FILE *fp);

#endif
