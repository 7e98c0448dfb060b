/* SPDX-License-Identifier: GPL-2.0 */
/*
 * -U's collector (ucollect.c, the join of its records in ujoin.c): the
 * futex programs beside the kernel's, and their records made rows.  Owned
 * by the collector (collect.c), which opens, reads and destroys it.
 */
#ifndef FRUGAL_LOCK_UCOLLECT_H
#define FRUGAL_LOCK_UCOLLECT_H

#include <stdint.h>

struct lock_accounting;
struct lock_collect_cfg;
struct lock_table;
struct lock_ustacks;
struct lock_ucollect;
struct bpf_map;

/*
 * The futex programs loaded beside the kernel's, sharing TARGETS, CPUS and
 * CGROUPS (lock.bpf.c's maps), attached; NULL with errno set.
 */
struct lock_ucollect *lock_ucollect__open(const struct lock_collect_cfg *cfg,
					  struct bpf_map *targets, struct bpf_map *cpus,
					  struct bpf_map *cgroups, uint32_t off_task_mm);
int lock_ucollect__fd(const struct lock_ucollect *u);	/* to poll */
/* Merge what the buffers hold into T.  0 or -errno. */
int lock_ucollect__consume(struct lock_ucollect *u, struct lock_table *t);
/* Detach (no run is in flight once it returns), drain into T, read the counters. */
int lock_ucollect__finish(struct lock_ucollect *u, struct lock_table *t,
			  struct lock_accounting *a);
/* The counters since the start into A's -U fields (the collector takes -I's
 * differences, lock_accounting__delta). */
int lock_ucollect__read(struct lock_ucollect *u, struct lock_table *t,
			struct lock_accounting *a);
const struct lock_ustacks *lock_ucollect__stacks(const struct lock_ucollect *u);
void lock_ucollect__destroy(struct lock_ucollect *u);

#endif
