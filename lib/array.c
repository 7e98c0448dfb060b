// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/array.h"

int array__grow_to(void *p, size_t *cap, size_t need, size_t size, size_t first)
{
	void **pp = p, *q;
	size_t n = *cap ? *cap : (first ? first : 1);

	if (need <= *cap)
		return 0;
	while (n < need) {
		if (n > SIZE_MAX / 2)
			return -ENOMEM;
		n *= 2;
	}
	if (size && n > SIZE_MAX / size)
		return -ENOMEM;
	q = realloc(*pp, n * size);
	if (!q)
		return -ENOMEM;
	*pp = q;
	*cap = n;
	return 0;
}

int array__grow_zero(void *p, size_t *cap, size_t need, size_t size)
{
	size_t old = *cap;
	int err = array__grow(p, cap, need, size, 16);

	if (!err && *cap > old)
		memset(*(char **)p + old * size, 0, (*cap - old) * size);
	return err;
}
