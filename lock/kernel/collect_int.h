/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inside the collector: what collect.c (reading) and load.c (loading,
 * attaching, detaching) share.  No other file includes it.
 */
#ifndef FRUGAL_LOCK_COLLECT_INT_H
#define FRUGAL_LOCK_COLLECT_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lock/rows/rows.h"

struct lock_collect_cfg;

/* The programs in the order they are attached: each tracepoint's second
 * program (the one for nested runs) before its first, see lock.bpf.c. */
enum { L_FORK, L_RELEASE, L_BEGIN2, L_BEGIN, L_END2, L_END, NR_LINKS };

struct lock_collect {
	struct lock_bpf *skel;
	struct perf_buffer *pb;		/* the overflow channel, one buffer a CPU */
	int links[NR_LINKS];		/* raw tracepoint fds; -1 when closed */
	uint64_t lost_records;		/* lost as the kernel reports it */
	struct bpf_program *begin, *begin2, *end, *end2, *release;
	bool at_release;		/* -o: holders at release (lock:contended_release) */
	bool hold;			/* --hold: the rows are holds */
	const char *path;
	size_t tail_size;
	struct lock_table *table;	/* where ring events go while polling */
	uint64_t merged;
	/* -I: what the last interval read, subtracted from what is read next */
	struct lock_row_sum *row_prev;	/* per row index, summed over the CPUs */
	size_t row_prev_cap;
	struct lock_accounting acct_prev;
	bool interval;
	bool slab_names;		/* -l: rows carry their slab cache's name */
	int merge_err;
	bool stopped;			/* the programs are stopped: the maps are final */
	bool stop_unsure;		/* ... without waiting out the runs in flight */
	struct lock_ucollect *user;	/* -U: the futex programs */
};

/*
 * Open, configure, load and attach the programs of O on the best path
 * (tp_btf, else raw tracepoints) into C: 0, or -errno with nothing of it
 * left.  *OFF_TASK_MM: task_struct's mm, for -U's programs (0: unknown).
 */
int lock_collect__load(struct lock_collect *c, const struct lock_collect_cfg *cfg,
		       uint32_t *off_task_mm);
/* Close the links, each tracepoint's first program before its second. */
void lock_collect__detach(struct lock_collect *c);

#endif
