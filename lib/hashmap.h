/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one hash table: open addressing over 8-byte slots, each holding the
 * index of an entry in the CALLER's own array and 32 bits of the key's
 * hash.  The map never sees a key: the caller says what a key hashes to
 * and which stored index holds an equal key, so one implementation serves
 * tables keyed by a u64, a DIE offset, a (parent, name) pair or a string.
 *
 * Why indexes and cached hashes: every table this replaced kept its
 * entries in an array anyway (rows, frames, nodes, DIEs); a slot of two
 * u32 costs 8 bytes per slot, growing never moves or rehashes an entry
 * (the cached hash places it again), and a probe compares the cached hash
 * before it touches the caller's entry, so a lookup of a missing key
 * rarely leaves the slot array.
 *
 * Usage, a set of strings kept in the caller's array NAMES[0..n):
 *
 *	static bool name_eq(void *ctx, uint32_t idx, const void *key)
 *	{
 *		return !strcmp(((char **)ctx)[idx], key);
 *	}
 *
 *	struct hashmap map = HASHMAP_INIT;
 *	uint32_t idx = n;	// the index a new entry would get
 *	int r;
 *
 *	if (array__grow(&names, &cap, n + 1, sizeof(*names), 64))
 *		return -ENOMEM;
 *	r = hashmap__find_or_add(&map, hash_fnv1a_str(s), name_eq, names, s, &idx);
 *	if (r < 0)
 *		return r;		// -ENOMEM, the map unchanged
 *	if (r == 0)
 *		names[n++] = s;		// added: idx == n was stored
 *	// else r == 1: found, idx is the existing entry's index
 *	...
 *	hashmap__free(&map);
 *
 * For a hot loop, the same probe in the caller's own code (the compiler
 * then sees the equality test):
 *
 *	struct hashmap_probe p;
 *	uint32_t i;
 *
 *	hashmap__probe_init(&map, hash, &p);
 *	while ((i = hashmap__probe_next(&map, &p)) != HASHMAP_NONE)
 *		if (ents[i].key == key)
 *			return &ents[i];
 *	// absent: after hashmap__reserve(&map, 1) BEFORE probe_init,
 *	// hashmap__probe_put(&map, &p, new_index) inserts it where the probe
 *	// ended, in the same pass.
 *
 * HASH is any 64-bit value that equal keys share: the key itself for an
 * integer key (the map mixes it), hash_fnv1a() of its bytes otherwise.  A
 * bad hash (all keys alike) is slow, never wrong.  Entries are removed
 * with hashmap__probe_del (a tombstone; reserve drops them when it
 * rebuilds).  Load stays at most one half, tombstones included.  The
 * caller's array and the map move together: an index stored is never
 * changed by the map.  Not thread-safe; a map is owned by one user.
 */
#ifndef FRUGAL_HASHMAP_H
#define FRUGAL_HASHMAP_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct hashmap_slot {
	uint32_t hash;		/* hashmap__mix() of the key's hash */
	uint32_t ref;		/* 0 empty, HASHMAP_DELETED, else index + 1 */
};

struct hashmap {
	struct hashmap_slot *slots;
	size_t cap;		/* slots in use: 0 or a power of two */
	size_t alloc;		/* slots allocated, at least cap (hashmap__reset) */
	size_t used;		/* slots holding an index */
	size_t deleted;		/* tombstones */
};

#define HASHMAP_INIT		{ NULL, 0, 0, 0, 0 }
#define HASHMAP_NONE		UINT32_MAX	/* probe_next: no more candidates */
#define HASHMAP_DELETED		UINT32_MAX
#define HASHMAP_MAX_INDEX	(UINT32_MAX - 2)	/* the largest index stored */

/* A probe sequence for one key; on the caller's stack. */
struct hashmap_probe {
	size_t pos;		/* the slot looked at last */
	size_t step;
	size_t hole;		/* where an insert goes: first tombstone or the empty end */
	uint32_t hash;
};

/*
 * 64 bits to the 32 a slot keeps: folded, then multiplied by 2^64/phi and
 * the high half taken, so integer keys that differ only in a few bits
 * (DIE offsets 8 apart, sequence numbers) land far apart.
 */
static inline uint32_t hashmap__mix(uint64_t h)
{
	h ^= h >> 31;
	return (uint32_t)((h * 0x9E3779B97F4A7C15ull) >> 32);
}

static inline void hashmap__probe_init(const struct hashmap *m, uint64_t hash,
				       struct hashmap_probe *p)
{
	(void)m;
	p->hash = hashmap__mix(hash);
	p->step = 0;
	p->pos = SIZE_MAX;
	p->hole = SIZE_MAX;
}

/*
 * The next stored index whose cached hash is the key's, or HASHMAP_NONE
 * once an empty slot ends the sequence (the key is absent).  The caller
 * tests each index returned for equality.
 */
static inline uint32_t hashmap__probe_next(const struct hashmap *m, struct hashmap_probe *p)
{
	const struct hashmap_slot *s;

	if (!m->cap)
		return HASHMAP_NONE;
	for (;;) {
		p->pos = (p->hash + p->step++) & (m->cap - 1);
		s = &m->slots[p->pos];
		if (s->ref == 0) {
			if (p->hole == SIZE_MAX)
				p->hole = p->pos;
			return HASHMAP_NONE;
		}
		if (s->ref == HASHMAP_DELETED) {
			if (p->hole == SIZE_MAX)
				p->hole = p->pos;
			continue;
		}
		if (s->hash == p->hash)
			return s->ref - 1;
	}
}

/*
 * Store IDX for the key probed, once probe_next returned HASHMAP_NONE.
 * The map must have had room (hashmap__reserve) before probe_init, and
 * must not have changed since.
 */
static inline void hashmap__probe_put(struct hashmap *m, const struct hashmap_probe *p, uint32_t idx)
{
	struct hashmap_slot *s = &m->slots[p->hole];

	if (s->ref == HASHMAP_DELETED)
		m->deleted--;
	s->hash = p->hash;
	s->ref = idx + 1;
	m->used++;
}

/* Remove the index probe_next returned last. */
static inline void hashmap__probe_del(struct hashmap *m, const struct hashmap_probe *p)
{
	m->slots[p->pos].ref = HASHMAP_DELETED;
	m->used--;
	m->deleted++;
}

/*
 * Room for MORE insertions without growing: the slots double (or are
 * rebuilt at the same size when tombstones fill them) as needed.  0, or
 * -ENOMEM when memory is short or the count would pass HASHMAP_MAX_INDEX;
 * the map is then unchanged.
 */
int hashmap__reserve_to(struct hashmap *m, size_t more);

static inline int hashmap__reserve(struct hashmap *m, size_t more)
{
	size_t need = m->used + m->deleted + more;

	return need >= m->used && need <= m->cap / 2 ? 0 : hashmap__reserve_to(m, more);
}

/* Every index removed; the slots are kept for reuse. */
void hashmap__clear(struct hashmap *m);

/*
 * Every index removed, and the map sized for N entries: the smallest
 * power of two that holds them at half load, within the slots already
 * allocated when they are enough.  For a table rebuilt per unit of work
 * (the encoder's per-CU index): a small unit after a large one neither
 * allocates nor clears, nor probes, more than it needs.  0 or -ENOMEM
 * (the map is then empty, its slots as they were).
 */
int hashmap__reset(struct hashmap *m, size_t n);

/* The slots freed; M is empty again (HASHMAP_INIT).  NULL-safe. */
void hashmap__free(struct hashmap *m);

/* Does the caller's entry IDX hold KEY?  CTX is the caller's (its array). */
typedef bool hashmap_eq_fn(void *ctx, uint32_t idx, const void *key);

/* KEY's index into *IDX: 0, or -ENOENT. */
static inline int hashmap__find(const struct hashmap *m, uint64_t hash, hashmap_eq_fn *eq,
				void *ctx, const void *key, uint32_t *idx)
{
	struct hashmap_probe p;
	uint32_t i;

	hashmap__probe_init(m, hash, &p);
	while ((i = hashmap__probe_next(m, &p)) != HASHMAP_NONE)
		if (eq(ctx, i, key)) {
			*idx = i;
			return 0;
		}
	return -ENOENT;
}

/*
 * Lookup-or-insert in one probe sequence.  *IDX holds the index a new
 * entry would get: 1 when KEY was found (*IDX is then its index), 0 when
 * *IDX was stored for it (the caller fills its entry), -ENOMEM (nothing
 * stored).  -EOVERFLOW when *IDX is over HASHMAP_MAX_INDEX.
 */
static inline int hashmap__find_or_add(struct hashmap *m, uint64_t hash, hashmap_eq_fn *eq,
				       void *ctx, const void *key, uint32_t *idx)
{
	struct hashmap_probe p;
	uint32_t i;
	int err;

	if (*idx > HASHMAP_MAX_INDEX)
		return -EOVERFLOW;
	err = hashmap__reserve(m, 1);
	if (err)
		return err;
	hashmap__probe_init(m, hash, &p);
	while ((i = hashmap__probe_next(m, &p)) != HASHMAP_NONE)
		if (eq(ctx, i, key)) {
			*idx = i;
			return 1;
		}
	hashmap__probe_put(m, &p, *idx);
	return 0;
}

/* Store IDX under HASH with no equality test (the key is known new). */
static inline int hashmap__add(struct hashmap *m, uint64_t hash, uint32_t idx)
{
	struct hashmap_probe p;
	int err;

	if (idx > HASHMAP_MAX_INDEX)
		return -EOVERFLOW;
	err = hashmap__reserve(m, 1);
	if (err)
		return err;
	hashmap__probe_init(m, hash, &p);
	while (hashmap__probe_next(m, &p) != HASHMAP_NONE)
		;
	hashmap__probe_put(m, &p, idx);
	return 0;
}

#endif
