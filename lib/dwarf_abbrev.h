/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dwarf_abbrev: the one reader of .debug_abbrev, for lib/dwarf_scan's walk
 * and lib/dwarf_die's cursor.  A unit's table is decoded once into an
 * array indexed by code and one array of attribute specs, both reused
 * from unit to unit.  Each spec records its value's size in the unit's
 * forms, and each abbreviation where its values are when their sizes are
 * fixed, so that stepping over a DIE of GCC's DWARF 5 costs one addition
 * (dwarf_scan, which reads every value anyway, ignores those).
 *
 * Never prints.  A table that runs past the section, a code defined twice
 * or a name or form over 16 bits is -EINVAL; memory is -ENOMEM.
 */
#ifndef FRUGAL_DWARF_ABBREV_H
#define FRUGAL_DWARF_ABBREV_H

#include <dwarf.h>
#include <stddef.h>
#include <stdint.h>

struct dwarf_spec {
	uint16_t name, form;
	int16_t size;		/* bytes of the value; -1 variable; -2 unknown form */
	int32_t at;		/* where the value starts in the DIE when every
				 * value before it has a fixed size, else -1 */
	int32_t back;		/* from the value's start to the DIE's end when
				 * it and every value after it have a fixed
				 * size, else -1 (a short DW_FORM_string name
				 * first, then fixed sizes: GCC's members) */
	int64_t implicit;	/* DW_FORM_implicit_const's value */
};

struct dwarf_abbrev {
	uint32_t first;		/* its specs: specs[first, first + n) */
	uint32_t n;
	uint32_t tag;
	uint8_t children, known;
	int32_t fixed;		/* bytes of all its values, -1 if some vary */
	int32_t sib;		/* index of its DW_AT_sibling spec, -1 none */
	uint16_t sib_form;
	uint16_t var0;		/* index of its first spec of variable size */
};

/* A unit's abbreviations: byc[code] for every code up to ncodes, .known if defined. */
struct dwarf_abbrevs {
	struct dwarf_abbrev *byc;
	size_t ncodes, cap;
	struct dwarf_spec *specs;	/* never NULL after a read: DIEs of
					 * attribute-less abbreviations point into it */
	size_t nspecs, specs_cap;
};

/*
 * The byte size of FORM's value in a unit of that VERSION, offset size
 * OFFSZ (4 or 8) and address size ADDRSZ; -1 when it varies, -2 unknown.
 */
static inline int dwarf_form__size(unsigned int version, unsigned int offsz,
				   unsigned int addrsz, unsigned int form)
{
	switch (form) {
	case DW_FORM_flag_present: case DW_FORM_implicit_const:
		return 0;
	case DW_FORM_data1: case DW_FORM_ref1: case DW_FORM_flag:
	case DW_FORM_strx1: case DW_FORM_addrx1:
		return 1;
	case DW_FORM_data2: case DW_FORM_ref2: case DW_FORM_strx2: case DW_FORM_addrx2:
		return 2;
	case DW_FORM_strx3: case DW_FORM_addrx3:
		return 3;
	case DW_FORM_data4: case DW_FORM_ref4: case DW_FORM_ref_sup4:
	case DW_FORM_strx4: case DW_FORM_addrx4:
		return 4;
	case DW_FORM_data8: case DW_FORM_ref8: case DW_FORM_ref_sig8: case DW_FORM_ref_sup8:
		return 8;
	case DW_FORM_data16:
		return 16;
	case DW_FORM_addr:
		return (int)addrsz;
	case DW_FORM_ref_addr:
		return (int)(version == 2 ? addrsz : offsz);
	case DW_FORM_strp: case DW_FORM_line_strp: case DW_FORM_sec_offset:
	case DW_FORM_strp_sup: case DW_FORM_GNU_strp_alt: case DW_FORM_GNU_ref_alt:
		return (int)offsz;
	case DW_FORM_udata: case DW_FORM_sdata: case DW_FORM_ref_udata:
	case DW_FORM_strx: case DW_FORM_addrx: case DW_FORM_loclistx: case DW_FORM_rnglistx:
	case DW_FORM_GNU_addr_index: case DW_FORM_GNU_str_index: case DW_FORM_string:
	case DW_FORM_block1: case DW_FORM_block2: case DW_FORM_block4: case DW_FORM_block:
	case DW_FORM_exprloc: case DW_FORM_indirect:
		return -1;
	default:
		return -2;
	}
}

/*
 * Decode the table at OFF of the LEN bytes of .debug_abbrev at SEC into T
 * (emptied first; its arrays kept and grown), for a unit of VERSION,
 * OFFSZ and ADDRSZ.  0 or a negative errno; T is then unusable until the
 * next successful read.
 */
int dwarf_abbrevs__read(struct dwarf_abbrevs *t, const uint8_t *sec, size_t len, uint64_t off,
			unsigned int version, unsigned int offsz, unsigned int addrsz);

/* T's arrays freed; T is empty.  NULL-safe. */
void dwarf_abbrevs__free(struct dwarf_abbrevs *t);

#endif
