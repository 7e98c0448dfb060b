/* SPDX-License-Identifier: GPL-2.0 */
/*
 * frugal bench lock's insides, shared by its files: lock/workload.c (the
 * command, the mmap, pipe and pthread workers, the start gate) and
 * lock/workload_owner.c (--owner: a lock whose holder is known).
 */
#ifndef FRUGAL_LOCK_WORKLOAD_H
#define FRUGAL_LOCK_WORKLOAD_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <time.h>

#define BENCH_MAX_TASKS 4096

/* The run's instants, CLOCK_MONOTONIC, in memory the forked workers share:
 * with --start-on-usr1 they are set only when the signal comes. */
struct bench_clock {
	struct timespec start, stop;
	struct timespec leave;		/* stop + hold: when workers exit */
};

struct bench {
	unsigned long long threads, procs, owner, pthreads;
	pthread_mutex_t mutex;		/* --pthread: the user-space lock */
	unsigned long long mutex_ops;	/* taken, by all --pthread threads */
	int memfd;			/* --owner: the file whose inode lock is held */
	char *holder_buf;		/* --owner: what the holder writes, HOLDER_BYTES */
	pid_t holder_tid;		/* --owner: the holder's thread id, said at the end */
	double waiter_pause;		/* --waiter-pause: seconds between a waiter's writes */
	double holder_pause;		/* --holder-pause: seconds between the holder's writes */
	/* --holder-hold: the holder's page, whose faults the resolver answers
	 * after holder_hold seconds, and its own timing of those holds */
	double holder_hold;
	int ufd;
	char *upage;
	size_t upage_size;
	volatile bool holder_over;
	unsigned long long uholds, uhold_ns, uhold_max_ns;
	/* --owner: the workers' own timing of their writes, said at the end */
	unsigned long long holder_writes, holder_ns, holder_max_ns, waiter_writes, waiter_ns;
	bool timing_said;
	double duration, delay, hold;
	struct bench_clock *clk;	/* shared with the pipe processes */
	int done[2];			/* a byte from each worker whose run is over */
	int gate[2];			/* --start-on-usr1: closed at the start */
	bool on_usr1, help;
};

/* The run's shared steps, lock/workload.c. */
void bench_worker_done(const struct bench *b);	/* this worker has stopped contending */
bool bench_past(const struct timespec *t);
void bench_wait_until(const struct timespec *t);
void bench_start_line(const struct bench *b);	/* the gate, then the start instant */

/* --owner, lock/workload_owner.c: the file, the holder's buffer and (with
 * --holder-hold) its userfaultfd page, made before any thread; then the
 * threads; the workers' own timing, said once; all of it undone. */
int bench_owner_setup(struct bench *b);
void *bench_holder(void *arg);
void *bench_waiter(void *arg);
void *bench_resolver(void *arg);
void bench_owner_timing(struct bench *b);
void bench_owner_free(struct bench *b);

#endif
