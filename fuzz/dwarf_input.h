/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The DWARF harnesses' input: two little-endian u16 lengths (.debug_abbrev,
 * .debug_str), then those sections, then .debug_info (the rest).  Each
 * section is copied into a buffer of its own size, so that a read past one
 * is caught.
 */
#ifndef FRUGAL_FUZZ_DWARF_INPUT_H
#define FRUGAL_FUZZ_DWARF_INPUT_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/dwarf_scan.h"

static uint8_t *fuzz_dup(const uint8_t *p, size_t n)
{
	uint8_t *q = malloc(n ? n : 1);

	if (!q)
		abort();
	memcpy(q, p, n);
	return q;
}

/* The sections of DATA into *S: 0, or -1 when DATA is not such an input. */
static int fuzz_dwarf_secs(const uint8_t *data, size_t size, struct dwarf_scan_secs *s)
{
	size_t la, ls;

	if (size < 4)
		return -1;
	la = data[0] | data[1] << 8;
	ls = data[2] | data[3] << 8;
	data += 4, size -= 4;
	if (la > size || ls > size - la)
		return -1;
	memset(s, 0, sizeof(*s));
	s->abbrev = fuzz_dup(data, la), s->abbrev_len = la;
	s->str = fuzz_dup(data + la, ls), s->str_len = ls;
	s->info = fuzz_dup(data + la + ls, size - la - ls), s->info_len = size - la - ls;
	return 0;
}

static void fuzz_dwarf_free(struct dwarf_scan_secs *s)
{
	free((void *)s->abbrev);
	free((void *)s->str);
	free((void *)s->info);
}

#endif
