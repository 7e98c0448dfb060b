/* SPDX-License-Identifier: GPL-2.0 */
/*
 * FNV-1a, 64-bit: a byte-wise hash for table keys (never stored on disk,
 * never compared across builds).  Chain calls by passing the last result.
 */
#ifndef FRUGAL_HASH_H
#define FRUGAL_HASH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define HASH_FNV1A_SEED 0xcbf29ce484222325ULL

static inline uint64_t hash_fnv1a(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;

	while (n--)
		h = (h ^ *c++) * 0x100000001b3ULL;
	return h;
}

/* A NUL-terminated string, without its NUL. */
static inline uint64_t hash_fnv1a_str(const char *s)
{
	return hash_fnv1a(HASH_FNV1A_SEED, s, strlen(s));
}

#endif
