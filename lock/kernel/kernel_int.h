/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lock/kernel/'s own: the facts of the kernel's BTF the loader asks for
 * (caps.c: attach ids, struct offsets, kfuncs), each asked once and kept,
 * and -l's probe table and offsets (objdesc.c), for load.c.
 */
#ifndef FRUGAL_LOCK_KERNEL_INT_H
#define FRUGAL_LOCK_KERNEL_INT_H

#include <stdbool.h>

#include "lock/kernel/kernel.h"
#include "lock/lock.h"

/* What the loader needs from the kernel's BTF. */
enum lock_fact {
	LOCK_Q_BEGIN, LOCK_Q_END, LOCK_Q_FORK,			/* btf_trace_* typedef ids */
	LOCK_Q_STACK,				/* the unwind cache */
	LOCK_Q_TGID, LOCK_Q_MM, LOCK_Q_SIGHAND, LOCK_Q_MMAP_LOCK, LOCK_Q_SIGLOCK,
	LOCK_Q_KMEM_CACHE, LOCK_Q_CACHE_NAME,		/* -l */
	LOCK_Q_CACHE_SIZE, LOCK_Q_CACHE_OBJSIZE, LOCK_Q_CACHE_REDPAD,	/* -l: offsets */
	LOCK_Q_CACHE_OO, LOCK_Q_CACHE_MIN,
	LOCK_Q_PAGE, LOCK_Q_PAGE_HEAD, LOCK_Q_PAGE_INFO,	/* -l: a lock's slab page */
	LOCK_Q_SLAB_CACHE,
	LOCK_Q_TASK_FROM_PID, LOCK_Q_TASK_RELEASE,	/* -o -v */
	/* -o */
	LOCK_Q_MUTEX_OWNER, LOCK_Q_RWSEM_OWNER, LOCK_Q_RTMUTEX_OWNER, LOCK_Q_PID, LOCK_Q_COMM,
	LOCK_Q_RELEASE,					/* -o at release (7.x) */
	LOCK_Q_ARRAY_PTRS, LOCK_Q_PROG_ACTIVE,		/* --nested */
	LOCK_Q_NR,
};

/*
 * Ask the BTF (the one lock_caps__probe read) the facts a run in MODE
 * needs, with -o, --nested and -U as said: a prefix of enum lock_fact,
 * the rest only for the modes that use them.  0 or -errno; answered facts
 * are kept, so a second call costs nothing.
 */
int lock_facts__resolve(enum lock_aggr mode, bool owner, bool nested, bool user);
/* Fact F as answered: id 0 or offset < 0 when the BTF lacks it. */
const struct kbtf_query *lock_facts__get(enum lock_fact f);
/* The BTF the facts are asked of (NULL: the kernel's). */
const char *lock_facts__path(void);

/*
 * Fill the probe table and the offsets from the kernel's BTF (BTF_PATH:
 * NULL for the kernel's own).  A kind whose facts the BTF lacks is left
 * out and -v says so, one line each.  The number of kinds described, or
 * -errno when the BTF cannot be read.
 */
int lock_obj__setup(const char *btf_path, struct lock_obj_probe probes[LOCK_OBJ_PROBES],
		    struct lock_obj_facts *facts);

#endif
