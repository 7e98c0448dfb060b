// SPDX-License-Identifier: GPL-2.0
/*
 * dwarf_scan: a minimal walk of .debug_info (see dwarf_scan.h).
 */
#include <dwarf.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lib/array.h"
#include "lib/dwarf_abbrev.h"
#include "lib/dwarf_rd.h"
#include "lib/dwarf_scan.h"

struct unit {
	const struct dwarf_scan_secs *s;
	const uint8_t *dies, *end;
	uint64_t abbrev_off;
	uint64_t str_offsets_base;	/* 0: none seen */
	unsigned int version, offsz, addrsz;
};

/* The string of a strx form's index IDX. */
static const char *strx(const struct unit *u, uint64_t idx)
{
	return u->str_offsets_base ? rd_strx(u->s, u->str_offsets_base, u->offsz, idx) : NULL;
}

/*
 * One attribute value of FORM.  Its bytes are read, its meaning is not,
 * except that a string form's string comes back in *STR (NULL otherwise),
 * or -ENOTSUP in *ERR when it cannot be found.
 */
static uint64_t form_value(struct rd *r, uint64_t form, const struct unit *u, const char **str,
			   int *err)
{
	const uint8_t *p;
	uint64_t n;

	switch (form) {
	case DW_FORM_flag_present: case DW_FORM_implicit_const:
		return 1;
	case DW_FORM_data1: case DW_FORM_ref1: case DW_FORM_flag: case DW_FORM_addrx1:
		return fixed(r, 1);
	case DW_FORM_data2: case DW_FORM_ref2: case DW_FORM_addrx2:
		return fixed(r, 2);
	case DW_FORM_addrx3:
		return fixed(r, 3);
	case DW_FORM_data4: case DW_FORM_ref4: case DW_FORM_ref_sup4: case DW_FORM_addrx4:
		return fixed(r, 4);
	case DW_FORM_data8: case DW_FORM_ref8: case DW_FORM_ref_sig8: case DW_FORM_ref_sup8:
		return fixed(r, 8);
	case DW_FORM_data16:
		return fixed(r, 16);
	case DW_FORM_addr:
		return fixed(r, u->addrsz);
	case DW_FORM_sec_offset: case DW_FORM_ref_addr:
		return fixed(r, u->offsz);
	case DW_FORM_strp:
		n = fixed(r, u->offsz);
		*str = rd_str(u->s->str, u->s->str_len, n);
		break;
	case DW_FORM_line_strp:
		n = fixed(r, u->offsz);
		*str = rd_str(u->s->line_str, u->s->line_str_len, n);
		break;
	case DW_FORM_strx1: case DW_FORM_strx2: case DW_FORM_strx3: case DW_FORM_strx4:
		n = fixed(r, form - DW_FORM_strx1 + 1);
		*str = strx(u, n);
		break;
	case DW_FORM_strx:
		n = uleb(r);
		*str = strx(u, n);
		break;
	case DW_FORM_strp_sup: case DW_FORM_GNU_strp_alt:
		*err = -ENOTSUP;	/* in a supplementary file */
		return fixed(r, u->offsz);
	case DW_FORM_GNU_ref_alt:
		return fixed(r, u->offsz);
	case DW_FORM_GNU_str_index:
		*err = -ENOTSUP;	/* split DWARF */
		return uleb(r);
	case DW_FORM_sdata: case DW_FORM_udata: case DW_FORM_ref_udata:
	case DW_FORM_addrx: case DW_FORM_loclistx: case DW_FORM_rnglistx:
	case DW_FORM_GNU_addr_index:
		return uleb(r);
	case DW_FORM_string:
		p = memchr(r->p, 0, (size_t)(r->end - r->p));
		if (!p) {
			r->bad = 1;
			r->p = r->end;
			return 0;
		}
		*str = (const char *)r->p;
		n = (uint64_t)(p - r->p);
		r->p = p + 1;
		return n;
	case DW_FORM_block1:
		skip(r, n = fixed(r, 1));
		return n;
	case DW_FORM_block2:
		skip(r, n = fixed(r, 2));
		return n;
	case DW_FORM_block4:
		skip(r, n = fixed(r, 4));
		return n;
	case DW_FORM_block: case DW_FORM_exprloc:
		skip(r, n = uleb(r));
		return n;
	case DW_FORM_indirect:
		form = uleb(r);
		if (form == DW_FORM_indirect || form == DW_FORM_implicit_const) {
			r->bad = 1;	/* no value to read, or a loop */
			return 0;
		}
		return form_value(r, form, u, str, err);
	default:
		r->bad = 1;
		return 0;
	}
	if (!*str && !*err)
		*err = -EINVAL;		/* a string form pointing nowhere */
	return n;
}

/* The header of the unit at R (R is left at the next one). */
static int unit_read(struct rd *r, struct unit *u)
{
	struct rd_unit h;
	int err = rd_unit_header(r, &h);

	if (err)
		return err;
	u->end = h.end;
	u->dies = h.dies;
	u->abbrev_off = h.abbrev_off;
	u->version = h.version;
	u->offsz = h.offsz;
	u->addrsz = h.addrsz;
	u->str_offsets_base = 0;
	return 0;
}

/*
 * The unit DIE's DW_AT_str_offsets_base, before any of its strx strings
 * is read (it may come after them in the DIE).
 */
static void find_str_base(struct unit *u, const struct dwarf_abbrevs *t)
{
	struct rd r = { u->dies, u->end, 0 };
	uint64_t code = uleb(&r);
	const struct dwarf_abbrev *a;
	const char *str;
	uint32_t i;
	int err = 0;

	if (r.bad || !code || code >= t->ncodes || !t->byc[code].known)
		return;
	a = &t->byc[code];
	for (i = 0; i < a->n && !r.bad; i++) {
		const struct dwarf_spec *sp = &t->specs[a->first + i];

		str = NULL;
		if (sp->name == DW_AT_str_offsets_base && sp->form == DW_FORM_sec_offset) {
			u->str_offsets_base = fixed(&r, u->offsz);
			return;
		}
		/* strx strings cannot be read yet: skip them by size. */
		if (sp->form >= DW_FORM_strx1 && sp->form <= DW_FORM_strx4)
			skip(&r, sp->form - DW_FORM_strx1 + 1);
		else if (sp->form == DW_FORM_strx)
			uleb(&r);
		else
			form_value(&r, sp->form, u, &str, &err);
	}
}

static int walk_unit(struct unit *u, const struct dwarf_abbrevs *t, dwarf_scan_str_fn fn,
		     void *arg, struct dwarf_scan_stats *st)
{
	struct rd r = { u->dies, u->end, 0 };
	const struct dwarf_abbrev *a;
	const char *str;
	uint64_t code;
	long depth = 0;
	uint32_t i;
	int err = 0;

	find_str_base(u, t);
	while (r.p < r.end && !r.bad && !err) {
		code = uleb(&r);
		if (!code) {
			if (--depth <= 0)
				break;		/* the unit DIE's children are done */
			continue;
		}
		if (code >= t->ncodes || !t->byc[code].known)
			return -EINVAL;
		a = &t->byc[code];
		st->dies++;
		st->attrs += a->n;
		for (i = 0; i < a->n && !err; i++) {
			str = NULL;
			st->sum += form_value(&r, t->specs[a->first + i].form, u, &str, &err);
			if (str && fn)
				err = fn(str, arg);
		}
		if (a->children)
			depth++;
		else if (depth == 0)
			break;			/* a unit DIE without children */
	}
	return err ? err : r.bad ? -EINVAL : 0;
}

int dwarf_scan__walk(const struct dwarf_scan_secs *s, dwarf_scan_str_fn str_fn, void *arg,
		     struct dwarf_scan_stats *stats)
{
	struct dwarf_scan_stats local = { 0 };
	struct dwarf_scan_stats *st = stats ? stats : &local;
	struct dwarf_abbrevs t = { 0 };
	struct unit u = { .s = s };
	struct rd r = { s->info, s->info + s->info_len, 0 };
	int err = s->info && s->abbrev ? 0 : -ENODATA;

	memset(st, 0, sizeof(*st));
	while (!err && r.p < r.end) {
		err = unit_read(&r, &u);
		if (!err)
			err = dwarf_abbrevs__read(&t, s->abbrev, s->abbrev_len, u.abbrev_off,
						  u.version, u.offsz, u.addrsz);
		if (!err)
			err = walk_unit(&u, &t, str_fn, arg, st);
		st->units++;
	}
	dwarf_abbrevs__free(&t);
	return err;
}
