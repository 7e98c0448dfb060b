// SPDX-License-Identifier: GPL-2.0
/*
 * cli_parse_u64 over arbitrary strings: it accepts exactly the strings that
 * are whole numbers in range, and the value it returns is in range.  Its
 * error messages go to stderr, which fuzz/run.sh closes (-close_fd_mask=2).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned long long v = 0, min, max;
	char s[64];
	int r;

	if (size < 2 || size > sizeof(s))
		return 0;
	min = data[0];
	max = min + (data[1] << 8);
	memcpy(s, data + 2, size - 2);
	s[size - 2] = '\0';
	r = cli_parse_u64("--fuzz", s, min, max, &v);
	if (r == 0 && (v < min || v > max))
		abort();
	if (r != 0 && r != EXIT_USAGE)
		abort();
	return 0;
}
