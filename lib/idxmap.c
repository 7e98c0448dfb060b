// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/idxmap.h"

/* Every index of OLD placed in SLOTS (CAP slots, all empty), by its cached hash. */
static void idxmap__place(struct idxmap_slot *slots, size_t cap,
			   const struct idxmap_slot *old, size_t old_cap)
{
	size_t i, j;

	for (i = 0; i < old_cap; i++) {
		if (!old[i].ref || old[i].ref == IDXMAP_DELETED)
			continue;
		for (j = old[i].hash & (cap - 1); slots[j].ref; j = (j + 1) & (cap - 1))
			;
		slots[j] = old[i];
	}
}

int idxmap__reserve_to(struct idxmap *m, size_t more)
{
	size_t live = m->used + more, need = live + m->deleted, cap = 64;
	struct idxmap_slot *slots;

	/* Indexes are u32: more live entries than that cannot be told apart. */
	if (live < m->used || need < live || live > (size_t)IDXMAP_MAX_INDEX + 1)
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
	idxmap__place(slots, cap, m->slots, m->cap);
	free(m->slots);
	m->slots = slots;
	m->cap = cap;
	m->alloc = cap;
	m->deleted = 0;
	return 0;
}

int idxmap__reset(struct idxmap *m, size_t n)
{
	size_t cap = 64;
	struct idxmap_slot *slots;

	m->used = 0;
	m->deleted = 0;
	if (n > (size_t)IDXMAP_MAX_INDEX + 1)
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
		idxmap__clear(m);
		return -ENOMEM;
	}
	free(m->slots);
	m->slots = slots;
	m->cap = cap;
	m->alloc = cap;
	return 0;
}

void idxmap__clear(struct idxmap *m)
{
	if (m->cap)
		memset(m->slots, 0, m->cap * sizeof(*m->slots));
	m->used = 0;
	m->deleted = 0;
}

void idxmap__free(struct idxmap *m)
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
