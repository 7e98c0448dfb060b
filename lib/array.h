/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Growing an array: one overflow-checked doubling, instead of a realloc
 * loop in every file.
 */
#ifndef FRUGAL_ARRAY_H
#define FRUGAL_ARRAY_H

#include <stddef.h>

/*
 * Make *P hold at least NEED elements of SIZE bytes: *CAP doubles from
 * FIRST (or from itself) until it is enough.  0, or -ENOMEM when memory
 * is short or the size would overflow; *P and *CAP are then unchanged.
 */
int array__grow_to(void *p, size_t *cap, size_t need, size_t size, size_t first);

/*
 * The same, with the check inlined: most calls already have room (the
 * encoder's per-DIE lists call it 12 million times on the 6.12 vmlinux).
 */
static inline int array__grow(void *p, size_t *cap, size_t need, size_t size, size_t first)
{
	return need <= *cap ? 0 : array__grow_to(p, cap, need, size, first);
}

/* The same, the elements added zeroed. */
int array__grow_zero(void *p, size_t *cap, size_t need, size_t size);

#endif
