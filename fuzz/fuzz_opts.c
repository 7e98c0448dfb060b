// SPDX-License-Identifier: GPL-2.0
/*
 * The option-value parsers the subcommands expose, over arbitrary strings.
 * The first byte picks the parser (and a CPU count); the rest, up to a NUL,
 * is the option's value.  The command lines around them are fuzz_args'.
 * Invariants:
 *  - -C (cpus__parse_list, lib/cpus.c): only CPUs below the count are ever marked,
 *    and an accepted list is made of digits, '-' and ',';
 *  - -Y (lock_type_parse), --kinds (btf_canon__parse_cats): an accepted
 *    list gives a non-empty mask of known bits; a rejected one -EINVAL;
 *  - numbers (cli_parse_u64, cli_parse_double): accepted values are in
 *    range, and an accepted string holds no blank or sign.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "btf/view/view.h"
#include "btf/encode/encode.h"
#include "cli/cli.h"
#include "lib/cpus.h"
#include "lock/request/request.h"

static void check_cpus(const char *s, int nr)
{
	unsigned char set[256 + 16];
	int i, r;

	memset(set, 0xaa, sizeof(set));
	for (i = 0; i < nr; i++)
		set[i] = 0;
	r = cpus__parse_list(s, set, nr);
	for (i = nr; i < (int)sizeof(set); i++)
		if (set[i] != 0xaa)
			abort();
	if (r == 0 && s[strspn(s, "0123456789-,")])
		abort();
	if (r != 0 && r != -EINVAL && r != -ERANGE)
		abort();
}

static void check_types(const char *s)
{
	uint64_t mask = 0;
	int r = lock_type_parse(s, &mask);

	if ((r == 0 && !mask) || (r != 0 && r != -EINVAL))
		abort();
}

static void check_kinds(const char *s)
{
	unsigned int mask = 0;
	int r = btf_canon__parse_cats(s, &mask);

	if ((r == 0 && (!mask || (mask & ~BTF_CANON_ALL))) || (r != 0 && r != -EINVAL))
		abort();
	if (btf_feat__from_name(s) & ~btf_feat__all())
		abort();
}

static void check_numbers(const char *s, unsigned int k)
{
	unsigned long long u = 0, min = k % 7, max = min + (1ull << (k % 64));
	double d = 0;
	int r;

	r = cli_parse_u64("--fuzz", s, min, max, &u);
	if (r == 0 && (u < min || u > max || strpbrk(s, " \t\n\v\f\r-+")))
		abort();
	r = cli_parse_double("--fuzz", s, 0.001, 1e7, &d);
	if (r == 0 && (!(d >= 0.001 && d <= 1e7) || isnan(d)))
		abort();
	if (r != 0 && r != EXIT_USAGE)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char s[512];
	unsigned int k;

	if (size < 1 || size > sizeof(s))
		return 0;
	k = data[0];
	memcpy(s, data + 1, size - 1);
	s[size - 1] = '\0';
	switch (k % 4) {
	case 0: check_cpus(s, 1 + (k >> 2) * 4); break;
	case 1: check_types(s); break;
	case 2: check_kinds(s); break;
	case 3: check_numbers(s, k >> 2); break;
	}
	return 0;
}
