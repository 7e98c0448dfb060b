/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What lock.bpf.c and the user-space side of `frugal lock` share: fixed-size
 * types only (this header is compiled by clang -target bpf and by gcc), the
 * map bounds, and the accounting counters.
 */
#ifndef FRUGAL_LOCK_H
#define FRUGAL_LOCK_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/* Contention flags passed by the kernel's contention_begin tracepoint. */
#define LCB_F_SPIN	(1U << 0)
#define LCB_F_READ	(1U << 1)
#define LCB_F_WRITE	(1U << 2)
#define LCB_F_RT	(1U << 3)
#define LCB_F_PERCPU	(1U << 4)
#define LCB_F_MUTEX	(1U << 5)
#define LCB_F_MASK	0x3fU

/* Extra flags we add in -l mode: what kind of per-task lock this was. */
#define LOCK_F_MMAP_LOCK	(1U << 16)
#define LOCK_F_SIGLOCK		(1U << 17)

/* Bounds.  The map sizes are set by the user (-M); these are hard limits. */
#define LOCK_MAX_STACK		64	/* --max-stack + --stack-skip */
#define LOCK_MACHINERY_FRAMES	2	/* tracing frames kept, then dropped by name */
#define LOCK_DEF_ENTRIES	16384
#define LOCK_CPU_DEPTH		8	/* nested spinning waits per CPU: task, softirq, irq, nmi, ... */
#define LOCK_TASK_DEPTH		4	/* nested sleeping waits per task */
#define LOCK_COMM_LEN		16
/*
 * The stack walker (lock.bpf.c): frame sizes learned from the kernel's own
 * unwinds, in a direct-mapped table of this many entries, over a window of
 * the kernel stack of this many bytes.
 */
#define LOCK_FRAME_FACTS	4096
#define LOCK_STACK_WINDOW	1024
#define LOCK_THREAD_SIZE	16384	/* x86-64 kernel stacks: size and alignment */

enum lock_aggr {
	LOCK_AGGR_CALLER,	/* key: hash of the kernel call stack */
	LOCK_AGGR_TASK,		/* key: thread id */
	LOCK_AGGR_ADDR,		/* key: lock address */
	LOCK_AGGR_CGROUP,	/* key: cgroup id */
};

/*
 * One row of the kernel's table (the value of the `stats` map) and, with
 * the key in front, one event in the overflow ring.  A variable tail follows
 * it: the call stack (caller mode, max_stack u64s) or the comm (task mode).
 */
struct lock_stat {
	__u64 total_ns;
	__u64 max_ns;
	__u64 min_ns;
	__u32 count;
	__u32 flags;		/* LCB_F_* | LOCK_F_* of the first contention */
};

struct lock_event {
	__u64 key;
	struct lock_stat st;
	union {
		__u64 stack[LOCK_MAX_STACK];
		char comm[LOCK_COMM_LEN];
	} tail;
};

/*
 * Accounting, one per-CPU array entry each (user space sums the CPUs).
 * Invariant, for the tasks traced:
 *   ENDS == AGGR_HIT + AGGR_NEW + OVERFLOW + LOST_RING + FILTERED + UNMATCHED
 * and the report's rows sum to AGGR_HIT + AGGR_NEW + OVERFLOW.
 */
enum lock_counter {
	LC_BEGINS,		/* contention_begin events of traced tasks */
	LC_REBEGINS,		/* a begin for the lock already waited on: kept the first */
	LC_DROP_TASK,		/* begin not recorded: no per-task slot (storage busy/failed) */
	LC_DROP_NEST,		/* begin not recorded: nesting deeper than the slot stack */
	LC_ENDS,		/* contention_end events of traced tasks */
	LC_UNMATCHED,		/* an end with no recorded begin */
	LC_STALE,		/* recorded begins whose end never came, unwound */
	LC_FILTERED,		/* completed, removed by -Y/-L/-S */
	LC_AGGR_HIT,		/* added to an existing row in the kernel */
	LC_AGGR_NEW,		/* created a row in the kernel */
	LC_OVERFLOW,		/* sent through the ring (table full, or insert failed) */
	LC_LOST_RING,		/* the ring was full too: lost, and counted */
	LC_STACK_FAIL,		/* no stack could be read: kept as an empty stack */
	LC_TIME_FAIL,		/* clock went backwards: kept with a wait of 0 */
	LC_DATA_FAIL,		/* table insert failed for a reason other than full */
	LC_STACK_WALKED,	/* stack walked with learned frame sizes */
	LC_STACK_UNWOUND,	/* stack unwound by the kernel (and learned from) */
	LC_STACK_MISMATCH,	/* --stack-check: a walked stack differed from the unwind */
	LC_NR,
};

#endif
