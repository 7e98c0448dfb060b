/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The types as each exporting compile unit sees them (btf/abi/abi_units.c),
 * the model genksyms' CRCs follow: a struct, union or enum that the unit
 * defining an export only declares (or defines in its own .c file) is
 * hashed by its name alone, so a change inside it does not change the
 * export; one a header of the unit defines is expanded, through pointers
 * too.  A kernel's one deduplicated BTF has no units: the DWARF beside it
 * tells, per unit, which names it defines.
 * Nothing here prints.
 */
#ifndef FRUGAL_BTF_ABI_UNITS_INT_H
#define FRUGAL_BTF_ABI_UNITS_INT_H

#include <stddef.h>
#include <stdint.h>

#include "lib/idxmap.h"

/*
 * The names of structs, unions and enums that some unit defines, each
 * once, as the report names types ("struct sk_buff", "enum pid_type"):
 * both sides' units share one table, so a name is one index.
 */
struct abi_tnames {
	char **name;
	size_t n, cap;
	struct idxmap map;
};

/* FULL's index ("struct sk_buff"), or -1: no unit of either side defines it. */
long abi_tnames__find(const struct abi_tnames *tn, const char *full);
void abi_tnames__free(struct abi_tnames *tn);

/* A unit that defines an export: the TNAMES indexes of what it defines, sorted. */
struct abi_unit {
	uint32_t *defs;
	size_t ndefs;
};

/*
 * An exported variable's type as its DWARF has it, for those BTF has no
 * VAR for (6.1's BTF has only per-CPU ones): the named type it ends at
 * (LEAF, as the report names types, "struct tracepoint", or a typedef's
 * or base type's name), and what wraps it on the way, outermost first
 * ("const [16]*"; "" for none).  CHAIN NULL: not a variable, or not one
 * told this way (a function pointer, an anonymous struct).
 */
struct abi_var_type {
	char *chain;
	char *leaf;
	int leaf_tag;		/* DW_TAG_structure_type, ..._typedef, ..._base_type */
};

/* One side's exporting units. */
struct abi_units {
	int32_t *unit_of;	/* per name: its index in UNITS; -1: none found */
	struct abi_var_type *var;	/* per name */
	size_t n, nfound;
	struct abi_unit *units;
	size_t nunits, units_cap;
};

/*
 * PATH's DWARF (a linked file: a -dbg vmlinux): for each of NAMES[0, N)
 * (sorted; ADDR[i] its address, 0: unknown), the unit holding its external
 * definition (DW_TAG_subprogram or DW_TAG_variable; of several, the one
 * at its address), and, for those units only, the struct, union and enum
 * names each defines at its top level in a header (not in its own .c
 * file: genksyms records no definition there), interned into TN; and
 * each variable's type (VAR).  0 or -errno.
 */
int abi_units__read(struct abi_units *u, const char *path, char *const *names,
		    const uint64_t *addr, size_t n, struct abi_tnames *tn);
void abi_units__free(struct abi_units *u);

#endif
