/* SPDX-License-Identifier: GPL-2.0 */
/*
 * frugal lock's kernel side (lock/kernel/), its contract: the collector
 * (collect.c, with load.c loading and attaching lock.bpf.c's programs),
 * what the kernel has (caps.c, read through kbtf.c), and the names of what
 * holds a lock as -l's programs describe it (objdesc.c).  collect_int.h
 * and kernel_int.h are this folder's own.
 */
#ifndef FRUGAL_LOCK_KERNEL_H
#define FRUGAL_LOCK_KERNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lock/lock.h"

/*
 * ---- the collector (collect.c, with load.c loading and attaching,
 * caps.c probing the kernel): the BPF programs of a run, from open to the
 * final read.  An engine: 0 or a negative errno, NULL with errno set;
 * logs through cli_log, never prints.  lock_collect__destroy() releases
 * everything it opened, -U's futex programs too.
 */
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
/*
 * The wait-time histogram per lock type (CFG's wait_hist; struct
 * lock_hist in lock.h) into H[LOCK_HIST_TYPES], H[t] for the type of
 * flags t (lock_type_name(t)): summed over the CPUs and both copies of
 * the programs, cumulative since open (never reset: a reader's counters
 * stay monotonic), read while the programs run.  0, -ENOENT when the
 * run did not ask for it, or -errno.
 */
int lock_collect__wait_hist(struct lock_collect *c, struct lock_hist *h);

/*
 * ---- what the kernel has (caps.c): the features a run needs, probed once
 * at start-up (the facts of its BTF the loader asks for: kernel_int.h)
 */
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

/*
 * ---- kbtf (kbtf.c): the few facts frugal lock needs from the kernel's
 * BTF (the type id of a tracepoint's btf_trace_* typedef, the offset of a
 * struct member), found by streaming /sys/kernel/btf/vmlinux through a small buffer.
 *
 * Why not libbpf: loading vmlinux BTF there (5.5 MB here) holds two copies
 * of it at once, which alone is twice our whole memory budget, and libbpf
 * 1.1 loads it for any tp_btf program or CO-RE relocation.  We need a
 * handful of integers.
 */
struct kbtf_query {
	const char *name;	/* typedef name, or struct name */
	const char *member;	/* NULL: find the typedef's id (or KIND's); else a member */
	int kind;		/* with no member: BTF_KIND_FUNC for a function; 0 a typedef */
	uint32_t id;		/* out: typedef id (0: not found) */
	int32_t offset;		/* out: member byte offset (-1: not found) */
	uint32_t size;		/* out: with no member, a struct's or union's size */
};

/* Answer every query in one go.  0 (some may be unanswered), or -errno. */
int kbtf__resolve(const char *path, struct kbtf_query *q, int n);

struct btf_type;
/* The bytes that follow type T's record (its members, params, ...). */
size_t kbtf__extra_size(const struct btf_type *t);

/*
 * ---- -l: what holds a lock (objdesc.c).  The loader's half (in
 * kernel_int.h): where each kind of object keeps its locks and the offsets
 * objdesc.bpf.h's describe() reads, from the kernel's BTF.  The report's
 * half: a described object's member path, struct and description
 * ("/var/log/app.log", "postgres (pid 1234)", "tcp 127.0.0.1:5432 ->
 * 127.0.0.1:40000", "CPU 3's run queue").
 */
/* O's member path in its struct ("f_pos_lock"), its struct ("file"), and
 * the lock's offset there; "" and -1 for an undescribed O. */
const char *lock_obj__member(const struct lock_obj *o);
const char *lock_obj__type(const struct lock_obj *o);
int64_t lock_obj__offset(const struct lock_obj *o);

/* O described into BUF (always terminated); its length, 0 if undescribed. */
size_t lock_obj__name(const struct lock_obj *o, char *buf, size_t size);

#endif
