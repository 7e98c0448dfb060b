// SPDX-License-Identifier: GPL-2.0
/*
 * lib/idxmap driven by arbitrary bytes, checked against a plain array.
 * The first byte chooses the keys' hash for the run (equal keys must hash
 * alike): the key itself, one that makes every fourth key collide, or a
 * constant.  Then each 3-byte command: an operation (add, find, remove,
 * add without a test, clear) and a 16-bit key.  Invariants: every answer matches the
 * model's, the stored indexes are the ones given, the counts are exact
 * and the load never passes one half.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/idxmap.h"

#define KEYS 65536

struct model {
	uint64_t ents[KEYS];	/* the caller's array: a key per index */
	uint32_t where[KEYS];	/* key -> index, when in[] */
	uint32_t freelist[KEYS];
	uint8_t in[KEYS];
	uint32_t next, nfree, live;
};

static bool key_eq(void *ctx, uint32_t idx, const void *key)
{
	return ((struct model *)ctx)->ents[idx] == *(const uint64_t *)key;
}

static uint64_t hash_of(uint64_t k, uint8_t sel)
{
	switch (sel % 3) {
	case 0:
		return k;
	case 1:
		return k % 4 ? k : k & 0xff;
	default:
		return 7;
	}
}

static void check_map(const struct idxmap *m, const struct model *s)
{
	size_t i, used = 0, del = 0;

	for (i = 0; i < m->cap; i++) {
		uint32_t ref = m->slots[i].ref;

		if (ref && ref != IDXMAP_DELETED) {
			used++;
			if (!s->in[s->ents[ref - 1]] || s->where[s->ents[ref - 1]] != ref - 1)
				abort();
		}
		del += ref == IDXMAP_DELETED;
	}
	if (used != m->used || del != m->deleted || used != s->live ||
	    (m->cap & (m->cap - 1)) || (used + del) * 2 > m->cap + !m->cap)
		abort();
}

static void add_new(struct model *s, uint64_t k, uint32_t idx)
{
	if (s->nfree && idx == s->freelist[s->nfree - 1])
		s->nfree--;
	else
		s->next++;
	s->ents[idx] = k;
	s->where[k] = idx;
	s->in[k] = 1;
	s->live++;
}

static void one(struct idxmap *m, struct model *s, uint8_t sel, uint8_t op, uint64_t k)
{
	uint64_t h = hash_of(k, sel);
	struct idxmap_probe p;
	uint32_t idx;
	int r;

	switch (op & 7) {
	case 0:
	case 1:
		idx = s->nfree ? s->freelist[s->nfree - 1] : s->next;
		r = idxmap__find_or_add(m, h, key_eq, s, &k, &idx);
		if (r == 0 && !s->in[k])
			add_new(s, k, idx);
		else if (r != 1 || !s->in[k] || idx != s->where[k])
			abort();
		break;
	case 2:
	case 3:
		r = idxmap__find(m, h, key_eq, s, &k, &idx);
		if (s->in[k] ? r || idx != s->where[k] : r != -ENOENT)
			abort();
		break;
	case 4:
	case 5:
		idxmap__for_each_candidate(m, h, &p, idx)
			if (s->ents[idx] == k)
				break;
		if ((idx != IDXMAP_NONE) != s->in[k])
			abort();
		if (idx == IDXMAP_NONE)
			break;
		idxmap__probe_del(m, &p);
		s->ents[idx] = UINT64_MAX;
		s->freelist[s->nfree++] = idx;
		s->in[k] = 0;
		s->live--;
		break;
	case 6:
		if (s->in[k])	/* add is only for keys known new */
			break;
		idx = s->nfree ? s->freelist[s->nfree - 1] : s->next;
		if (idxmap__add(m, h, idx))
			abort();
		add_new(s, k, idx);
		break;
	default:
		if (k % 64)	/* rarely: a clear would hide the rest */
			break;
		idxmap__clear(m);
		memset(s->in, 0, sizeof(s->in));
		s->next = s->nfree = s->live = 0;
		break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct model s;
	struct idxmap m = IDXMAP_INIT;
	size_t i;
	uint8_t sel;

	if (!size)
		return 0;
	sel = *data++;
	size--;
	memset(s.in, 0, sizeof(s.in));
	s.next = s.nfree = s.live = 0;
	for (i = 0; i + 3 <= size; i += 3) {
		one(&m, &s, sel, data[i], (uint64_t)data[i + 1] << 8 | data[i + 2]);
		if (i % 96 == 0)
			check_map(&m, &s);
	}
	check_map(&m, &s);
	idxmap__free(&m);
	return 0;
}
