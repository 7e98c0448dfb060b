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
 *	struct idxmap map = IDXMAP_INIT;
 *	uint32_t idx = n;	// the index a new entry would get
 *	int r;
 *
 *	if (array__grow(&names, &cap, n + 1, sizeof(*names), 64))
 *		return -ENOMEM;
 *	r = idxmap__find_or_add(&map, hash_fnv1a_str(s), name_eq, names, s, &idx);
 *	if (r < 0)
 *		return r;		// -ENOMEM, the map unchanged
 *	if (r == 0)
 *		names[n++] = s;		// added: idx == n was stored
 *	// else r == 1: found, idx is the existing entry's index
 *	...
 *	idxmap__free(&map);
 *
 * For a hot loop, the same probe in the caller's own code (the compiler
 * then sees the equality test), through the one iteration macro:
 *
 *	struct idxmap_probe p;
 *	uint32_t i;
 *
 *	idxmap__for_each_candidate(&map, hash, &p, i)
 *		if (ents[i].key == key)
 *			return &ents[i];
 *	// absent (i == IDXMAP_NONE): after idxmap__reserve(&map, 1) BEFORE
 *	// the loop, idxmap__probe_put(&map, &p, new_index) inserts it where
 *	// the probe ended, in the same pass.  A loop left by break has I
 *	// the entry found, and idxmap__probe_del(&map, &p) removes it.
 *
 * HASH is any 64-bit value that equal keys share: the key itself for an
 * integer key (the map mixes it), hash_fnv1a() of its bytes otherwise.  A
 * bad hash (all keys alike) is slow, never wrong.  Entries are removed
 * with idxmap__probe_del (a tombstone; reserve drops them when it
 * rebuilds).  Load stays at most one half, tombstones included.  The
 * caller's array and the map move together: an index stored is never
 * changed by the map.  Not thread-safe; a map is owned by one user.
 */
/*
 * (Not "hashmap": libbpf's static archive exports its internal
 * hashmap__*() functions, and make static links both.)
 */
#ifndef FRUGAL_IDXMAP_H
#define FRUGAL_IDXMAP_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct idxmap_slot {
	uint32_t hash;		/* idxmap__mix() of the key's hash */
	uint32_t ref;		/* 0 empty, IDXMAP_DELETED, else index + 1 */
};

struct idxmap {
	struct idxmap_slot *slots;
	size_t cap;		/* slots in use: 0 or a power of two */
	size_t alloc;		/* slots allocated, at least cap (idxmap__reset) */
	size_t used;		/* slots holding an index */
	size_t deleted;		/* tombstones */
};

#define IDXMAP_INIT		{ NULL, 0, 0, 0, 0 }
#define IDXMAP_NONE		UINT32_MAX	/* probe_next: no more candidates */
#define IDXMAP_DELETED		UINT32_MAX
#define IDXMAP_MAX_INDEX	(UINT32_MAX - 2)	/* the largest index stored */

/* A probe sequence for one key; on the caller's stack. */
struct idxmap_probe {
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
static inline uint32_t idxmap__mix(uint64_t h)
{
	h ^= h >> 31;
	return (uint32_t)((h * 0x9E3779B97F4A7C15ull) >> 32);
}

static inline void idxmap__probe_init(const struct idxmap *m, uint64_t hash,
				       struct idxmap_probe *p)
{
	(void)m;
	p->hash = idxmap__mix(hash);
	p->step = 0;
	p->pos = SIZE_MAX;
	p->hole = SIZE_MAX;
}

/*
 * The next stored index whose cached hash is the key's, or IDXMAP_NONE
 * once an empty slot ends the sequence (the key is absent).  The caller
 * tests each index returned for equality.
 */
static inline uint32_t idxmap__probe_next(const struct idxmap *m, struct idxmap_probe *p)
{
	const struct idxmap_slot *s;

	if (!m->cap)
		return IDXMAP_NONE;
	for (;;) {
		p->pos = (p->hash + p->step++) & (m->cap - 1);
		s = &m->slots[p->pos];
		if (s->ref == 0) {
			if (p->hole == SIZE_MAX)
				p->hole = p->pos;
			return IDXMAP_NONE;
		}
		if (s->ref == IDXMAP_DELETED) {
			if (p->hole == SIZE_MAX)
				p->hole = p->pos;
			continue;
		}
		if (s->hash == p->hash)
			return s->ref - 1;
	}
}

/*
 * For each stored index I whose cached hash is HASH's, in probe order:
 * the candidates, of which the caller tests each for equality.  P (a
 * struct idxmap_probe *) is the probe, I a uint32_t lvalue; once the
 * candidates run out, I is IDXMAP_NONE and P says where HASH's key would
 * go.  Write no other probe loop: this one stops at the empty slot and
 * passes the tombstones.
 */
#define idxmap__for_each_candidate(m, hash, p, i)				\
	for (idxmap__probe_init((m), (hash), (p));				\
	     ((i) = idxmap__probe_next((m), (p))) != IDXMAP_NONE;)

/*
 * Store IDX for the key probed, once probe_next returned IDXMAP_NONE.
 * The map must have had room (idxmap__reserve) before probe_init, and
 * must not have changed since.
 */
static inline void idxmap__probe_put(struct idxmap *m, const struct idxmap_probe *p, uint32_t idx)
{
	struct idxmap_slot *s = &m->slots[p->hole];

	if (s->ref == IDXMAP_DELETED)
		m->deleted--;
	s->hash = p->hash;
	s->ref = idx + 1;
	m->used++;
}

/* Remove the index probe_next returned last. */
static inline void idxmap__probe_del(struct idxmap *m, const struct idxmap_probe *p)
{
	m->slots[p->pos].ref = IDXMAP_DELETED;
	m->used--;
	m->deleted++;
}

/*
 * Room for MORE insertions without growing: the slots double (or are
 * rebuilt at the same size when tombstones fill them) as needed.  0, or
 * -ENOMEM when memory is short or the count would pass IDXMAP_MAX_INDEX;
 * the map is then unchanged.
 */
int idxmap__reserve_to(struct idxmap *m, size_t more);

static inline int idxmap__reserve(struct idxmap *m, size_t more)
{
	size_t need = m->used + m->deleted + more;

	return need >= m->used && need <= m->cap / 2 ? 0 : idxmap__reserve_to(m, more);
}

/* Every index removed; the slots are kept for reuse. */
void idxmap__clear(struct idxmap *m);

/*
 * Every index removed, and the map sized for N entries: the smallest
 * power of two that holds them at half load, within the slots already
 * allocated when they are enough.  For a table rebuilt per unit of work
 * (the encoder's per-CU index): a small unit after a large one neither
 * allocates nor clears, nor probes, more than it needs.  0 or -ENOMEM
 * (the map is then empty, its slots as they were).
 */
int idxmap__reset(struct idxmap *m, size_t n);

/* The slots freed; M is empty again (IDXMAP_INIT).  NULL-safe. */
void idxmap__free(struct idxmap *m);

/* Does the caller's entry IDX hold KEY?  CTX is the caller's (its array). */
typedef bool idxmap_eq_fn(void *ctx, uint32_t idx, const void *key);

/* KEY's index into *IDX: 0, or -ENOENT. */
static inline int idxmap__find(const struct idxmap *m, uint64_t hash, idxmap_eq_fn *eq,
				void *ctx, const void *key, uint32_t *idx)
{
	struct idxmap_probe p;
	uint32_t i;

	idxmap__for_each_candidate(m, hash, &p, i)
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
 * stored).  -EOVERFLOW when *IDX is over IDXMAP_MAX_INDEX.
 */
static inline int idxmap__find_or_add(struct idxmap *m, uint64_t hash, idxmap_eq_fn *eq,
				       void *ctx, const void *key, uint32_t *idx)
{
	struct idxmap_probe p;
	uint32_t i;
	int err;

	if (*idx > IDXMAP_MAX_INDEX)
		return -EOVERFLOW;
	err = idxmap__reserve(m, 1);
	if (err)
		return err;
	idxmap__for_each_candidate(m, hash, &p, i)
		if (eq(ctx, i, key)) {
			*idx = i;
			return 1;
		}
	idxmap__probe_put(m, &p, *idx);
	return 0;
}

/* Store IDX under HASH with no equality test (the key is known new). */
static inline int idxmap__add(struct idxmap *m, uint64_t hash, uint32_t idx)
{
	struct idxmap_probe p;
	uint32_t i;
	int err;

	if (idx > IDXMAP_MAX_INDEX)
		return -EOVERFLOW;
	err = idxmap__reserve(m, 1);
	if (err)
		return err;
	idxmap__for_each_candidate(m, hash, &p, i)
		;
	idxmap__probe_put(m, &p, idx);
	return 0;
}

#endif
