// SPDX-License-Identifier: GPL-2.0
/*
 * lib/dwarf_die, the encoder's DIE cursor, over arbitrary sections (input:
 * fuzz/dwarf_input.h, as fuzz_dwarf_scan's, whose seeds serve both).
 * The string section also stands for .debug_line_str, .debug_str_offsets,
 * .debug_addr, .debug_loc and .debug_loclists, so that every form's reader
 * meets arbitrary bytes.  Each section is a buffer of its own size, so a
 * read past one is caught.  Every unit is opened, every DIE walked through
 * child and sibling, every attribute read through every accessor (as the
 * encoder would, and some it would not); references are followed.
 * Invariants: the walk ends, strings lie inside a section and end there,
 * a second walk counts the same.
 */
#include <dwarf.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/dwarf_input.h"
#include "lib/dwarf_die.h"

#define MAX_DEPTH 64

static const struct dwarf_scan_secs *g;

static void in_secs(const char *p)
{
	const uint8_t *q = (const uint8_t *)p;

	if (q >= g->info && q < g->info + g->info_len &&
	    memchr(q, 0, (size_t)(g->info + g->info_len - q)))
		return;
	if (q >= g->str && q < g->str + g->str_len && memchr(q, 0, (size_t)(g->str + g->str_len - q)))
		return;
	abort();
}

static uint64_t read_all(const struct dwarf_unit *u, const struct dwarf_die *d)
{
	struct dwarf_attr_iter it;
	struct dwarf_attr a;
	struct dwarf_die t;
	const uint8_t *p;
	const char *s;
	uint64_t v, n = 0, off;
	int64_t sv;
	size_t len;
	uint8_t op;
	bool f;

	dwarf_die__attrs(u, d, &it);
	while (dwarf_attr__next(u, &it, &a) > 0) {
		n++;
		if ((s = dwarf_attr__string(u, &a)))
			in_secs(s);
		if (!dwarf_attr__udata(u, &a, &v))
			n += v & 1;
		if (!dwarf_attr__sdata(u, &a, &sv))
			n += sv & 1;
		if (!dwarf_attr__flag(u, &a, &f))
			n += f;
		if (!dwarf_attr__block(u, &a, &p, &len) && len)
			n += p[len - 1] & 1;
		if (dwarf_attr__first_op(u, &a, &op, &len) > 0)
			n += op & 1;
		if (!dwarf_attr__ref(u, &a, &off) && !dwarf_die__offdie(u, off, &t))
			n += dwarf_die__tag(&t) & 1;
		if (!dwarf_attr__udata(u, &a, &v) && !dwarf_unit__addrx(u, v, &off))
			n += off & 1;
	}
	if (dwarf_die__attr_integrate(u, d, DW_AT_name, &a) > 0 && (s = dwarf_attr__string(u, &a)))
		in_secs(s);
	if (dwarf_die__attr(u, d, DW_AT_type, &a) > 0)
		n++;
	return n;
}

static uint64_t walk(const struct dwarf_unit *u, struct dwarf_die d, int depth)
{
	struct dwarf_die c;
	uint64_t n = 0;
	int r;

	do {
		n += 1 + read_all(u, &d);
		if (depth < MAX_DEPTH && dwarf_die__child(u, &d, &c) == 0)
			n += walk(u, c, depth + 1);
		r = dwarf_die__sibling(u, &d, &d);
	} while (r == 0);
	return n;
}

static uint64_t walk_units(const struct dwarf_scan_secs *s)
{
	struct dwarf_unit u;
	struct dwarf_die cu;
	uint64_t off = 0, n = 0;

	dwarf_unit__init(&u, s);
	while (off < s->info_len && !dwarf_unit__open(&u, off)) {
		if (!dwarf_unit__cudie(&u, &cu))
			n += walk(&u, cu, 0);
		if (u.next <= off)
			abort();	/* units must move forward */
		off = u.next;
	}
	dwarf_unit__fini(&u);
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dwarf_scan_secs s;
	size_t ls;

	if (fuzz_dwarf_secs(data, size, &s))
		return 0;
	ls = s.str_len;
	s.line_str = s.str_offsets = s.addr = s.loc = s.loclists = s.str;
	s.line_str_len = s.str_offsets_len = s.addr_len = s.loc_len = s.loclists_len = ls;
	g = &s;
	if (walk_units(&s) != walk_units(&s))
		abort();
	fuzz_dwarf_free(&s);
	return 0;
}
