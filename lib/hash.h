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

/*
 * A string of length N, 8 bytes at a time: several times faster than
 * FNV-1a on names (the encoder's base pruning and its module string
 * cache).  Never 0, which some tables keep for an empty slot.
 */
static inline uint64_t hash_words(const char *s, size_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15ull ^ n, w;
	size_t i;

	for (i = 0; i + 8 <= n; i += 8) {
		memcpy(&w, s + i, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	if (i < n) {
		w = 0;
		memcpy(&w, s + i, n - i);
		h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
	}
	h ^= h >> 29;
	return h ? h : 1;
}

#endif
