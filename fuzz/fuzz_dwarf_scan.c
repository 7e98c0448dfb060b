// SPDX-License-Identifier: GPL-2.0
/*
 * lib/dwarf_scan over arbitrary sections (input: fuzz/dwarf_input.h).
 * Invariants: the walk ends; every
 * string it reports lies inside .debug_info or .debug_str and ends there;
 * a second walk gives the same result and the same counts.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/dwarf_input.h"
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dwarf_scan_secs s;
	struct dwarf_scan_stats a, b;
	struct bounds ba, bb;
	int ra, rb;

	if (fuzz_dwarf_secs(data, size, &s))
		return 0;
	ba = (struct bounds){ &s, 0 };
	bb = (struct bounds){ &s, 0 };
	ra = dwarf_scan__walk(&s, on_str, &ba, &a);
	rb = dwarf_scan__walk(&s, on_str, &bb, &b);
	if (ra > 0 || ra != rb || ba.n != bb.n || memcmp(&a, &b, sizeof(a)))
		abort();
	fuzz_dwarf_free(&s);
	return 0;
}
