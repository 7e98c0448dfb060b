/* SPDX-License-Identifier: GPL-2.0 */
/*
 * frugal lock's user-space locks stage (lock/user/, -U), its contract: the
 * futex programs' collector (ucollect.c, its join in ujoin.c), opened by
 * the kernel collector on its maps, and the user stacks it unwinds and
 * names (ustack.c), which the report reads.  ucollect_int.h, ucfi_int.h
 * and ulibc_int.h are this folder's own.
 */
#ifndef FRUGAL_LOCK_USER_H
#define FRUGAL_LOCK_USER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lock/lock.h"

struct lock_ustacks;

/*
 * ---- the collector (ucollect.c, the join of its records in ujoin.c): the
 * futex programs beside the kernel's, and their records made rows.  Owned
 * by the collector (collect.c), which opens, reads and destroys it.
 */
struct lock_accounting;
struct lock_collect_cfg;
struct lock_table;
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

/*
 * ---- the user stacks (ustack.c): unwound from a copy of the stack the futex
 * programs took, and named through libdwfl.  A row's user frames are
 * tokens of a struct lock_ustacks, which owns their names: the report
 * reads them (lock_ustacks__frame) until it is freed.
 */
/* A user frame in a row's stack: a token naming an entry of lock_ustacks
 * (never a kernel or user address: those are canonical). */
#define LOCK_UFRAME_TAG		UINT64_C(0x00f0000000000000)
#define LOCK_UFRAME_TAG_MASK	UINT64_C(0xfff0000000000000)
#define LOCK_UFRAME_MAX		(1U << 24)


/* Debug files are searched for in DEBUG_DIR (directories joined by ':', ""
 * for none) instead of /usr/lib/debug, if not NULL. */
struct lock_ustacks *lock_ustacks__new(const char *debug_dir, bool check);
void lock_ustacks__free(struct lock_ustacks *u);
/*
 * R's user stack into up to MAX frame tokens, innermost first, and the
 * primitive its locking frames name (LOCK_U_NR: none); *REACH: the bytes
 * of the copy the unwinder read, *OVERRUN: it needed more than was copied.  The number of
 * frames (at least 1 when R has a pc), or -ENOMEM.
 */
int lock_ustacks__unwind(struct lock_ustacks *u, const struct lock_urec_begin *r,
			 uint64_t *frames, unsigned int max, enum lock_utype *type,
			 uint32_t *reach, bool *overrun);
/* Process TGID's mappings read now (it may exit soon).  0 or -ENOMEM. */
int lock_ustacks__proc(struct lock_ustacks *u, uint32_t tgid, uint64_t mm);
/* The data symbol at R's futex in its process into BUF ("" if none). */
void lock_ustacks__data_name(struct lock_ustacks *u, const struct lock_urec_begin *r,
			     char *buf, size_t size);
/* A token's "func+0xoff (binary)", its function, and whether it is the C
 * library's locking code.  False if TOK is not a token of U. */
bool lock_ustacks__frame(const struct lock_ustacks *u, uint64_t tok, const char **name,
			 const char **func, bool *lockfn);
/* Stacks walked by our memoized CFI rules, handed to libdwfl, and (with
 * CHECK) walked differently from libdwfl's unwind of the same copy. */
void lock_ustacks__walk_stats(const struct lock_ustacks *u, uint64_t *walked,
			      uint64_t *by_dwfl, uint64_t *mismatches);
/* Stacks unwound, their frames, and those of one frame or none. */
void lock_ustacks__stats(const struct lock_ustacks *u, uint64_t *stacks, uint64_t *frames,
			 uint64_t *shallow);

#endif
