/* SPDX-License-Identifier: GPL-2.0 */
/*
 * frugal lock's rows stage (lock/rows/), its contract: what both
 * collectors (lock/kernel/, lock/user/) hand the report and how they read
 * it out of the kernel.  The rows of a run merged by key (table.c), the
 * accounting of where every event went (acct.c), and the perf plumbing both
 * collectors read them through (perf.c).  Below both collectors, so that
 * neither calls into the other for these; above lock/request/ only (the
 * sort keys).
 */
#ifndef FRUGAL_LOCK_ROWS_H
#define FRUGAL_LOCK_ROWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lock/lock.h"
#include "lock/request/request.h"

/*
 * ---- the row table (table.c): the rows of a run, merged from the
 * kernel's table and the buffers, sorted for the report.  The table owns
 * its rows and their stacks; lock_table__free() frees them all.
 */
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

/*
 * ---- the accounting: where every event of a run went, as the
 * collectors read it (collect.c, ucollect.c) and every format prints it
 * (lock/report/).  Plain counts, no pointers: copied and subtracted
 * freely (acct.c).
 */
struct lock_accounting {
	uint64_t c[LC_NR];
	uint64_t merged;		/* waits merged from the buffers */
	uint64_t rows_kernel;		/* rows read from the kernel table */
	/* Program runs the kernel skipped (recursion_misses): of each first
	 * program, and of the second programs together; and of the first
	 * programs' ones, those the second did not take (lost). */
	uint64_t misses_begin, misses_end, misses_second;
	uint64_t skipped_begin, skipped_end;
	/* bpf_stats: runs of each first program and of each second, and the
	 * time of both programs of a pair together */
	uint64_t begin_runs, begin2_runs, begin_ns, end_runs, end2_runs, end_ns;
	uint64_t release_runs, release_ns, release_misses;	/* -o at release */
	bool have_stats;
	bool at_release;		/* -o: holders at release (the LC_SHARES ... lines) */
	bool hold;			/* --hold: the rows are holds (the LC_HOLD* lines) */
	uint64_t open_waits;		/* begun, not ended, when read (since the start) */
	/* The stop could not wait out the programs' runs in flight (the
	 * links were closed instead): the last events may be missing.  0 or 1. */
	uint64_t stop_unsure;
	/* -U: the futex programs' counters, and user space's side */
	bool user;
	uint64_t u[UL_NR];
	uint64_t u_merged;		/* waits added to rows */
	uint64_t u_filtered;		/* removed by -Y */
	uint64_t u_lost_records;	/* records the buffers lost (kernel's count) */
	uint64_t u_queue_peak;		/* most bytes of records queued in user space */
	uint64_t u_unjoined;		/* ends whose begin record never came */
	uint64_t u_open;		/* recorded waits not ended at stop */
	uint64_t u_stacks, u_frames, u_shallow;	/* unwinding */
	uint64_t u_walked, u_by_dwfl, u_mismatches;
	uint64_t u_begin_runs, u_begin_ns, u_end_runs, u_end_ns;	/* bpf_stats */
	double u_unwind_s;		/* user-space CPU spent unwinding */
};

/*
 * -I: what came between PREV and A, both read since the start, into A:
 * each count A's minus PREV's (one that went down, by the order of the
 * reads, as 0), the completed waits summed again from their parts; the
 * levels (open waits, -U's open and unjoined waits, the queue's peak)
 * stay as A read them.
 */
void lock_accounting__delta(struct lock_accounting *a, const struct lock_accounting *prev);

/*
 * ---- the kernel plumbing both collectors share (perf.c): per-CPU perf
 * buffers of BPF output records, tracepoints attached as perf events,
 * per-CPU counter arrays and the programs' run statistics read back.
 */
struct perf_event_attr;
struct bpf_program;
struct bpf_link;

/* The event of a per-CPU perf buffer of BPF output records: the reader
 * woken once WAKE_BYTES are waiting (0: at every record). */
void lock_perf__output_attr(struct perf_event_attr *attr, size_t wake_bytes);
/* A "tracepoint/CATEGORY/NAME" program attached through lib/tracefs (never
 * debugfs's tracing directory while tracefs can be had); NULL with errno. */
struct bpf_link *lock_perf__attach_tp(struct bpf_program *prog);
/* SUMS[i]: key i of the per-CPU array FD summed over the CPUs, i < NR.  0 or -errno. */
int lock_counters__read(int fd, uint32_t nr, uint64_t *sums);
/* P's runs, run time and recursion misses (any may be NULL) added to
 * *RUNS, *NS, *MISSES; nothing if P is not loaded or the kernel says nothing. */
void lock_prog__stats(struct bpf_program *p, uint64_t *runs, uint64_t *ns, uint64_t *misses);
/* The CPU time of the calling thread, in seconds. */
double lock_thread_cpu(void);

#endif
