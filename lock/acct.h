/* SPDX-License-Identifier: GPL-2.0 */
/*
 * frugal lock's accounting: where every event of a run went, as the
 * collectors read it (collect.c, ucollect.c) and every format prints it
 * (report.c).  Plain counts, no pointers: copied and subtracted freely
 * (acct.c).
 */
#ifndef FRUGAL_LOCK_ACCT_H
#define FRUGAL_LOCK_ACCT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lock/lock.h"

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

#endif
