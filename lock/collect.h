/* SPDX-License-Identifier: GPL-2.0 */
/*
 * frugal lock's collector (collect.c, with load.c loading and attaching,
 * caps.c probing the kernel): the BPF programs of a run, from open to the
 * final read.  An engine: 0 or a negative errno, NULL with errno set;
 * logs through cli_log, never prints.  lock_collect__destroy() releases
 * everything it opened, -U's futex programs too.
 */
#ifndef FRUGAL_LOCK_COLLECT_H
#define FRUGAL_LOCK_COLLECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>


struct lock_accounting;
struct lock_collect_cfg;
struct lock_table;
struct lock_ustacks;
struct lock_collect;

/* Load, probe and attach the programs CFG asks for; NULL with errno set on
 * failure.  CFG must outlive the collector. */
struct lock_collect *lock_collect__open(const struct lock_collect_cfg *cfg);
/* Which attach path was taken: "tp_btf" or "raw_tp". */
const char *lock_collect__path(const struct lock_collect *c);
/* -o: the holders at release are charged (the kernel has lock:contended_release). */
bool lock_collect__at_release(const struct lock_collect *c);
/* -U: the names of the user frames in the rows; NULL without -U. */
const struct lock_ustacks *lock_collect__ustacks(const struct lock_collect *c);
/*
 * Wait up to TIMEOUT_MS for overflow records or for one of FDS (up to
 * LOCK_POLL_FDS: a wake-up pipe, a terminal) to become readable, and merge
 * what came.  A mask of the FDS readable (bit i for FDS[i]), or -errno.
 */
#define LOCK_POLL_FDS 2
int lock_collect__poll(struct lock_collect *c, struct lock_table *t, int timeout_ms,
		       const int *fds, int nfds);
/*
 * -I: what came since the last read (rows into T, counts into ACCT),
 * while the programs run.  0 or -errno.
 */
int lock_collect__interval(struct lock_collect *c, struct lock_table *t,
			   struct lock_accounting *acct);
/* Stop the programs, drain the buffers, read the kernel table and the counters
 * (with -I: what came since the last interval). */
int lock_collect__finish(struct lock_collect *c, struct lock_table *t,
			 struct lock_accounting *acct);
void lock_collect__destroy(struct lock_collect *c);

#endif
