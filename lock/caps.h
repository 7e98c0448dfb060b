/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the kernel has (caps.c): the features a run needs, probed once at
 * start-up, and the facts of its BTF the loader asks for (attach ids,
 * struct offsets, kfuncs), each asked once and kept.
 */
#ifndef FRUGAL_LOCK_CAPS_H
#define FRUGAL_LOCK_CAPS_H

#include <stdbool.h>
#include <stddef.h>

#include "lock/kbtf.h"
#include "lock/lock.h"

struct lock_opts;

/*
 * What this kernel has that the programs need, probed once at start-up
 * (caps.c), before anything is loaded.  False only where a probe said
 * so; the run is refused with one line naming the first thing it needs.
 */
struct lock_caps {
	const char *btf_path;	/* the BTF read (the kernel's, unless a test's) */
	int btf_err;		/* errno reading it; 0: read */
	bool contention_begin;	/* lock:contention_begin (Linux 5.19) */
	bool contention_end;
	bool contended_release;	/* lock:contended_release (Linux 7.x), for -o at release */
	bool task_storage;	/* BPF_MAP_TYPE_TASK_STORAGE (5.11) */
	bool loop;		/* bpf_loop() (5.17) */
	bool task_pt_regs;	/* bpf_task_pt_regs() (5.15), for -U */
	bool futex_events;	/* syscalls:sys_enter_futex, for -U */
};
/* Fill K for the run O, reading BTF_PATH (NULL: the kernel's BTF); the
 * collector then reads the same BTF. */
void lock_caps__probe(struct lock_caps *k, const char *btf_path, const struct lock_opts *o);
/* The BTF's part alone (the rest set present): what unit tests can feed. */
void lock_caps__probe_btf(struct lock_caps *k, const char *btf_path, const struct lock_opts *o);
/* What O needs that K lacks, as one line in BUF; false when nothing is. */
bool lock_caps__missing(const struct lock_caps *k, const struct lock_opts *o, char *buf,
			size_t size);
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

#endif
