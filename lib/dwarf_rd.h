/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The byte reader lib/dwarf_scan.c and lib/dwarf_die.c share: LEB128 and
 * little-endian values over [p, end), a sticky `bad` flag instead of an
 * error per call (a caller checks it once per DIE or unit).
 */
#ifndef FRUGAL_DWARF_RD_H
#define FRUGAL_DWARF_RD_H

#include <dwarf.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "lib/array.h"
#include "lib/dwarf_scan.h"

struct rd {
	const uint8_t *p, *end;
	int bad;
};

static inline uint64_t uleb(struct rd *r)
{
	uint64_t v = 0;
	unsigned int shift = 0;

	while (r->p < r->end) {
		uint8_t b = *r->p++;

		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80))
			return v;
	}
	r->bad = 1;
	return 0;
}

static inline int64_t sleb(struct rd *r)
{
	uint64_t v = 0;
	unsigned int shift = 0;
	uint8_t b = 0;

	while (r->p < r->end) {
		b = *r->p++;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80)) {
			if (shift < 64 && (b & 0x40))
				v |= ~0ull << shift;
			return (int64_t)v;
		}
	}
	r->bad = 1;
	return 0;
}

/* N little-endian bytes; only the low 8 are kept (longer values skipped). */
static inline uint64_t fixed(struct rd *r, size_t n)
{
	uint64_t v = 0;
	size_t i;

	if ((size_t)(r->end - r->p) < n) {
		r->bad = 1;
		r->p = r->end;
		return 0;
	}
	for (i = 0; i < n && i < 8; i++)
		v |= (uint64_t)r->p[i] << (8 * i);
	r->p += n;
	return v;
}

static inline void skip(struct rd *r, uint64_t n)
{
	if ((uint64_t)(r->end - r->p) < n) {
		r->bad = 1;
		r->p = r->end;
		return;
	}
	r->p += n;
}

/* A unit's header, as both readers need it. */
struct rd_unit {
	const uint8_t *dies, *end;	/* its first DIE, and its end */
	uint64_t abbrev_off;
	unsigned int version, type, offsz, addrsz;
};

/*
 * The header of the unit at R, R left at the next unit: 0, or -EINVAL for
 * a length past the section, a version outside 2-5, an address size over
 * 8 or a header that does not fit.  Callers check what more they need.
 */
static inline int rd_unit_header(struct rd *r, struct rd_unit *u)
{
	uint64_t len = fixed(r, 4);
	struct rd h;

	u->offsz = 4;
	if (len == 0xffffffff) {
		len = fixed(r, 8);
		u->offsz = 8;
	}
	if (r->bad || len > (uint64_t)(r->end - r->p))
		return -EINVAL;
	h = (struct rd){ r->p, r->p + len, 0 };
	r->p += len;
	u->end = h.end;
	u->version = (unsigned int)fixed(&h, 2);
	u->type = DW_UT_compile;
	if (u->version < 2 || u->version > 5)
		return -EINVAL;
	if (u->version >= 5) {
		u->type = (unsigned int)fixed(&h, 1);
		u->addrsz = (unsigned int)fixed(&h, 1);
		u->abbrev_off = fixed(&h, u->offsz);
	} else {
		u->abbrev_off = fixed(&h, u->offsz);
		u->addrsz = (unsigned int)fixed(&h, 1);
	}
	if (u->type == DW_UT_skeleton || u->type == DW_UT_split_compile)
		fixed(&h, 8);				/* dwo_id */
	else if (u->type == DW_UT_type || u->type == DW_UT_split_type)
		skip(&h, 8 + u->offsz);			/* signature, type offset */
	u->dies = h.p;
	return h.bad || u->addrsz > 8 ? -EINVAL : 0;
}

/* A reader of SEC (LEN bytes) from OFF on; bad from the start past its end. */
static inline struct rd rd_at(const uint8_t *sec, size_t len, uint64_t off)
{
	if (!sec || off >= len)
		return (struct rd){ NULL, NULL, 1 };
	return (struct rd){ sec + off, sec + len, 0 };
}

/* The string at OFF of a string section SEC (LEN bytes), NULL if out of bounds. */
static inline const char *rd_str(const uint8_t *sec, size_t len, uint64_t off)
{
	if (!sec || off >= len || sec[len - 1])
		return NULL;
	return (const char *)sec + off;
}

/*
 * A strx form's string: entry IDX (OFFSZ bytes each) of S's string offsets
 * from BASE, the unit's DW_AT_str_offsets_base, read as an offset into
 * S->str.  NULL when any of it is out of bounds.
 */
static inline const char *rd_strx(const struct dwarf_scan_secs *s, uint64_t base,
				  unsigned int offsz, uint64_t idx)
{
	uint64_t at = base + idx * offsz;
	struct rd r;

	if (idx > s->str_offsets_len || at < base || at > s->str_offsets_len ||
	    s->str_offsets_len - at < offsz)
		return NULL;
	r = (struct rd){ s->str_offsets + at, s->str_offsets + s->str_offsets_len, 0 };
	return rd_str(s->str, s->str_len, fixed(&r, offsz));
}

/* Abbreviation codes above this are refused (GCC and clang number them from 1, densely). */
#define RD_MAX_CODE (1u << 20)

/*
 * A unit's abbreviations indexed by code: the table *TAB (*CAP entries of
 * ELEM bytes, *NCODES of them in use) grown and zeroed up to CODE.  0,
 * -EINVAL for a code past RD_MAX_CODE, or -ENOMEM.
 */
static inline int rd_code_slot(void *tab, size_t *cap, size_t *ncodes, uint64_t code,
			       size_t elem)
{
	unsigned char **t = tab;

	if (code > RD_MAX_CODE)
		return -EINVAL;
	if (array__grow(tab, cap, code + 1, elem, 256))
		return -ENOMEM;
	if (code + 1 > *ncodes) {
		memset(*t + *ncodes * elem, 0, (code + 1 - *ncodes) * elem);
		*ncodes = code + 1;
	}
	return 0;
}

#endif
