/* SPDX-License-Identifier: GPL-2.0 */
/*
 * frugal lock's row table (table.c): the rows of a run, merged from the
 * kernel's table and the buffers, sorted for the report.  The table owns
 * its rows and their stacks; lock_table__free() frees them all.
 */
#ifndef FRUGAL_LOCK_TABLE_H
#define FRUGAL_LOCK_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lock/format.h"
#include "lock/lock.h"

/*
 * A user row's key: its user stack's hash (caller mode), or the tid, the
 * futex (tgid in bits 48-61 above its address) or the cgroup id with this
 * bit set, so that it never merges with a kernel row.
 */
#define LOCK_KEY_USER		((uint64_t)1 << 62)
#define LOCK_KEY_UADDR		(((uint64_t)1 << 48) - 1)
struct lock_row {
	uint64_t key;
	struct lock_stat st;
	uint64_t *stack;		/* caller mode: max_stack frames, or NULL */
	char comm[LOCK_SLAB_LEN];	/* task mode: comm; -l: the slab cache's name */
	uint32_t obj_off;		/* -l: the lock's offset in its slab object ... */
	uint32_t off_why;		/* ... if this is LOCK_OFF_OK (enum lock_off_why) */
	struct lock_obj *obj;		/* -l: what holds the lock, or NULL */
};

struct lock_table;

struct lock_table *lock_table__new(unsigned int max_stack);
void lock_table__free(struct lock_table *t);
/* Merge one contention record (a kernel row or a wait from the buffers).  0 or -ENOMEM. */
int lock_table__add(struct lock_table *t, uint64_t key, const struct lock_stat *st,
		    const void *tail, size_t tail_size);
/* A key's definition from the buffers: its TAIL and FLAGS, for a row that has
 * none yet (the row is made, at count 0, if it does not exist).  0 or -ENOMEM. */
int lock_table__define(struct lock_table *t, uint64_t key, uint32_t flags,
		       const void *tail, size_t tail_size);
/* Does the table have a row of KEY, empty or not? */
bool lock_table__has(const struct lock_table *t, uint64_t key);
size_t lock_table__len(const struct lock_table *t);
/* Rows sorted by KEY (descending), stable on the key value; NULL on -ENOMEM. */
struct lock_row **lock_table__sorted(struct lock_table *t, enum lock_sort key);
uint64_t lock_table__sum_count(const struct lock_table *t);
/* R's value for KEY (avg_wait: total / count). */
uint64_t lock_row_value(const struct lock_row *r, enum lock_sort key);

#endif
