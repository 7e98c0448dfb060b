/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inside -U's collector: what ucollect.c (loading, the drain thread, the
 * counters) and ujoin.c (records joined into rows) share.  No other file
 * includes it.
 */
#ifndef FRUGAL_LOCK_UCOLLECT_INT_H
#define FRUGAL_LOCK_UCOLLECT_INT_H

#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/idxmap.h"
#include "lock/rows/rows.h"

struct perf_event_header;

enum { P_BEGIN, P_END };	/* which half of a wait a pending entry holds */

struct pend {
	uint64_t seq;		/* 0: a free entry (on the free list) */
	uint64_t key;		/* P_BEGIN: the row's key */
	uint64_t ns;		/* P_END: the wait */
	uint32_t flags;
	uint8_t state;
	bool filtered;
};

/* A row's definition: its flags and tail, kept across -I's tables. */
struct udef {
	uint64_t key;
	uint32_t flags;
	unsigned char tail[];
};

struct lock_ucollect {
	struct futex_bpf *skel;
	struct bpf_link *links[6];
	struct perf_buffer *pb;
	struct perf_buffer *wake;	/* new processes: the reader wakes at each */
	int epfd;			/* both buffers' and quitfd: the drain thread's */
	struct recq *q;			/* records read, not yet taken */
	pthread_t drain;
	sem_t *started;			/* posted once the drain thread is ahead (start_drain) */
	bool draining;			/* the drain thread runs */
	bool inline_read;		/* records taken as read: no thread */
	atomic_bool quit, drained;
	int quitfd, evfd;		/* to the drain thread; from it, to poll */
	/*
	 * An interval's read asks the drain thread for a pass over the
	 * buffers (pokefd), which it answers in poked: the buffers wake it
	 * only at their mark, and what lies below the mark would otherwise
	 * wait there until more came.
	 */
	int pokefd;
	atomic_uint poke, poked;
	atomic_int drain_err;
	void *qbuf;			/* a record off the queue */
	struct lock_ustacks *st;
	struct lock_urec_begin *rec;	/* the record being read, aligned */
	const struct lock_collect_cfg *cfg;
	struct lock_table *table;
	size_t tail_size, def_size;
	struct pend *pend;		/* pending halves; freed entries reused */
	size_t nr_pend, pend_cap;
	struct idxmap pend_map;	/* seq -> index into pend */
	uint32_t *pend_free;		/* indexes of freed entries */
	size_t nr_free, free_cap;
	unsigned char *defs;		/* def_size bytes each */
	size_t nr_defs, cap_defs;
	struct idxmap def_map;		/* key -> index into defs */
	uint64_t merged, filtered, lost_records;
	double unwind_s;
	int err;
};

/* The join's settings from CFG: its mode and the size of a row's definition. */
void lock_ujoin__init(struct lock_ucollect *u, const struct lock_collect_cfg *cfg);
/* One record of the buffers into the join: a process's mappings, a wait's
 * begin (unwound and named now) or its end.  Errors go to u->err. */
void lock_ujoin__take(struct lock_ucollect *u, const struct perf_event_header *h);
/* The waits begun and not ended (*OPEN), and the ends whose begin never
 * came (*UNJOINED), pending now. */
void lock_ujoin__pending(const struct lock_ucollect *u, uint64_t *open, uint64_t *unjoined);
/* Free the join's tables. */
void lock_ujoin__free(struct lock_ucollect *u);

#endif
