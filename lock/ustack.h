/* SPDX-License-Identifier: GPL-2.0 */
/*
 * -U's user stacks (ustack.c): unwound from a copy of the stack the futex
 * programs took, and named through libdwfl.  A row's user frames are
 * tokens of a struct lock_ustacks, which owns their names: the report
 * reads them (lock_ustacks__frame) until it is freed.
 */
#ifndef FRUGAL_LOCK_USTACK_H
#define FRUGAL_LOCK_USTACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lock/lock.h"

/* A user frame in a row's stack: a token naming an entry of lock_ustacks
 * (never a kernel or user address: those are canonical). */
#define LOCK_UFRAME_TAG		UINT64_C(0x00f0000000000000)
#define LOCK_UFRAME_TAG_MASK	UINT64_C(0xfff0000000000000)
#define LOCK_UFRAME_MAX		(1U << 24)

struct lock_ustacks;

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
