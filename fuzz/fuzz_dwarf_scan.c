// SPDX-License-Identifier: GPL-2.0
/*
 * lib/dwarf_scan over arbitrary sections.  Input: two little-endian u16
 * lengths (.debug_abbrev, .debug_str), then those sections, then
 * .debug_info (the rest).  Each section is copied into a buffer of its own
 * size, so a read past one is caught.  Invariants: the walk ends; every
 * string it reports lies inside .debug_info or .debug_str and ends there;
 * a second walk gives the same result and the same counts.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/dwarf_scan.h"

struct bounds {
	const struct dwarf_scan_secs *s;
	uint64_t n;
};

static int in(const char *p, const uint8_t *sec, size_t len)
{
	return sec && (const uint8_t *)p >= sec && (const uint8_t *)p < sec + len &&
	       memchr(p, 0, (size_t)(sec + len - (const uint8_t *)p));
}

static int on_str(const char *str, void *arg)
{
	struct bounds *b = arg;

	if (!in(str, b->s->info, b->s->info_len) && !in(str, b->s->str, b->s->str_len))
		abort();
	b->n++;
	return 0;
}

static uint8_t *dup(const uint8_t *p, size_t n)
{
	uint8_t *q = malloc(n ? n : 1);

	if (!q)
		abort();
	memcpy(q, p, n);
	return q;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dwarf_scan_secs s = { 0 };
	struct dwarf_scan_stats a, b;
	struct bounds ba, bb;
	size_t la, ls;
	int ra, rb;

	if (size < 4)
		return 0;
	la = data[0] | data[1] << 8;
	ls = data[2] | data[3] << 8;
	data += 4, size -= 4;
	if (la > size || ls > size - la)
		return 0;
	s.abbrev = dup(data, la), s.abbrev_len = la;
	s.str = dup(data + la, ls), s.str_len = ls;
	s.info = dup(data + la + ls, size - la - ls), s.info_len = size - la - ls;
	ba = (struct bounds){ &s, 0 };
	bb = (struct bounds){ &s, 0 };
	ra = dwarf_scan__walk(&s, on_str, &ba, &a);
	rb = dwarf_scan__walk(&s, on_str, &bb, &b);
	if (ra > 0 || ra != rb || ba.n != bb.n || memcmp(&a, &b, sizeof(a)))
		abort();
	free((void *)s.abbrev);
	free((void *)s.str);
	free((void *)s.info);
	return 0;
}
