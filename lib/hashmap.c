// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/hashmap.h"

/* Every index of OLD placed in SLOTS (CAP slots, all empty), by its cached hash. */
static void hashmap__place(struct hashmap_slot *slots, size_t cap,
			   const struct hashmap_slot *old, size_t old_cap)
{
	size_t i, j;

	for (i = 0; i < old_cap; i++) {
		if (!old[i].ref || old[i].ref == HASHMAP_DELETED)
			continue;
		for (j = old[i].hash & (cap - 1); slots[j].ref; j = (j + 1) & (cap - 1))
			;
		slots[j] = old[i];
	}
}

int hashmap__reserve_to(struct hashmap *m, size_t more)
{
	size_t live = m->used + more, need = live + m->deleted, cap = 64;
	struct hashmap_slot *slots;

	/* Indexes are u32: more live entries than that cannot be told apart. */
	if (live < m->used || need < live || live > (size_t)HASHMAP_MAX_INDEX + 1)
		return -ENOMEM;
	if (need <= m->cap / 2)
		return 0;
	while (cap / 2 < live) {
		if (cap > SIZE_MAX / 2 / sizeof(*slots))
			return -ENOMEM;
		cap *= 2;
	}
	/*
	 * Full of tombstones: the rebuild drops them, at the same size if
	 * that leaves the map at most a quarter full, else doubled, so that
	 * adding and removing around the half mark does not rebuild on
	 * every insert.  Never shrunk: a map emptied and filled again stays.
	 */
	if (cap <= m->cap) {
		cap = m->cap;
		if (live > cap / 4) {
			if (cap > SIZE_MAX / 2 / sizeof(*slots))
				return -ENOMEM;
			cap *= 2;
		}
	}
	slots = calloc(cap, sizeof(*slots));
	if (!slots)
		return -ENOMEM;
	hashmap__place(slots, cap, m->slots, m->cap);
	free(m->slots);
	m->slots = slots;
	m->cap = cap;
	m->alloc = cap;
	m->deleted = 0;
	return 0;
}

int hashmap__reset(struct hashmap *m, size_t n)
{
	size_t cap = 64;
	struct hashmap_slot *slots;

	m->used = 0;
	m->deleted = 0;
	if (n > (size_t)HASHMAP_MAX_INDEX + 1)
		return -ENOMEM;
	while (cap / 2 < n)
		cap *= 2;	/* at most 2^34: no overflow */
	if (cap <= m->alloc) {
		m->cap = cap;
		memset(m->slots, 0, cap * sizeof(*m->slots));
		return 0;
	}
	slots = calloc(cap, sizeof(*slots));
	if (!slots) {
		hashmap__clear(m);
		return -ENOMEM;
	}
	free(m->slots);
	m->slots = slots;
	m->cap = cap;
	m->alloc = cap;
	return 0;
}

void hashmap__clear(struct hashmap *m)
{
	if (m->cap)
		memset(m->slots, 0, m->cap * sizeof(*m->slots));
	m->used = 0;
	m->deleted = 0;
}

void hashmap__free(struct hashmap *m)
{
	if (!m)
		return;
	free(m->slots);
	m->slots = NULL;
	m->cap = 0;
	m->alloc = 0;
	m->used = 0;
	m->deleted = 0;
}
