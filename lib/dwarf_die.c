// SPDX-License-Identifier: GPL-2.0
/*
 * dwarf_die: a DIE cursor over one unit of .debug_info (see dwarf_die.h).
 */
#include <dwarf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/array.h"
#include "lib/dwarf_die.h"
#include "lib/dwarf_rd.h"

/* dwarf_attr_integrate's bound on abstract_origin/specification chains. */
#define MAX_CHAIN	16

/* The byte size of FORM's value in unit U; -1 when it varies, -2 unknown. */
static int form_size(const struct dwarf_unit *u, unsigned int form)
{
	return dwarf_form__size(u->version, u->offsz, u->addrsz, form);
}

static void skip_form(const struct dwarf_unit *u, struct rd *r, unsigned int form);

/* Step R over one value of FORM, a form of variable size (form_size -1). */
static void skip_var(const struct dwarf_unit *u, struct rd *r, unsigned int form)
{
	const uint8_t *z;

	switch (form) {
	case DW_FORM_indirect:
		form = (unsigned int)uleb(r);
		if (form == DW_FORM_indirect || form == DW_FORM_implicit_const) {
			r->bad = 1;	/* no value to read, or a loop */
			return;
		}
		skip_form(u, r, form);
		return;
	case DW_FORM_udata: case DW_FORM_sdata: case DW_FORM_ref_udata:
	case DW_FORM_strx: case DW_FORM_addrx: case DW_FORM_loclistx: case DW_FORM_rnglistx:
	case DW_FORM_GNU_addr_index: case DW_FORM_GNU_str_index:
		uleb(r);
		return;
	case DW_FORM_string:
		z = memchr(r->p, 0, (size_t)(r->end - r->p));
		if (!z) {
			r->bad = 1;
			r->p = r->end;
			return;
		}
		r->p = z + 1;
		return;
	case DW_FORM_block1:
		skip(r, fixed(r, 1));
		return;
	case DW_FORM_block2:
		skip(r, fixed(r, 2));
		return;
	case DW_FORM_block4:
		skip(r, fixed(r, 4));
		return;
	case DW_FORM_block: case DW_FORM_exprloc:
		skip(r, uleb(r));
		return;
	default:
		r->bad = 1;
		return;
	}
}

/* Step R over one value of FORM. */
static void skip_form(const struct dwarf_unit *u, struct rd *r, unsigned int form)
{
	int n = form_size(u, form);

	if (n >= 0)
		skip(r, n);
	else
		skip_var(u, r, form);
}

void dwarf_unit__init(struct dwarf_unit *u, const struct dwarf_scan_secs *s)
{
	memset(u, 0, sizeof(*u));
	u->s = s;
}

void dwarf_unit__fini(struct dwarf_unit *u)
{
	if (!u)
		return;
	dwarf_abbrevs__free(&u->abbrevs);
	u->abbrev_ok = false;
}

/* Header size of a .debug_str_offsets / .debug_addr contribution at 0. */
static uint64_t contrib_header(const uint8_t *sec, size_t len)
{
	struct rd r = { sec, sec + len, 0 };

	return sec && fixed(&r, 4) == 0xffffffff ? 16 : 8;
}

/* The unit DIE's bases, which strx and addrx values of every DIE need. */
static int read_bases(struct dwarf_unit *u)
{
	struct dwarf_attr_iter it;
	struct dwarf_die cu;
	struct dwarf_attr a;
	uint64_t v;
	int r;

	u->has_str_base = u->has_addr_base = false;
	r = dwarf_unit__cudie(u, &cu);
	if (r)
		return r;
	dwarf_die__attrs(u, &cu, &it);
	while ((r = dwarf_attr__next(u, &it, &a)) > 0) {
		if (a.form != DW_FORM_sec_offset)
			continue;
		v = fixed(&(struct rd){ a.p, u->end, 0 }, u->offsz);
		if (a.name == DW_AT_str_offsets_base) {
			u->str_offsets_base = v;
			u->has_str_base = true;
		} else if (a.name == DW_AT_addr_base || a.name == DW_AT_GNU_addr_base) {
			u->addr_base = v;
			u->has_addr_base = true;
		}
	}
	/* Without the attribute, libdw takes the first contribution's. */
	if (!u->has_str_base && u->version >= 5 && u->s->str_offsets) {
		u->str_offsets_base = contrib_header(u->s->str_offsets, u->s->str_offsets_len);
		u->has_str_base = true;
	}
	return r;
}

/* What the form sizes of a decoded table depend on. */
static uint32_t abbrev_key(const struct dwarf_unit *u)
{
	return (uint32_t)u->version << 16 | (uint32_t)u->offsz << 8 | u->addrsz;
}

int dwarf_unit__open(struct dwarf_unit *u, uint64_t off)
{
	const struct dwarf_scan_secs *s = u->s;
	struct rd_unit h;
	struct rd r;
	uint64_t abbrev_off;
	int err;

	if (!s->info || !s->abbrev)
		return -ENODATA;
	if (off >= s->info_len)
		return -EINVAL;
	r = (struct rd){ s->info + off, s->info + s->info_len, 0 };
	err = rd_unit_header(&r, &h);
	if (err || (h.addrsz != 4 && h.addrsz != 8) || h.dies >= h.end)
		return -EINVAL;
	u->off = off;
	u->next = (uint64_t)(h.end - s->info);
	u->end = h.end;
	u->offsz = (uint8_t)h.offsz;
	u->addrsz = (uint8_t)h.addrsz;
	u->version = (uint8_t)h.version;
	u->type = (uint8_t)h.type;
	u->dies = h.dies;
	abbrev_off = h.abbrev_off;
	/* Form sizes depend on the header: a table is reused only as decoded. */
	if (!u->abbrev_ok || u->abbrev_off != abbrev_off || u->abbrev_key != abbrev_key(u)) {
		u->abbrev_ok = false;
		err = dwarf_abbrevs__read(&u->abbrevs, s->abbrev, s->abbrev_len, abbrev_off,
					  u->version, u->offsz, u->addrsz);
		if (err)
			return err;
		u->abbrev_off = abbrev_off;
		u->abbrev_key = abbrev_key(u);
		u->abbrev_ok = true;
	}
	return read_bases(u);
}

const uint8_t *dwarf_die__value_slow(const struct dwarf_unit *u, const struct dwarf_die *d,
				     const struct dwarf_spec *sp)
{
	const struct dwarf_spec *s;
	struct rd r;

	/* From the last value whose place is known, by sizes. */
	for (s = sp; s->at < 0; s--)
		;
	r = (struct rd){ d->p + s->at, d->end, 0 };
	for (; s < sp; s++) {
		if (s->size >= 0)
			r.p += s->size;
		else
			skip_var(u, &r, s->form);
	}
	return r.p;
}

/* D at R's position (its code read); 1 at a null entry. */
static int die_at(const struct dwarf_unit *u, const uint8_t *p, struct dwarf_die *d)
{
	struct rd r = { p, u->end, 0 };
	const struct dwarf_abbrev *a;
	const struct dwarf_spec *sp, *end;
	uint64_t code;

	if (p >= u->end)
		return 1;
	if (*p < 0x80) {
		code = *r.p++;		/* one byte: most codes */
	} else {
		code = uleb(&r);
		if (r.bad)
			return -EINVAL;
	}
	if (!code)
		return 1;
	if (code >= u->abbrevs.ncodes || !u->abbrevs.byc[code].known)
		return -EINVAL;
	a = &u->abbrevs.byc[code];
	d->ab = a;
	d->p = r.p;
	d->off = (uint64_t)(p - u->s->info);
	d->sib = NULL;
	if (a->fixed >= 0) {
		if ((uint64_t)(u->end - r.p) < (uint64_t)a->fixed)
			return -EINVAL;
		d->end = r.p + a->fixed;
		if (a->sib >= 0)
			d->sib = r.p + u->abbrevs.specs[a->first + a->sib].at;
		return 0;
	}
	/* From the first value of variable size: those before it are fixed. */
	sp = u->abbrevs.specs + a->first + a->var0;
	if ((uint64_t)(u->end - r.p) < (uint64_t)sp->at)
		return -EINVAL;
	r.p += sp->at;
	for (end = u->abbrevs.specs + a->first + a->n; sp < end && !r.bad; sp++) {
		if (sp->size >= 0)
			skip(&r, sp->size);
		else
			skip_var(u, &r, sp->form);
	}
	if (r.bad)
		return -EINVAL;
	d->end = r.p;
	if (a->sib >= 0)
		d->sib = dwarf_die__value(u, d, &u->abbrevs.specs[a->first + a->sib]);
	return 0;
}

int dwarf_unit__cudie(const struct dwarf_unit *u, struct dwarf_die *d)
{
	return die_at(u, u->dies, d) ? -EINVAL : 0;
}

int dwarf_die__offdie(const struct dwarf_unit *u, uint64_t off, struct dwarf_die *d)
{
	const uint8_t *p = u->s->info + off;

	if (off >= u->s->info_len || p < u->dies || p >= u->end)
		return -ENOTSUP;
	return die_at(u, p, d) ? -EINVAL : 0;
}

int dwarf_die__child(const struct dwarf_unit *u, const struct dwarf_die *d,
		     struct dwarf_die *c)
{
	if (!d->ab->children)
		return 1;
	return die_at(u, d->end, c);
}

/* Where D's DW_AT_sibling points, NULL if it has none; -EINVAL in *ERR. */
static const uint8_t *die_sib(const struct dwarf_unit *u, const struct dwarf_die *d, int *err)
{
	struct dwarf_attr at;
	const uint8_t *t;
	uint64_t off;

	if (!d->sib)
		return NULL;
	at = (struct dwarf_attr){ DW_AT_sibling, d->ab->sib_form, d->sib, 0 };
	if (at.form == DW_FORM_indirect || dwarf_attr__ref(u, &at, &off)) {
		*err = -EINVAL;
		return NULL;
	}
	t = u->s->info + off;
	/* Forward only: every step of a walk makes progress. */
	if (off >= u->s->info_len || t < d->end || t > u->end) {
		*err = -EINVAL;
		return NULL;
	}
	return t;
}

int dwarf_die__sibling(const struct dwarf_unit *u, const struct dwarf_die *d,
		       struct dwarf_die *s)
{
	const uint8_t *p, *q;
	struct dwarf_die x;
	long level = 0;
	int err = 0, r;

	if (!d->ab->children)
		return die_at(u, d->end, s);
	p = die_sib(u, d, &err);
	if (err)
		return err;
	if (p)
		return die_at(u, p, s);
	/* No DW_AT_sibling: past the subtree, through its own ones. */
	p = d->end;
	level = 1;
	while (level > 0) {
		if (p >= u->end)
			return 1;
		if (!*p) {
			p++;
			level--;
			continue;
		}
		r = die_at(u, p, &x);
		if (r)
			return -EINVAL;
		if (!x.ab->children) {
			p = x.end;
			continue;
		}
		q = die_sib(u, &x, &err);
		if (err)
			return err;
		if (q) {
			p = q;
		} else {
			p = x.end;
			level++;
		}
	}
	return die_at(u, p, s);
}

int dwarf_attr__next_slow(const struct dwarf_unit *u, struct dwarf_attr_iter *it,
			  struct dwarf_attr *a)
{
	const struct dwarf_spec *sp = it->sp;
	struct rd r;
	unsigned int form;

	it->sp++;
	a->name = sp->name;
	a->implicit = sp->implicit;
	r = (struct rd){ it->p, u->end, 0 };
	form = sp->form;
	if (form == DW_FORM_indirect) {
		form = (unsigned int)uleb(&r);
		if (r.bad || form == DW_FORM_indirect || form == DW_FORM_implicit_const ||
		    form > UINT16_MAX)
			return -EINVAL;
	}
	a->form = (uint16_t)form;
	a->p = r.p;
	skip_form(u, &r, form);
	if (r.bad)
		return -EINVAL;
	it->p = r.p;
	return 1;
}

int dwarf_die__attr(const struct dwarf_unit *u, const struct dwarf_die *d, unsigned int name,
		    struct dwarf_attr *a)
{
	const struct dwarf_spec *sp = u->abbrevs.specs + d->ab->first, *end = sp + d->ab->n;
	struct dwarf_attr_iter it;

	for (; sp < end; sp++)
		if (sp->name == name)
			break;
	if (sp == end)
		return 0;
	if (sp->form != DW_FORM_indirect) {
		a->name = sp->name;
		a->form = sp->form;
		a->implicit = sp->implicit;
		a->p = dwarf_die__value(u, d, sp);
		return 1;
	}
	it = (struct dwarf_attr_iter){ dwarf_die__value(u, d, sp), sp, end };
	return dwarf_attr__next(u, &it, a);
}

int dwarf_die__attr_integrate(const struct dwarf_unit *u, const struct dwarf_die *d,
			      unsigned int name, struct dwarf_attr *a)
{
	struct dwarf_die cur = *d;
	struct dwarf_attr ref;
	uint64_t off;
	int chain, r;

	for (chain = 0; chain <= MAX_CHAIN; chain++) {
		r = dwarf_die__attr(u, &cur, name, a);
		if (r)
			return r;
		r = dwarf_die__attr(u, &cur, DW_AT_abstract_origin, &ref);
		if (!r)
			r = dwarf_die__attr(u, &cur, DW_AT_specification, &ref);
		if (r <= 0)
			return r;
		r = dwarf_attr__ref(u, &ref, &off);
		if (!r)
			r = dwarf_die__offdie(u, off, &cur);
		if (r)
			return r;
	}
	return 0;
}

int dwarf_attr__udata(const struct dwarf_unit *u, const struct dwarf_attr *a, uint64_t *v)
{
	struct rd r = { a->p, u->end, 0 };

	switch (a->form) {
	case DW_FORM_data1: *v = fixed(&r, 1); break;
	case DW_FORM_data2: *v = fixed(&r, 2); break;
	case DW_FORM_data4: *v = fixed(&r, 4); break;
	case DW_FORM_data8: *v = fixed(&r, 8); break;
	case DW_FORM_udata: *v = uleb(&r); break;
	case DW_FORM_sdata: *v = (uint64_t)sleb(&r); break;
	case DW_FORM_implicit_const: *v = (uint64_t)a->implicit; break;
	case DW_FORM_sec_offset:
		/* libdw gives the offset of a location attribute's list. */
		if (a->name != DW_AT_location && a->name != DW_AT_data_member_location)
			return -EINVAL;
		*v = fixed(&r, u->offsz);
		break;
	default:
		return -EINVAL;
	}
	return r.bad ? -EINVAL : 0;
}

int dwarf_attr__sdata(const struct dwarf_unit *u, const struct dwarf_attr *a, int64_t *v)
{
	struct rd r = { a->p, u->end, 0 };

	if (a->form == DW_FORM_implicit_const) {
		*v = a->implicit;
		return 0;
	}
	if (a->form != DW_FORM_sdata)
		return -EINVAL;
	*v = sleb(&r);
	return r.bad ? -EINVAL : 0;
}

int dwarf_attr__flag(const struct dwarf_unit *u, const struct dwarf_attr *a, bool *v)
{
	(void)u;
	if (a->form == DW_FORM_flag_present) {
		*v = true;
		return 0;
	}
	if (a->form != DW_FORM_flag)
		return -EINVAL;
	*v = a->p[0] != 0;
	return 0;
}

/* The string of a strx form's index IDX. */
static const char *strx(const struct dwarf_unit *u, uint64_t idx)
{
	return u->has_str_base ? rd_strx(u->s, u->str_offsets_base, u->offsz, idx) : NULL;
}

const char *dwarf_attr__string_slow(const struct dwarf_unit *u, const struct dwarf_attr *a)
{
	const struct dwarf_scan_secs *s = u->s;
	struct rd r = { a->p, u->end, 0 };
	uint64_t v;

	switch (a->form) {
	case DW_FORM_string:
		return (const char *)a->p;	/* its NUL is inside the unit */
	case DW_FORM_strp:
		v = fixed(&r, u->offsz);
		return rd_str(s->str, s->str_len, v);
	case DW_FORM_line_strp:
		v = fixed(&r, u->offsz);
		return rd_str(s->line_str, s->line_str_len, v);
	case DW_FORM_strx1: case DW_FORM_strx2: case DW_FORM_strx3: case DW_FORM_strx4:
		v = fixed(&r, a->form - DW_FORM_strx1 + 1);
		return strx(u, v);
	case DW_FORM_strx:
		v = uleb(&r);
		return r.bad ? NULL : strx(u, v);
	default:
		return NULL;
	}
}

int dwarf_attr__ref_slow(const struct dwarf_unit *u, const struct dwarf_attr *a, uint64_t *off)
{
	struct rd r = { a->p, u->end, 0 };
	uint64_t v;

	switch (a->form) {
	case DW_FORM_ref1: v = fixed(&r, 1); break;
	case DW_FORM_ref2: v = fixed(&r, 2); break;
	case DW_FORM_ref4: v = fixed(&r, 4); break;
	case DW_FORM_ref8: v = fixed(&r, 8); break;
	case DW_FORM_ref_udata: v = uleb(&r); break;
	case DW_FORM_ref_addr:
		*off = fixed(&r, u->version == 2 ? u->addrsz : u->offsz);
		return r.bad ? -EINVAL : 0;
	case DW_FORM_ref_sig8: case DW_FORM_GNU_ref_alt:
	case DW_FORM_ref_sup4: case DW_FORM_ref_sup8:
		return -ENOTSUP;
	default:
		return -EINVAL;
	}
	if (r.bad || v >= u->next - u->off)
		return -EINVAL;
	*off = u->off + v;
	return 0;
}

int dwarf_attr__block(const struct dwarf_unit *u, const struct dwarf_attr *a,
		      const uint8_t **p, size_t *len)
{
	struct rd r = { a->p, u->end, 0 };
	uint64_t n;

	switch (a->form) {
	case DW_FORM_block1: n = fixed(&r, 1); break;
	case DW_FORM_block2: n = fixed(&r, 2); break;
	case DW_FORM_block4: n = fixed(&r, 4); break;
	case DW_FORM_block: case DW_FORM_exprloc: n = uleb(&r); break;
	default:
		return -EINVAL;
	}
	if (r.bad || n > (uint64_t)(r.end - r.p))
		return -EINVAL;
	*p = r.p;
	*len = (size_t)n;
	return 0;
}

int dwarf_unit__addrx(const struct dwarf_unit *u, uint64_t idx, uint64_t *addr)
{
	const struct dwarf_scan_secs *s = u->s;
	uint64_t at;
	struct rd r;

	if (!u->has_addr_base || !s->addr)
		return -ENOTSUP;
	if (idx > s->addr_len)
		return -EINVAL;
	at = u->addr_base + idx * u->addrsz;
	if (at < u->addr_base || at > s->addr_len || s->addr_len - at < u->addrsz)
		return -EINVAL;
	r = (struct rd){ s->addr + at, s->addr + s->addr_len, 0 };
	*addr = fixed(&r, u->addrsz);
	return 0;
}

/* The first entry with an expression of the DWARF 4 list at OFF of .debug_loc. */
static int loc_first(const struct dwarf_unit *u, uint64_t off, uint8_t *op, size_t *len)
{
	const struct dwarf_scan_secs *s = u->s;
	uint64_t begin, end, max = u->addrsz == 8 ? ~0ull : 0xffffffffull, n;
	struct rd r;

	if (!s->loc || off >= s->loc_len)
		return -EINVAL;
	r = (struct rd){ s->loc + off, s->loc + s->loc_len, 0 };
	for (;;) {
		begin = fixed(&r, u->addrsz);
		end = fixed(&r, u->addrsz);
		if (r.bad)
			return -EINVAL;
		if (!begin && !end)
			return 0;		/* the end of the list */
		if (begin == max)
			continue;		/* a base address */
		n = fixed(&r, 2);
		if (r.bad || n > (uint64_t)(r.end - r.p))
			return -EINVAL;
		if (!n)
			return 0;
		*op = *r.p;
		*len = (size_t)n;
		return 1;
	}
}

/* The same in a DWARF 5 list at OFF of .debug_loclists. */
static int loclists_first(const struct dwarf_unit *u, uint64_t off, uint8_t *op,
			  size_t *len)
{
	const struct dwarf_scan_secs *s = u->s;
	uint64_t n;
	struct rd r;
	uint8_t kind;

	if (!s->loclists || off >= s->loclists_len)
		return -EINVAL;
	r = (struct rd){ s->loclists + off, s->loclists + s->loclists_len, 0 };
	for (;;) {
		kind = (uint8_t)fixed(&r, 1);
		if (r.bad)
			return -EINVAL;
		switch (kind) {
		case DW_LLE_end_of_list:
			return 0;
		case DW_LLE_base_addressx:
			uleb(&r);
			continue;
		case DW_LLE_base_address:
			fixed(&r, u->addrsz);
			continue;
		case DW_LLE_GNU_view_pair:
			uleb(&r);
			uleb(&r);
			continue;
		case DW_LLE_startx_endx: case DW_LLE_startx_length: case DW_LLE_offset_pair:
			uleb(&r);
			uleb(&r);
			break;
		case DW_LLE_start_end:
			fixed(&r, u->addrsz);
			fixed(&r, u->addrsz);
			break;
		case DW_LLE_start_length:
			fixed(&r, u->addrsz);
			uleb(&r);
			break;
		default:
			return -ENOTSUP;	/* default_location, vendor kinds */
		}
		n = uleb(&r);
		if (r.bad || n > (uint64_t)(r.end - r.p))
			return -EINVAL;
		if (!n)
			return 0;
		*op = *r.p;
		*len = (size_t)n;
		return 1;
	}
}

int dwarf_attr__first_op(const struct dwarf_unit *u, const struct dwarf_attr *a, uint8_t *op,
			 size_t *len)
{
	const uint8_t *p;
	uint64_t off;

	switch (a->form) {
	case DW_FORM_block1: case DW_FORM_block2: case DW_FORM_block4: case DW_FORM_block:
	case DW_FORM_exprloc:
		if (dwarf_attr__block(u, a, &p, len))
			return -EINVAL;
		if (!*len)
			return 0;
		*op = p[0];
		return 1;
	case DW_FORM_sec_offset:
		off = fixed(&(struct rd){ a->p, u->end, 0 }, u->offsz);
		return u->version >= 5 ? loclists_first(u, off, op, len)
				       : loc_first(u, off, op, len);
	case DW_FORM_data4: case DW_FORM_data8:
		if (u->version >= 4)
			return -EINVAL;		/* a constant since DWARF 4 */
		off = fixed(&(struct rd){ a->p, u->end, 0 }, a->form == DW_FORM_data4 ? 4 : 8);
		return loc_first(u, off, op, len);
	default:
		return -ENOTSUP;
	}
}
