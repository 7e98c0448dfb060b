/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dwarf_die: a cursor over the DIEs of one unit of .debug_info, for the BTF
 * encoder, which walks every type, function and variable DIE and reads a
 * few attributes of each.  It does what lib/dwarf_scan does for a plain
 * walk (each unit's abbreviations decoded once into an array indexed by
 * code, by the same lib/dwarf_abbrev reader; forms skipped by size) and adds what a reader needs: a DIE's tag
 * and children, its first child and next sibling (through DW_AT_sibling
 * when the producer gave one), attributes by name, their values by form,
 * references as .debug_info offsets, strings of every form but those of
 * supplementary files and split DWARF, and the first operation of a
 * location (an expression, a DWARF 4 .debug_loc list or a DWARF 5
 * .debug_loclists one).
 *
 * Each abbreviation also records the size of its values when every form
 * has a fixed size (most DIEs of GCC's DWARF 5: strp, data, ref4,
 * implicit_const), so stepping over such a DIE costs one addition.
 *
 * DWARF 2 to 5, 32- and 64-bit units, little-endian.  Never prints; the
 * only allocations are the abbreviation arrays, reused unit to unit.
 * Malformed input is -EINVAL (never a read outside the sections);
 * something valid that it does not decode (a reference into another unit,
 * a supplementary file, DW_FORM_loclistx) is -ENOTSUP, so that a caller
 * can ask libdw instead.  tests/btf/dwarfwalk.sh checks it against libdw.
 */
#ifndef FRUGAL_DWARF_DIE_H
#define FRUGAL_DWARF_DIE_H

#include <dwarf.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/dwarf_abbrev.h"
#include "lib/dwarf_scan.h"

struct dwarf_unit {
	const struct dwarf_scan_secs *s;
	uint64_t off, next;		/* this unit's header, the next one's */
	const uint8_t *dies, *end;	/* its DIEs */
	uint64_t str_offsets_base, addr_base;
	bool has_str_base, has_addr_base;
	uint8_t version, offsz, addrsz, type;
	/* abbreviations by code; kept while the next unit shares them */
	struct dwarf_abbrevs abbrevs;	/* of the table at abbrev_off */
	uint64_t abbrev_off;
	uint32_t abbrev_key;		/* version, offset and address sizes */
	bool abbrev_ok;
};

/* A DIE: valid while its unit is the one open. */
struct dwarf_die {
	const uint8_t *p;		/* its first attribute value */
	const uint8_t *end;		/* past its last */
	const uint8_t *sib;		/* its DW_AT_sibling value, or NULL */
	const struct dwarf_abbrev *ab;
	uint64_t off;			/* in .debug_info */
};

struct dwarf_attr {
	uint16_t name, form;
	const uint8_t *p;		/* the value's bytes */
	int64_t implicit;
};

struct dwarf_attr_iter {
	const uint8_t *p;
	const struct dwarf_spec *sp, *spend;
};

void dwarf_unit__init(struct dwarf_unit *u, const struct dwarf_scan_secs *s);
void dwarf_unit__fini(struct dwarf_unit *u);
/* Open the unit whose header is at OFF of .debug_info.  0 or -errno. */
int dwarf_unit__open(struct dwarf_unit *u, uint64_t off);
/* The unit DIE.  0, or -EINVAL. */
int dwarf_unit__cudie(const struct dwarf_unit *u, struct dwarf_die *d);

static inline unsigned int dwarf_die__tag(const struct dwarf_die *d)
{
	return d->ab->tag;
}

static inline bool dwarf_die__has_children(const struct dwarf_die *d)
{
	return d->ab->children;
}

/* The DIE at .debug_info offset OFF, in this unit.  0, -ENOTSUP (another
 * unit), -EINVAL. */
int dwarf_die__offdie(const struct dwarf_unit *u, uint64_t off, struct dwarf_die *d);
/* First child, next sibling (C may be D): 0, 1 when there is none, -EINVAL. */
int dwarf_die__child(const struct dwarf_unit *u, const struct dwarf_die *d,
		     struct dwarf_die *c);
int dwarf_die__sibling(const struct dwarf_unit *u, const struct dwarf_die *d,
		       struct dwarf_die *s);

/* Attribute NAME of D: 1, 0 when absent, -EINVAL. */
int dwarf_die__attr(const struct dwarf_unit *u, const struct dwarf_die *d, unsigned int name,
		    struct dwarf_attr *a);
/*
 * NAME of D, else of what its DW_AT_abstract_origin or DW_AT_specification
 * refers to, and so on (as libdw's dwarf_attr_integrate, 16 steps at
 * most): 1, 0 when absent, -ENOTSUP (into another unit), -EINVAL.
 */
int dwarf_die__attr_integrate(const struct dwarf_unit *u, const struct dwarf_die *d,
			      unsigned int name, struct dwarf_attr *a);

/*
 * Where the value of spec SP of D's abbreviation starts (D measured, so it
 * is inside D).  SP's form must not be DW_FORM_indirect.
 */
const uint8_t *dwarf_die__value_slow(const struct dwarf_unit *u, const struct dwarf_die *d,
				     const struct dwarf_spec *sp);
static inline const uint8_t *dwarf_die__value(const struct dwarf_unit *u,
					      const struct dwarf_die *d,
					      const struct dwarf_spec *sp)
{
	if (sp->at >= 0)
		return d->p + sp->at;
	if (sp->back >= 0)
		return d->end - sp->back;
	return dwarf_die__value_slow(u, d, sp);
}

/* Every attribute of D, in order: next gives 1, then 0 at the end. */
static inline void dwarf_die__attrs(const struct dwarf_unit *u, const struct dwarf_die *d,
				    struct dwarf_attr_iter *it)
{
	it->p = d->p;
	it->sp = u->abbrevs.specs + d->ab->first;
	it->spend = it->sp + d->ab->n;
}
int dwarf_attr__next_slow(const struct dwarf_unit *u, struct dwarf_attr_iter *it,
			  struct dwarf_attr *a);

/* The hot cases inline (a value of fixed size), the others out of line. */
static inline int dwarf_attr__next(const struct dwarf_unit *u, struct dwarf_attr_iter *it,
				   struct dwarf_attr *a)
{
	const struct dwarf_spec *sp = it->sp;

	if (sp >= it->spend)
		return 0;
	if (sp->size < 0)
		return dwarf_attr__next_slow(u, it, a);
	it->sp++;
	a->name = sp->name;
	a->form = sp->form;
	a->implicit = sp->implicit;
	a->p = it->p;
	it->p += sp->size;	/* inside the DIE: it was measured */
	return 1;
}

/*
 * Values, as libdw's dwarf_form* read them: 0, or -EINVAL when the form
 * is not of that class (or the value is out of bounds).  udata takes the
 * constant forms (data1-8, udata, sdata as its bits, implicit_const) and
 * a sec_offset of a location attribute (its offset); sdata takes sdata and
 * implicit_const; flag takes flag and flag_present.
 */
int dwarf_attr__udata(const struct dwarf_unit *u, const struct dwarf_attr *a, uint64_t *v);
int dwarf_attr__sdata(const struct dwarf_unit *u, const struct dwarf_attr *a, int64_t *v);
int dwarf_attr__flag(const struct dwarf_unit *u, const struct dwarf_attr *a, bool *v);
/* The string of a string form; NULL if none (not a string, out of bounds,
 * or in a supplementary file). */
const char *dwarf_attr__string_slow(const struct dwarf_unit *u, const struct dwarf_attr *a);

static inline uint32_t dwarf_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline const char *dwarf_attr__string(const struct dwarf_unit *u,
					     const struct dwarf_attr *a)
{
	const struct dwarf_scan_secs *s = u->s;
	uint32_t off;

	/* .debug_str by a 32-bit offset: nearly every name GCC writes. */
	if (a->form == DW_FORM_strp && u->offsz == 4) {
		off = dwarf_le32(a->p);
		if (off < s->str_len && !s->str[s->str_len - 1])
			return (const char *)s->str + off;
		return NULL;
	}
	return dwarf_attr__string_slow(u, a);
}
/* A reference as a .debug_info offset: 0, -ENOTSUP (type unit,
 * supplementary file), -EINVAL. */
int dwarf_attr__ref_slow(const struct dwarf_unit *u, const struct dwarf_attr *a, uint64_t *off);

static inline int dwarf_attr__ref(const struct dwarf_unit *u, const struct dwarf_attr *a,
				  uint64_t *off)
{
	uint32_t v;

	if (a->form == DW_FORM_ref4) {
		v = dwarf_le32(a->p);
		if (v >= u->next - u->off)
			return -EINVAL;
		*off = u->off + v;
		return 0;
	}
	return dwarf_attr__ref_slow(u, a, off);
}
/* A block or exprloc's bytes: 0, or -EINVAL. */
int dwarf_attr__block(const struct dwarf_unit *u, const struct dwarf_attr *a,
		      const uint8_t **p, size_t *len);
/* Entry IDX of the unit's .debug_addr: 0, -ENOTSUP (no DW_AT_addr_base), -EINVAL. */
int dwarf_unit__addrx(const struct dwarf_unit *u, uint64_t idx, uint64_t *addr);
/*
 * The first operation of the first location a location attribute
 * describes (an expression, or the first range of its location list, as
 * libdw's dwarf_getlocations at offset 0): 1 with its opcode in *OP and
 * the expression's length in bytes in *LEN, 0 when there is none (an
 * empty expression or list), -ENOTSUP (DW_FORM_loclistx, an entry kind it
 * does not know), -EINVAL.  The rest of the expression is not decoded:
 * libdw refuses a whole expression for an operation it does not know
 * (DW_OP_GNU_uninit), so a caller that needs libdw's verdict on a longer
 * one asks libdw.
 */
int dwarf_attr__first_op(const struct dwarf_unit *u, const struct dwarf_attr *a, uint8_t *op,
			 size_t *len);

#endif
