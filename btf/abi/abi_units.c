// SPDX-License-Identifier: GPL-2.0
/*
 * Which unit defines each export, and which structs, unions and enums
 * that unit defines (btf/abi/abi_units_int.h).  One pass over every
 * unit's top-level DIEs through libdw: C puts a unit's types and its
 * functions and variables there, and GCC's DW_AT_sibling lets the walk
 * step over a function's body without reading it.  A unit's definitions
 * are kept only when it defines an export (about half the units of a
 * kernel); the names are pointers into .debug_str until then.
 */
#include <dwarf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <elfutils/libdw.h>

#include "btf/abi/abi_units_int.h"
#include "lib/array.h"
#include "lib/elf_file.h"
#include "lib/hash.h"

#define TNAME_MAX 256	/* "struct " and a C identifier; longer ones are cut */

static bool tname_eq(void *ctx, uint32_t idx, const void *key)
{
	return !strcmp(((const struct abi_tnames *)ctx)->name[idx], key);
}

long abi_tnames__find(const struct abi_tnames *tn, const char *full)
{
	uint32_t idx;

	if (idxmap__find(&tn->map, hash_fnv1a_str(full), tname_eq, (void *)tn, full, &idx))
		return -1;
	return idx;
}

/* FULL's index in TN, added if new: 0 or -ENOMEM. */
static int tnames__intern(struct abi_tnames *tn, const char *full, uint32_t *out)
{
	uint32_t idx = (uint32_t)tn->n;
	int r;

	if (array__grow(&tn->name, &tn->cap, tn->n + 1, sizeof(*tn->name), 1024))
		return -ENOMEM;
	r = idxmap__find_or_add(&tn->map, hash_fnv1a_str(full), tname_eq, tn, full, &idx);
	if (r < 0)
		return r;
	if (r == 0) {
		tn->name[tn->n] = strdup(full);
		if (!tn->name[tn->n]) {
			idxmap__free(&tn->map);	/* the map would hold an index with no name */
			tn->map = (struct idxmap)IDXMAP_INIT;
			return -ENOMEM;
		}
		tn->n++;
	}
	*out = idx;
	return 0;
}

void abi_tnames__free(struct abi_tnames *tn)
{
	size_t i;

	for (i = 0; i < tn->n; i++)
		free(tn->name[i]);
	free(tn->name);
	idxmap__free(&tn->map);
	memset(tn, 0, sizeof(*tn));
	tn->map = (struct idxmap)IDXMAP_INIT;
}

/* A unit's definitions while it is walked, its names in .debug_str. */
struct pending {
	const char **name;
	const char **kind;	/* "struct ", "union ", "enum " */
	size_t n, cap, kind_cap;
	bool exports;
};

static int cmp_name(const void *key, const void *elt)
{
	return strcmp(key, *(char *const *)elt);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* DIE, a function or variable defined at the top level: the export it is, if one. */
static void unit__export(struct abi_units *u, Dwarf_Die *die, char *const *names,
			 const uint64_t *addr, uint8_t *exact, struct pending *p)
{
	Dwarf_Attribute attr;
	Dwarf_Addr low;
	const char *name;
	char *const *hit;
	bool at;
	size_t k;

	name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &attr));
	hit = name && u->n ? bsearch(name, names, u->n, sizeof(*names), cmp_name) : NULL;
	if (!hit)
		return;
	if (!dwarf_attr_integrate(die, DW_AT_external, &attr))
		return;	/* a static one of an export's name */
	k = (size_t)(hit - names);
	/* Of two external definitions (a __weak default and its override), the one at the address. */
	at = addr && addr[k] && dwarf_tag(die) == DW_TAG_subprogram && !dwarf_lowpc(die, &low) &&
	     low == addr[k];
	if (u->unit_of[k] >= 0 && (exact[k] || !at))
		return;
	if (u->unit_of[k] < 0)
		u->nfound++;
	u->unit_of[k] = (int32_t)u->nunits;	/* this unit's index, once kept */
	exact[k] = at;
	p->exports = true;
}

static int pending__add(struct pending *p, const char *kind, const char *name)
{
	if (array__grow(&p->name, &p->cap, p->n + 1, sizeof(*p->name), 256) ||
	    array__grow(&p->kind, &p->kind_cap, p->n + 1, sizeof(*p->kind), 256))
		return -ENOMEM;
	p->kind[p->n] = kind;
	p->name[p->n++] = name;
	return 0;
}

/* P's definitions as a kept unit's sorted, unique TN indexes. */
static int unit__keep(struct abi_units *u, const struct pending *p, struct abi_tnames *tn)
{
	uint32_t *defs = malloc((p->n ? p->n : 1) * sizeof(*defs));
	char full[TNAME_MAX];
	size_t i, nd = 0;
	int err = 0;

	if (!defs || array__grow(&u->units, &u->units_cap, u->nunits + 1, sizeof(*u->units), 256)) {
		free(defs);
		return -ENOMEM;
	}
	for (i = 0; !err && i < p->n; i++) {
		snprintf(full, sizeof(full), "%s%s", p->kind[i], p->name[i]);
		err = tnames__intern(tn, full, &defs[i]);
	}
	if (err) {
		free(defs);
		return err;
	}
	if (p->n)
		qsort(defs, p->n, sizeof(*defs), cmp_u32);
	for (i = 0; i < p->n; i++)
		if (!nd || defs[nd - 1] != defs[i])
			defs[nd++] = defs[i];
	u->units[u->nunits].defs = defs;
	u->units[u->nunits++].ndefs = nd;
	return 0;
}

static const char *def_kind(int tag)
{
	switch (tag) {
	case DW_TAG_structure_type:	return "struct ";
	case DW_TAG_union_type:		return "union ";
	case DW_TAG_enumeration_type:	return "enum ";
	default:			return NULL;
	}
}

/* CU's top-level DIEs: its exports and what it defines, kept when it exports. */
static int unit__scan(struct abi_units *u, Dwarf_Die *cu, char *const *names,
		      const uint64_t *addr, uint8_t *exact, struct abi_tnames *tn, struct pending *p)
{
	const char *kind, *name;
	Dwarf_Die die;
	int tag, err;

	p->n = 0;
	p->exports = false;
	if (dwarf_child(cu, &die))
		return 0;
	do {
		tag = dwarf_tag(&die);
		if (dwarf_hasattr(&die, DW_AT_declaration))
			continue;
		if (tag == DW_TAG_subprogram || tag == DW_TAG_variable) {
			unit__export(u, &die, names, addr, exact, p);
			continue;
		}
		kind = def_kind(tag);
		name = kind ? dwarf_diename(&die) : NULL;
		if (name && *name) {
			err = pending__add(p, kind, name);
			if (err)
				return err;
		}
	} while (!dwarf_siblingof(&die, &die));
	return p->exports ? unit__keep(u, p, tn) : 0;
}

int abi_units__read(struct abi_units *u, const char *path, char *const *names,
		    const uint64_t *addr, size_t n, struct abi_tnames *tn)
{
	struct pending p = {};
	struct elf_file ef;
	Dwarf_Off off = 0, next;
	Dwarf_Die cu;
	Dwarf *dw = NULL;
	uint8_t *exact;
	size_t hsize, i;
	char why[256];
	int err;

	memset(u, 0, sizeof(*u));
	u->n = n;
	u->unit_of = malloc((n ? n : 1) * sizeof(*u->unit_of));
	exact = calloc(n ? n : 1, 1);
	if (!u->unit_of || !exact) {
		free(exact);
		abi_units__free(u);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++)
		u->unit_of[i] = -1;
	err = elf_file__open(&ef, path, why, sizeof(why));
	if (err)
		goto out_free;
	err = elf_file__inflate_zstd(&ef);
	dw = err ? NULL : dwarf_begin_elf(ef.elf, DWARF_C_READ, NULL);
	if (!dw && !err)
		err = -ENODATA;
	while (dw && !err && !dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL)) {
		if (dwarf_offdie(dw, off + hsize, &cu))
			err = unit__scan(u, &cu, names, addr, exact, tn, &p);
		off = next;
	}
	if (dw)
		dwarf_end(dw);
	elf_file__close(&ef);
out_free:
	free(p.name);
	free(p.kind);
	free(exact);
	if (err)
		abi_units__free(u);
	return err;
}

void abi_units__free(struct abi_units *u)
{
	size_t i;

	for (i = 0; i < u->nunits; i++)
		free(u->units[i].defs);
	free(u->units);
	free(u->unit_of);
	memset(u, 0, sizeof(*u));
}
