// SPDX-License-Identifier: GPL-2.0
/*
 * The user-space row table: rows read from the kernel's table and events
 * merged from the overflow ring end up here, keyed the same way the kernel
 * keys them: the rows in one array, in the order made, found by key through
 * lib/idxmap.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/array.h"
#include "lib/idxmap.h"
#include "lock/rows/rows.h"

struct lock_table {
	struct lock_row *rows;		/* in the order made */
	size_t len, cap;
	struct idxmap map;		/* key -> index into rows */
	unsigned int max_stack;
	uint64_t sum_count;
	size_t nonempty;		/* rows with a wait */
};

struct lock_table *lock_table__new(unsigned int max_stack)
{
	struct lock_table *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->max_stack = max_stack;
	return t;
}

void lock_table__free(struct lock_table *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; i < t->len; i++) {
		free(t->rows[i].stack);
		free(t->rows[i].obj);
	}
	free(t->rows);
	idxmap__free(&t->map);
	free(t);
}

/* KEY's row, or NULL with P where it would go.  The key is its own hash
 * (a stack hash, a tid, an address: the map mixes it). */
static struct lock_row *find(const struct lock_table *t, uint64_t key, struct idxmap_probe *p)
{
	uint32_t i;

	idxmap__for_each_candidate(&t->map, key, p, i)
		if (t->rows[i].key == key)
			return &t->rows[i];
	return NULL;
}

static void merge_stat(struct lock_stat *dst, const struct lock_stat *src)
{
	dst->total_ns += src->total_ns;
	dst->count += src->count;
	if (src->max_ns > dst->max_ns)
		dst->max_ns = src->max_ns;
	if (src->min_ns < dst->min_ns)
		dst->min_ns = src->min_ns;
}

/* Give R its stack or comm from TAIL, unless it has one. */
static int set_tail(struct lock_table *t, struct lock_row *r, const void *tail,
		    size_t tail_size)
{
	if (!tail || r->stack || r->comm[0] || r->off_why || r->obj)
		return 0;
	if (tail_size >= t->max_stack * sizeof(uint64_t) && t->max_stack) {
		size_t at = t->max_stack * sizeof(uint64_t);

		/* -o -v: the owner's comm follows its stack. */
		if (tail_size >= at + LOCK_COMM_LEN) {
			memcpy(r->comm, (const char *)tail + at, LOCK_COMM_LEN);
			r->comm[LOCK_COMM_LEN - 1] = '\0';
		}
		r->stack = malloc(t->max_stack * sizeof(uint64_t));
		if (!r->stack)
			return -ENOMEM;
		memcpy(r->stack, tail, t->max_stack * sizeof(uint64_t));
	} else if (tail_size == sizeof(struct lock_slab_tail)) {
		const struct lock_slab_tail *st = tail;

		memcpy(r->comm, st->name, sizeof(r->comm));
		r->comm[sizeof(r->comm) - 1] = '\0';
		r->obj_off = st->off;
		r->off_why = st->why < LOCK_OFF_NR ? st->why : LOCK_OFF_NONE;
		if (st->obj.kind != LOCK_OBJ_NONE) {
			r->obj = malloc(sizeof(*r->obj));
			if (!r->obj)
				return -ENOMEM;
			*r->obj = st->obj;
		}
	} else if (tail_size >= LOCK_COMM_LEN) {
		memcpy(r->comm, tail, tail_size < sizeof(r->comm) ? tail_size : sizeof(r->comm));
		r->comm[sizeof(r->comm) - 1] = '\0';
	}
	return 0;
}

/* The row of KEY, made empty (count 0) if it is new; NULL on -ENOMEM. */
static struct lock_row *row_get(struct lock_table *t, uint64_t key, uint32_t flags)
{
	struct idxmap_probe p;
	struct lock_row *r;

	if (idxmap__reserve(&t->map, 1) ||
	    array__grow(&t->rows, &t->cap, t->len + 1, sizeof(*t->rows), 64))
		return NULL;
	r = find(t, key, &p);
	if (r)
		return r;
	r = &t->rows[t->len];
	memset(r, 0, sizeof(*r));
	r->key = key;
	r->st.min_ns = UINT64_MAX;
	r->st.flags = flags;
	idxmap__probe_put(&t->map, &p, t->len++);
	return r;
}

int lock_table__add(struct lock_table *t, uint64_t key, const struct lock_stat *st,
		    const void *tail, size_t tail_size)
{
	struct lock_row *r = row_get(t, key, st->flags);

	if (!r)
		return -ENOMEM;
	/* A row defined but still empty takes the flags of its first wait. */
	if (!r->st.count && st->count) {
		r->st.flags = st->flags;
		t->nonempty++;
	}
	merge_stat(&r->st, st);
	t->sum_count += st->count;
	return set_tail(t, r, tail, tail_size);
}

int lock_table__define(struct lock_table *t, uint64_t key, uint32_t flags,
		       const void *tail, size_t tail_size)
{
	struct lock_row *r = row_get(t, key, flags);

	return r ? set_tail(t, r, tail, tail_size) : -ENOMEM;
}

bool lock_table__has(const struct lock_table *t, uint64_t key)
{
	struct idxmap_probe p;

	return find(t, key, &p) != NULL;
}

/* Rows with at least one wait: a key defined through the ring whose waits
 * never ended is not a row. */
size_t lock_table__len(const struct lock_table *t)
{
	return t->nonempty;
}

uint64_t lock_table__sum_count(const struct lock_table *t)
{
	return t->sum_count;
}

uint64_t lock_row_value(const struct lock_row *r, enum lock_sort key)
{
	switch (key) {
	case LOCK_SORT_CONTENDED:	return r->st.count;
	case LOCK_SORT_WAIT_TOTAL:	return r->st.total_ns;
	case LOCK_SORT_WAIT_MAX:	return r->st.max_ns;
	case LOCK_SORT_WAIT_MIN:	return r->st.min_ns;
	case LOCK_SORT_AVG_WAIT:	return r->st.count ? r->st.total_ns / r->st.count : 0;
	}
	return 0;
}

static enum lock_sort sort_key;

static int cmp_rows(const void *a, const void *b)
{
	const struct lock_row *x = *(const struct lock_row * const *)a;
	const struct lock_row *y = *(const struct lock_row * const *)b;
	uint64_t vx = lock_row_value(x, sort_key), vy = lock_row_value(y, sort_key);

	if (vx != vy)
		return vx < vy ? 1 : -1;
	/* Ties: the more contended first, then by key, so output is stable. */
	if (x->st.count != y->st.count)
		return x->st.count < y->st.count ? 1 : -1;
	return x->key < y->key ? -1 : x->key > y->key;
}

struct lock_row **lock_table__sorted(struct lock_table *t, enum lock_sort key)
{
	struct lock_row **v = malloc((t->len ? t->len : 1) * sizeof(*v));
	size_t i, n = 0;

	if (!v)
		return NULL;
	for (i = 0; i < t->len; i++)
		if (t->rows[i].st.count)
			v[n++] = &t->rows[i];
	sort_key = key;
	qsort(v, n, sizeof(*v), cmp_rows);
	return v;
}
