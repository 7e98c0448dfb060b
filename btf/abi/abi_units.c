// SPDX-License-Identifier: GPL-2.0
/*
 * Which unit defines each export, and which structs, unions and enums
 * that unit defines (btf/abi/abi_units_int.h).  One pass over every
 * unit's top-level DIEs through libdw: C puts a unit's types and its
 * functions and variables there, and GCC's DW_AT_sibling lets the walk
 * step over a function's body without reading it.  A unit's definitions
 * are kept only when it defines an export (about half the units of a
 * kernel), and only those its headers hold (its line table tells its own
 * .c file); the names are pointers into .debug_str until then.
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
	uint32_t *file;		/* DW_AT_decl_file: an index in the unit's line table */
	size_t n, cap, kind_cap, file_cap;
	bool exports;
	/*
	 * A second view of the file, for the units' line tables alone:
	 * libdw 0.188 decodes a unit's whole line program to name its files
	 * and keeps it until dwarf_end(), which took a 7.x pair from 305 MB
	 * to 527 MB peak RSS (351 MB when this one ends every LINES_BATCH units).
	 */
	Elf *elf;
	Dwarf *lines;
	unsigned int lines_used;
};

#define LINES_BATCH 64

static int cmp_name(const void *key, const void *elt)
{
	return strcmp(key, *(char *const *)elt);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
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

#define VAR_DEPTH 8	/* qualifiers, arrays and pointers on the way to a name */

/* An array's bounds as C writes them: "[16]", "[2][3]", "[]". */
static void array_dims(Dwarf_Die *arr, FILE *f)
{
	Dwarf_Attribute attr;
	Dwarf_Word v;
	Dwarf_Die sub;
	bool any = false;

	if (!dwarf_child(arr, &sub)) {
		do {
			if (dwarf_tag(&sub) != DW_TAG_subrange_type)
				continue;
			any = true;
			if (!dwarf_formudata(dwarf_attr(&sub, DW_AT_count, &attr), &v))
				fprintf(f, "[%llu]", (unsigned long long)v);
			else if (!dwarf_formudata(dwarf_attr(&sub, DW_AT_upper_bound, &attr), &v))
				fprintf(f, "[%llu]", (unsigned long long)v + 1);
			else
				fprintf(f, "[]");
		} while (!dwarf_siblingof(&sub, &sub));
	}
	if (!any)
		fprintf(f, "[]");
}

/* Variable DIE's type into VT: what wraps it, then the name it ends at; untold: left NULL. */
static int var_type(Dwarf_Die *die, struct abi_var_type *vt)
{
	Dwarf_Attribute attr;
	Dwarf_Die t;
	const char *name = NULL, *kind = NULL;
	char *chain = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&chain, &len);
	bool is_void = !dwarf_formref_die(dwarf_attr_integrate(die, DW_AT_type, &attr), &t);
	int depth, tag = 0;

	if (!f)
		return -ENOMEM;
	for (depth = 0; !is_void && depth < VAR_DEPTH; depth++) {
		tag = dwarf_tag(&t);
		if (tag == DW_TAG_const_type || tag == DW_TAG_volatile_type)
			fprintf(f, tag == DW_TAG_const_type ? "const " : "volatile ");
		else if (tag == DW_TAG_pointer_type)
			fprintf(f, "*");
		else if (tag == DW_TAG_array_type)
			array_dims(&t, f);
		else
			break;	/* a name, or what is not told (a function type) */
		is_void = !dwarf_formref_die(dwarf_attr(&t, DW_AT_type, &attr), &t);
	}
	kind = def_kind(tag);
	if (is_void)
		name = "void";
	else if (depth < VAR_DEPTH && (kind || tag == DW_TAG_typedef || tag == DW_TAG_base_type))
		name = dwarf_diename(&t);
	if (fclose(f)) {
		free(chain);
		return -ENOMEM;
	}
	if (!name || asprintf(&vt->leaf, "%s%s", is_void || !kind ? "" : kind, name) < 0) {
		vt->leaf = NULL;
		free(chain);
		return name ? -ENOMEM : 0;
	}
	vt->leaf_tag = is_void ? 0 : tag;
	vt->chain = chain;
	return 0;
}

/* DIE, a function or variable defined at the top level: the export it is, if one. */
static int unit__export(struct abi_units *u, Dwarf_Die *die, char *const *names,
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
		return 0;
	if (!dwarf_attr_integrate(die, DW_AT_external, &attr))
		return 0;	/* a static one of an export's name */
	k = (size_t)(hit - names);
	/* Of two external definitions (a __weak default and its override), the one at the address. */
	at = addr && addr[k] && dwarf_tag(die) == DW_TAG_subprogram && !dwarf_lowpc(die, &low) &&
	     low == addr[k];
	if (u->unit_of[k] >= 0 && (exact[k] || !at))
		return 0;
	if (u->unit_of[k] < 0)
		u->nfound++;
	u->unit_of[k] = (int32_t)u->nunits;	/* this unit's index, once kept */
	exact[k] = at;
	p->exports = true;
	if (dwarf_tag(die) != DW_TAG_variable || u->var[k].chain)
		return 0;
	return var_type(die, &u->var[k]);
}

static int pending__add(struct pending *p, const char *kind, const char *name, uint32_t file)
{
	if (array__grow(&p->name, &p->cap, p->n + 1, sizeof(*p->name), 256) ||
	    array__grow(&p->kind, &p->kind_cap, p->n + 1, sizeof(*p->kind), 256) ||
	    array__grow(&p->file, &p->file_cap, p->n + 1, sizeof(*p->file), 256))
		return -ENOMEM;
	p->kind[p->n] = kind;
	p->file[p->n] = file;
	p->name[p->n++] = name;
	return 0;
}

/* Whether FILE, a line table's name, is the unit's own source CU_NAME (as given, or below its directory). */
static bool is_unit_file(const char *file, const char *cu_name)
{
	size_t lf = strlen(file), lc = strlen(cu_name);

	if (lf == lc)
		return !strcmp(file, cu_name);
	return lf > lc && cu_name[0] != '/' && file[lf - lc - 1] == '/' &&
	       !strcmp(file + lf - lc, cu_name);
}

/*
 * Per index of CU's line table, whether it names the unit's own source
 * file (the .c, not a header): OWN[i], NFILES of them; *OWN NULL when the
 * table cannot be read (then none is).  0 or -ENOMEM.
 */
static int unit__own_files(Dwarf_Die *cu, struct pending *p, bool **own, size_t *nfiles)
{
	const char *cu_name = dwarf_diename(cu), *f;
	Dwarf_Files *files;
	Dwarf_Die lcu;
	size_t i;

	*own = NULL;
	*nfiles = 0;
	if (p->lines && ++p->lines_used > LINES_BATCH) {
		dwarf_end(p->lines);
		p->lines = NULL;
	}
	if (!p->lines) {
		p->lines = dwarf_begin_elf(p->elf, DWARF_C_READ, NULL);
		p->lines_used = 1;
	}
	if (!cu_name || !p->lines || !dwarf_offdie(p->lines, dwarf_dieoffset(cu), &lcu) ||
	    dwarf_getsrcfiles(&lcu, &files, nfiles))
		return 0;
	*own = calloc(*nfiles ? *nfiles : 1, sizeof(**own));
	if (!*own)
		return -ENOMEM;
	for (i = 0; i < *nfiles; i++) {
		f = dwarf_filesrc(files, i, NULL, NULL);
		(*own)[i] = f && is_unit_file(f, cu_name);
	}
	return 0;
}

/*
 * P's definitions as a kept unit's sorted, unique TN indexes; not those
 * written in the unit's own .c file: genksyms records a struct, union or
 * enum only when a header defines it (parse.y's record_compound), so one
 * the .c file defines is a name to it, as if only declared.
 */
static int unit__keep(struct abi_units *u, Dwarf_Die *cu, struct pending *p,
		      struct abi_tnames *tn)
{
	uint32_t *defs = malloc((p->n ? p->n : 1) * sizeof(*defs));
	char full[TNAME_MAX];
	size_t i, nd = 0, nfiles;
	bool *own = NULL;
	int err = defs ? unit__own_files(cu, p, &own, &nfiles) : -ENOMEM;

	if (!err && array__grow(&u->units, &u->units_cap, u->nunits + 1, sizeof(*u->units), 256))
		err = -ENOMEM;
	for (i = 0; !err && i < p->n; i++) {
		if (own && p->file[i] < nfiles && own[p->file[i]])
			continue;
		snprintf(full, sizeof(full), "%s%s", p->kind[i], p->name[i]);
		err = tnames__intern(tn, full, &defs[nd++]);
	}
	free(own);
	if (err) {
		free(defs);
		return err;
	}
	if (nd)
		qsort(defs, nd, sizeof(*defs), cmp_u32);
	for (i = 0, nfiles = nd, nd = 0; i < nfiles; i++)
		if (!nd || defs[nd - 1] != defs[i])
			defs[nd++] = defs[i];
	u->units[u->nunits].defs = defs;
	u->units[u->nunits++].ndefs = nd;
	return 0;
}

/* CU's top-level DIEs: its exports and what it defines, kept when it exports. */
static int unit__scan(struct abi_units *u, Dwarf_Die *cu, char *const *names,
		      const uint64_t *addr, uint8_t *exact, struct abi_tnames *tn, struct pending *p)
{
	const char *kind, *name;
	Dwarf_Attribute attr;
	Dwarf_Word file;
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
			err = unit__export(u, &die, names, addr, exact, p);
			if (err)
				return err;
			continue;
		}
		kind = def_kind(tag);
		name = kind ? dwarf_diename(&die) : NULL;
		if (name && *name) {
			if (dwarf_formudata(dwarf_attr(&die, DW_AT_decl_file, &attr), &file) ||
			    file > UINT32_MAX)
				file = UINT32_MAX;	/* none: not the unit's own */
			err = pending__add(p, kind, name, (uint32_t)file);
			if (err)
				return err;
		}
	} while (!dwarf_siblingof(&die, &die));
	return p->exports ? unit__keep(u, cu, p, tn) : 0;
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
	u->var = calloc(n ? n : 1, sizeof(*u->var));
	exact = calloc(n ? n : 1, 1);
	if (!u->unit_of || !u->var || !exact) {
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
	p.elf = ef.elf;
	if (!dw && !err)
		err = -ENODATA;
	while (dw && !err && !dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL)) {
		if (dwarf_offdie(dw, off + hsize, &cu))
			err = unit__scan(u, &cu, names, addr, exact, tn, &p);
		off = next;
	}
	if (dw)
		dwarf_end(dw);
	if (p.lines)
		dwarf_end(p.lines);
	elf_file__close(&ef);
out_free:
	free(p.name);
	free(p.kind);
	free(p.file);
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
	for (i = 0; u->var && i < u->n; i++) {
		free(u->var[i].chain);
		free(u->var[i].leaf);
	}
	free(u->var);
	free(u->unit_of);
	memset(u, 0, sizeof(*u));
}
