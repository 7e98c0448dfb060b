// SPDX-License-Identifier: GPL-2.0
/*
 * lib/idxmap: lookups, growth, forced collisions, tombstones, the bounds,
 * and a long random sequence of operations checked against a plain array.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/hash.h"
#include "lib/idxmap.h"
#include "tests/test.h"

static bool u64_eq(void *ctx, uint32_t idx, const void *key)
{
	return ((uint64_t *)ctx)[idx] == *(const uint64_t *)key;
}

static bool str_eq(void *ctx, uint32_t idx, const void *key)
{
	return !strcmp(((char **)ctx)[idx], key);
}

/* Map's invariants: load at most a half, counts within the slots. */
static bool sane(const struct idxmap *m)
{
	size_t i, used = 0, del = 0;

	for (i = 0; i < m->cap; i++) {
		used += m->slots[i].ref && m->slots[i].ref != IDXMAP_DELETED;
		del += m->slots[i].ref == IDXMAP_DELETED;
	}
	return used == m->used && del == m->deleted && (m->cap & (m->cap - 1)) == 0 &&
	       (!m->cap || (used + del) * 2 <= m->cap);
}

static void test_insert_find_grow(void)
{
	enum { N = 100000 };
	uint64_t *keys = malloc(N * sizeof(*keys)), k;
	struct idxmap m = IDXMAP_INIT;
	uint32_t idx;
	size_t i, wrong = 0;

	TEST_BEGIN("idxmap-insert-find-grow");
	CHECK_EQ(idxmap__find(&m, 1, u64_eq, keys, &(uint64_t){ 1 }, &idx), -ENOENT);
	for (i = 0; i < N; i++) {
		keys[i] = i * 8 + 0x1000;	/* DIE-offset-like: close, aligned */
		idx = (uint32_t)i;
		wrong += idxmap__find_or_add(&m, keys[i], u64_eq, keys, &keys[i], &idx) != 0 ||
			 idx != i;
	}
	CHECK_EQ(wrong, 0);
	CHECK_EQ(m.used, N);
	CHECK(m.cap >= 2 * N && m.cap <= 4 * N, "cap %zu for %d keys", m.cap, N);
	CHECK(sane(&m), "invariants");
	for (i = 0; i < N; i++) {
		idx = UINT32_MAX;
		wrong += idxmap__find(&m, keys[i], u64_eq, keys, &keys[i], &idx) != 0 || idx != i;
		idx = N;	/* a second add finds the first */
		wrong += idxmap__find_or_add(&m, keys[i], u64_eq, keys, &keys[i], &idx) != 1 ||
			 idx != i;
		k = keys[i] + 1;
		wrong += idxmap__find(&m, k, u64_eq, keys, &k, &idx) != -ENOENT;
	}
	CHECK_EQ(wrong, 0);
	CHECK_EQ(m.used, N);
	idxmap__clear(&m);
	CHECK_EQ(m.used, 0);
	CHECK(m.cap >= 2 * N, "clear keeps the slots");
	CHECK_EQ(idxmap__find(&m, keys[5], u64_eq, keys, &keys[5], &idx), -ENOENT);
	idxmap__free(&m);
	CHECK(!m.slots && !m.cap, "free empties the map");
	idxmap__free(NULL);
	free(keys);
	TEST_END();
}

/* Every key hashes alike: the equality test alone tells them apart. */
static void test_collisions(void)
{
	enum { N = 3000 };
	char **names = calloc(N, sizeof(*names)), buf[32];
	struct idxmap m = IDXMAP_INIT;
	size_t i, wrong = 0;
	uint32_t idx;

	TEST_BEGIN("idxmap-collisions-bad-hash");
	for (i = 0; i < N; i++) {
		snprintf(buf, sizeof(buf), "name%zu", i);
		names[i] = strdup(buf);
		idx = (uint32_t)i;
		wrong += idxmap__find_or_add(&m, 42, str_eq, names, names[i], &idx) != 0;
	}
	CHECK_EQ(wrong, 0);
	for (i = 0; i < N; i++) {
		snprintf(buf, sizeof(buf), "name%zu", i);
		idx = N;
		wrong += idxmap__find_or_add(&m, 42, str_eq, names, buf, &idx) != 1 || idx != i;
	}
	CHECK_EQ(wrong, 0);
	CHECK_EQ(idxmap__find(&m, 42, str_eq, names, "name", &idx), -ENOENT);
	/* the same strings under their real hash: a second, separate map */
	idxmap__free(&m);
	for (i = 0; i < N; i++)
		wrong += idxmap__add(&m, hash_fnv1a_str(names[i]), (uint32_t)i) != 0;
	for (i = 0; i < N; i++)
		wrong += idxmap__find(&m, hash_fnv1a_str(names[i]), str_eq, names, names[i], &idx) ||
			 idx != i;
	CHECK_EQ(wrong, 0);
	CHECK(sane(&m), "invariants");
	idxmap__free(&m);
	for (i = 0; i < N; i++)
		free(names[i]);
	free(names);
	TEST_END();
}

/* The probe API as a hot loop uses it, removal included. */
static void test_probe_del(void)
{
	uint64_t keys[256];
	struct idxmap m = IDXMAP_INIT;
	struct idxmap_probe p;
	size_t round, i, wrong = 0;
	uint32_t got;

	TEST_BEGIN("idxmap-probe-put-del");
	for (i = 0; i < 256; i++)
		keys[i] = i;
	/* Add and remove many times: tombstones must not grow the map. */
	for (round = 0; round < 200; round++) {
		for (i = 0; i < 20; i++) {
			CHECK_EQ(idxmap__reserve(&m, 1), 0);
			idxmap__for_each_candidate(&m, keys[i], &p, got)
				wrong += keys[got] == keys[i];	/* not yet there */
			idxmap__probe_put(&m, &p, (uint32_t)i);
		}
		for (i = 0; i < 20; i++) {
			idxmap__for_each_candidate(&m, keys[i], &p, got)
				if (got == i)
					break;
			wrong += got != i;
			if (got == i)
				idxmap__probe_del(&m, &p);
		}
		wrong += !sane(&m) || m.used != 0;
	}
	CHECK_EQ(wrong, 0);
	CHECK(m.cap <= 128, "cap %zu after 4000 adds of 20 live keys", m.cap);
	idxmap__free(&m);
	TEST_END();
}

static void test_bounds(void)
{
	struct idxmap m = IDXMAP_INIT;
	uint64_t key = 7;
	uint32_t idx = IDXMAP_MAX_INDEX + 1;

	TEST_BEGIN("idxmap-bounds");
	CHECK_EQ(idxmap__find_or_add(&m, key, u64_eq, &key, &key, &idx), -EOVERFLOW);
	CHECK_EQ(idxmap__add(&m, key, IDXMAP_MAX_INDEX + 1), -EOVERFLOW);
	CHECK_EQ(idxmap__reserve(&m, SIZE_MAX), -ENOMEM);
	CHECK_EQ(idxmap__reserve(&m, (size_t)UINT32_MAX + 1), -ENOMEM);
	CHECK(!m.cap && !m.used, "a refused reserve leaves the map as it was");
	CHECK_EQ(idxmap__add(&m, key, 0), 0);
	CHECK_EQ(idxmap__reserve(&m, SIZE_MAX - 1), -ENOMEM);
	CHECK_EQ(idxmap__find(&m, key, u64_eq, &key, &key, &idx), 0);
	CHECK_EQ(idx, 0);
	idxmap__free(&m);
	TEST_END();
}

/* A table rebuilt per unit of work: sized for each, slots reused. */
static void test_reset(void)
{
	uint64_t keys[5000];
	struct idxmap m = IDXMAP_INIT;
	size_t i, wrong = 0;
	uint32_t idx;

	TEST_BEGIN("idxmap-reset");
	for (i = 0; i < 5000; i++)
		keys[i] = i * 16;
	CHECK_EQ(idxmap__reset(&m, 5000), 0);
	CHECK_EQ(m.cap, 16384);
	for (i = 0; i < 5000; i++)
		wrong += idxmap__add(&m, keys[i], (uint32_t)i) != 0;
	CHECK_EQ(m.cap, 16384);	/* no growth: reset sized it */
	CHECK_EQ(idxmap__reset(&m, 10), 0);
	CHECK(m.cap == 64 && m.alloc == 16384 && !m.used, "cap %zu alloc %zu", m.cap, m.alloc);
	for (i = 0; i < 10; i++)
		wrong += idxmap__add(&m, keys[i], (uint32_t)i) != 0;
	for (i = 0; i < 5000; i++)
		wrong += (idxmap__find(&m, keys[i], u64_eq, keys, &keys[i], &idx) == 0) != (i < 10);
	for (i = 10; i < 100; i++)	/* grows past the reset size */
		wrong += idxmap__add(&m, keys[i], (uint32_t)i) != 0;
	for (i = 0; i < 100; i++)
		wrong += idxmap__find(&m, keys[i], u64_eq, keys, &keys[i], &idx) || idx != i;
	CHECK_EQ(wrong, 0);
	CHECK(sane(&m), "invariants");
	CHECK_EQ(idxmap__reset(&m, 40000), 0);
	CHECK(m.cap == 131072 && m.alloc == m.cap, "cap %zu alloc %zu", m.cap, m.alloc);
	CHECK_EQ(idxmap__reset(&m, SIZE_MAX), -ENOMEM);
	CHECK(!m.used && m.cap, "a refused reset leaves an empty map");
	idxmap__free(&m);
	TEST_END();
}

static uint64_t rng_state = 0x1234567;

static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/*
 * Random adds, finds and removals over 2000 possible keys, a quarter of
 * them under a deliberately bad hash, against an array that says which
 * keys are in.  Removed entries leave holes in the caller's array, as
 * ucollect's pending halves do.
 */
static void test_model(void)
{
	enum { KEYS = 2000, OPS = 400000 };
	uint64_t *ents = calloc(KEYS, sizeof(*ents));
	uint32_t *where = calloc(KEYS, sizeof(*where)), idx;
	bool *in = calloc(KEYS, 1);
	struct idxmap m = IDXMAP_INIT;
	struct idxmap_probe p;
	size_t op, live = 0, wrong = 0, next = 0;
	uint32_t *freelist = calloc(KEYS, sizeof(*freelist)), nfree = 0;

	TEST_BEGIN("idxmap-random-vs-model");
	for (op = 0; op < OPS; op++) {
		uint64_t r = rng(), k = r % KEYS, h = k % 4 ? k : k % 64;
		int res;

		switch ((r >> 32) % 4) {
		case 0:
		case 1:
			idx = nfree ? freelist[nfree - 1] : (uint32_t)next;
			res = idxmap__find_or_add(&m, h, u64_eq, ents, &k, &idx);
			if (res == 0) {
				wrong += in[k];
				if (nfree)
					nfree--;
				else
					next++;
				ents[idx] = k;
				where[k] = idx;
				in[k] = true;
				live++;
			} else {
				wrong += res != 1 || !in[k] || idx != where[k];
			}
			break;
		case 2:
			res = idxmap__find(&m, h, u64_eq, ents, &k, &idx);
			wrong += in[k] ? res || idx != where[k] : res != -ENOENT;
			break;
		default:
			idxmap__for_each_candidate(&m, h, &p, idx)
				if (ents[idx] == k)
					break;
			wrong += (idx != IDXMAP_NONE) != in[k];
			if (idx != IDXMAP_NONE) {
				idxmap__probe_del(&m, &p);
				ents[idx] = UINT64_MAX;
				freelist[nfree++] = idx;
				in[k] = false;
				live--;
			}
			break;
		}
		if (op % 997 == 0)
			wrong += !sane(&m) || m.used != live;
		if (op == OPS / 2) {
			idxmap__clear(&m);
			memset(in, 0, KEYS);
			live = next = nfree = 0;
		}
	}
	CHECK_EQ(wrong, 0);
	CHECK_EQ(m.used, live);
	CHECK(sane(&m), "invariants");
	idxmap__free(&m);
	free(ents);
	free(where);
	free(in);
	free(freelist);
	TEST_END();
}

int main(void)
{
	test_insert_find_grow();
	test_collisions();
	test_probe_del();
	test_bounds();
	test_reset();
	test_model();
	TEST_EXIT();
}
