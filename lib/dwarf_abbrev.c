// SPDX-License-Identifier: GPL-2.0
/*
 * dwarf_abbrev: .debug_abbrev tables decoded (see dwarf_abbrev.h).
 */
#include <dwarf.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lib/array.h"
#include "lib/dwarf_abbrev.h"
#include "lib/dwarf_rd.h"

/* Each spec's back: the sizes from it to the end, while all are fixed. */
static void spec_backs(struct dwarf_spec *sp, uint32_t n)
{
	int32_t tail = 0;
	bool fixed = true;

	while (n--) {
		fixed = fixed && sp[n].size >= 0 && tail <= INT32_MAX - INT16_MAX;
		if (fixed)
			tail += sp[n].size;
		sp[n].back = fixed ? tail : -1;
	}
}

int dwarf_abbrevs__read(struct dwarf_abbrevs *t, const uint8_t *sec, size_t len, uint64_t off,
			unsigned int version, unsigned int offsz, unsigned int addrsz)
{
	struct rd r = rd_at(sec, len, off);
	uint64_t code, name, form, tag;
	struct dwarf_abbrev *a;
	struct dwarf_spec *sp;
	bool fixed_so_far;
	int n;

	/* Never NULL: DIEs of attribute-less abbreviations point into it. */
	if (array__grow(&t->specs, &t->specs_cap, 1, sizeof(*t->specs), 1024))
		return -ENOMEM;
	if (t->ncodes)
		memset(t->byc, 0, t->ncodes * sizeof(*t->byc));
	t->nspecs = 0;
	while (!r.bad && (code = uleb(&r)) != 0) {
		if ((n = rd_code_slot(&t->byc, &t->cap, &t->ncodes, code, sizeof(*t->byc))))
			return n;
		a = &t->byc[code];
		if (a->known)
			return -EINVAL;		/* a code defined twice */
		tag = uleb(&r);
		if (tag > UINT32_MAX)
			return -EINVAL;
		a->tag = (uint32_t)tag;
		a->children = (uint8_t)fixed(&r, 1);
		a->first = (uint32_t)t->nspecs;
		a->known = 1;
		a->fixed = 0;
		a->sib = -1;
		fixed_so_far = true;
		for (;;) {
			name = uleb(&r);
			form = uleb(&r);
			if (r.bad || (!name && !form))
				break;
			if (name > UINT16_MAX || form > UINT16_MAX ||
			    t->nspecs - a->first >= UINT16_MAX)
				return -EINVAL;
			if (array__grow(&t->specs, &t->specs_cap, t->nspecs + 1, sizeof(*t->specs),
					1024))
				return -ENOMEM;
			sp = &t->specs[t->nspecs++];
			*sp = (struct dwarf_spec){ .name = (uint16_t)name, .form = (uint16_t)form };
			if (form == DW_FORM_implicit_const)
				sp->implicit = sleb(&r);
			n = dwarf_form__size(version, offsz, addrsz, (unsigned int)form);
			sp->size = (int16_t)n;
			sp->at = fixed_so_far ? a->fixed : -1;
			if (name == DW_AT_sibling && a->sib < 0) {
				a->sib = (int32_t)(t->nspecs - 1 - a->first);
				a->sib_form = (uint16_t)form;
			}
			if (n < 0)
				fixed_so_far = false;
			else if (fixed_so_far)
				a->fixed += n;
		}
		a->n = (uint32_t)(t->nspecs - a->first);
		spec_backs(t->specs + a->first, a->n);
		a->var0 = (uint16_t)a->n;
		if (!fixed_so_far) {
			a->fixed = -1;
			for (a->var0 = 0; t->specs[a->first + a->var0].at >= 0 &&
			     t->specs[a->first + a->var0].size >= 0; a->var0++)
				;
		}
	}
	return r.bad ? -EINVAL : 0;
}

void dwarf_abbrevs__free(struct dwarf_abbrevs *t)
{
	if (!t)
		return;
	free(t->byc);
	free(t->specs);
	memset(t, 0, sizeof(*t));
}
