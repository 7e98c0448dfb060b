// SPDX-License-Identifier: GPL-2.0
/*
 * The collector: the programs loaded (load.c), the overflow records merged
 * while running,
 * and at the end stop the programs and wait out their runs in flight
 * before reading anything, so the totals are final.
 *
 * Nothing is pinned: every program, link and map lives in a file descriptor
 * of this process and goes away with it, however it ends.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "cli/cli.h"
#include "lib/array.h"
#include "lib/cpus.h"
#include "lock/kernel/collect_int.h"
#include "lock/kernel/kernel.h"
#include "lock/request/request.h"
#include "lock/rows/rows.h"
#include "lock/user/user.h"
#include "lock/kernel/lock.skel.h"

/* A record: a key's definition, or a wait to add to its row. */
static void on_record(struct lock_collect *c, const void *data, size_t size)
{
	const struct lock_rec_wait *w = data;
	const struct lock_rec_def *d = data;
	int err = 0;

	if (size >= sizeof(*w) && w->kind == LOCK_REC_WAIT) {
		struct lock_stat st = { w->ns, w->ns, w->ns, 1, w->flags };

		c->merged++;
		err = lock_table__add(c->table, w->key, &st, NULL, 0);
	} else if (size >= offsetof(struct lock_rec_def, tail) + c->tail_size &&
		   d->kind == LOCK_REC_DEF) {
		err = lock_table__define(c->table, d->key, d->flags,
					 c->tail_size ? &d->tail : NULL, c->tail_size);
	}
	if (err)
		c->merge_err = err;
}

/* What the perf buffer holds: samples with our record as raw data, and
 * the kernel's count of records it could not store. */
static enum bpf_perf_event_ret on_perf_event(void *ctx, int cpu, struct perf_event_header *h)
{
	struct lock_collect *c = ctx;
	struct { struct perf_event_header h; uint32_t size; char data[]; } *raw = (void *)h;
	struct { struct perf_event_header h; uint64_t id, lost; } *lost = (void *)h;
	union { struct lock_rec_wait w; struct lock_rec_def d; } rec;

	(void)cpu;
	/* The raw data sits 4 bytes into an 8-byte aligned record: copied to
	 * aligned storage before its 64-bit fields are read. */
	if (h->type == PERF_RECORD_SAMPLE && h->size >= sizeof(*raw) &&
	    raw->size <= h->size - sizeof(*raw) && raw->size <= sizeof(rec)) {
		memcpy(&rec, raw->data, raw->size);
		on_record(c, &rec, raw->size);
	} else if (h->type == PERF_RECORD_LOST && h->size >= sizeof(*lost))
		c->lost_records += lost->lost;
	return LIBBPF_PERF_EVENT_CONT;
}

/*
 * One perf buffer a CPU.  The reader is woken when a buffer is half full,
 * not at each record (which would be an interrupt per overflowing end); it
 * also drains at every poll timeout.
 */
static int open_buffers(struct lock_collect *c, const struct lock_collect_cfg *cfg)
{
	struct perf_event_attr attr;

	lock_perf__output_attr(&attr, cfg->ring_kb * 1024 / 2);
	c->pb = perf_buffer__new_raw(bpf_map__fd(c->skel->maps.bufs), cfg->ring_kb / 4, &attr,
				     on_perf_event, c, NULL);
	return c->pb ? 0 : -errno;
}

struct lock_collect *lock_collect__open(const struct lock_collect_cfg *cfg)
{
	struct lock_collect *c = calloc(1, sizeof(*c));
	uint32_t off_task_mm;
	int err;

	if (!c)
		return NULL;
	for (int i = 0; i < NR_LINKS; i++)
		c->links[i] = -1;
	c->interval = cfg->interval;
	c->hold = cfg->hold;
	err = lock_collect__load(c, cfg, &off_task_mm);
	err = err ?: open_buffers(c, cfg);
	if (!err && cfg->user) {
		c->user = lock_ucollect__open(cfg, c->skel->maps.targets, c->skel->maps.cpus,
					      c->skel->maps.cgroups, off_task_mm);
		if (!c->user)
			err = -errno;
	}
	if (err) {
		lock_collect__destroy(c);
		errno = -err;
		return NULL;
	}
	return c;
}

const char *lock_collect__path(const struct lock_collect *c)
{
	return c->path;
}

bool lock_collect__at_release(const struct lock_collect *c)
{
	return c->at_release;
}

const struct lock_ustacks *lock_collect__ustacks(const struct lock_collect *c)
{
	return lock_ucollect__stacks(c->user);
}

int lock_collect__poll(struct lock_collect *c, struct lock_table *t, int timeout_ms,
		       const int *fds, int nfds)
{
	struct pollfd p[2 + LOCK_POLL_FDS] = {
		{ .fd = perf_buffer__epoll_fd(c->pb), .events = POLLIN },
		{ .fd = c->user ? lock_ucollect__fd(c->user) : -1, .events = POLLIN },
	};
	int i, n, ready = 0;

	c->table = t;
	for (i = 0; i < nfds && i < LOCK_POLL_FDS; i++)
		p[2 + i] = (struct pollfd){ .fd = fds[i], .events = POLLIN };
	n = poll(p, 2 + i, timeout_ms);
	if (n < 0)
		return errno == EINTR ? 0 : -errno;
	for (i = 0; i < nfds && i < LOCK_POLL_FDS; i++)
		if (p[2 + i].revents)
			ready |= 1 << i;
	if (p[0].revents) {
		n = perf_buffer__consume(c->pb);
		if (n < 0)
			return n;
	}
	/* The user buffers at every wake-up: a begin is unwound while its
	 * process is surely alive. */
	if (c->user && (n = lock_ucollect__consume(c->user, t)) < 0)
		return n;
	return c->merge_err ?: ready;
}

/*
 * The kernel's rows: the indexes handed out, each row's statistics and
 * definition.  A row still at count 0 (its waits never ended, or an insert
 * race left it unused, or every wait of it ended nested in one of our runs
 * and came through the buffers) is not a row of the report, but its
 * definition goes to the buffered waits of its key if there are any.  With
 * DELTA (-I), each row adds what came since the last read, and its max and
 * min start over: an end that writes one between our read and our reset
 * loses that extreme for the interval (never its count or its time).
 */
static int read_rows(struct lock_collect *c, struct lock_table *t, struct lock_accounting *a,
		     bool delta)
{
	int pfd = bpf_map__fd(c->skel->maps.row_sums), sfd = bpf_map__fd(c->skel->maps.rows);
	int dfd = bpf_map__fd(c->skel->maps.row_defs), nr_cpus = libbpf_num_possible_cpus();
	uint32_t i, n = c->skel->bss->next_row;
	struct lock_row_sum *sums, cur;
	struct lock_rec_def d;
	struct lock_stat st, fresh;
	int err = 0, j;

	if (nr_cpus < 0)
		return nr_cpus;
	if (n > bpf_map__max_entries(c->skel->maps.rows))
		n = bpf_map__max_entries(c->skel->maps.rows);
	if (delta && array__grow_zero(&c->row_prev, &c->row_prev_cap, n, sizeof(*c->row_prev)))
		return -ENOMEM;
	sums = calloc(nr_cpus, sizeof(*sums));
	if (!sums)
		return -ENOMEM;
	for (i = 0; i < n && !err; i++) {
		if (bpf_map_lookup_elem(pfd, &i, sums) || bpf_map_lookup_elem(sfd, &i, &st) ||
		    bpf_map_lookup_elem(dfd, &i, &d)) {
			err = -errno;
			break;
		}
		cur.total_ns = cur.count = 0;
		for (j = 0; j < nr_cpus; j++) {
			cur.total_ns += sums[j].total_ns;
			cur.count += sums[j].count;
		}
		a->c[LC_AGGR_HIT] += cur.count;
		st.total_ns = cur.total_ns;
		st.count = cur.count;
		if (delta) {
			st.total_ns -= c->row_prev[i].total_ns;
			st.count -= c->row_prev[i].count;
			c->row_prev[i] = cur;
			fresh = st;
			fresh.max_ns = 0;
			fresh.min_ns = ~0ULL;
			if (st.count && bpf_map_update_elem(sfd, &i, &fresh, BPF_EXIST))
				err = -errno;
		}
		if (!st.count) {
			if (c->tail_size && lock_table__has(t, d.key))
				err = err ?: lock_table__define(t, d.key, d.flags, &d.tail,
								c->tail_size);
			continue;
		}
		err = err ?: lock_table__add(t, d.key, &st, c->tail_size ? &d.tail : NULL,
					     c->tail_size);
		a->rows_kernel++;
	}
	free(sums);
	return err;
}

static int read_counters(struct lock_collect *c, struct lock_accounting *a)
{
	uint64_t v[LC_NR];
	int err = lock_counters__read(bpf_map__fd(c->skel->maps.counters), LC_NR, v);

	/* AGGR_HIT, ENDS and HOLDS are computed here, never counted by the programs. */
	for (uint32_t i = 0; !err && i < LC_NR; i++)
		if (i != LC_AGGR_HIT && i != LC_ENDS && i != LC_HOLDS)
			a->c[i] += v[i];
	/* Every end lands in exactly one of these (lock.h); AGGR_HIT is the sum
	 * of the kernel rows' counts, from read_rows(), less the shares of
	 * waits charged to several holders (-o at release). */
	a->c[LC_AGGR_HIT] -= a->c[LC_SHARES] < a->c[LC_AGGR_HIT] ? a->c[LC_SHARES] :
			     a->c[LC_AGGR_HIT];
	/* --hold: the rows are holds; each traced wait's end is HOLD_WAITS. */
	if (c->hold) {
		a->c[LC_HOLDS] = a->c[LC_AGGR_HIT];
		a->c[LC_AGGR_HIT] = 0;
	}
	a->c[LC_ENDS] = a->c[LC_AGGR_HIT] + a->c[LC_OVERFLOW] + a->c[LC_LOST_RING] +
			a->c[LC_FILTERED] + a->c[LC_UNMATCHED] + a->c[LC_HOLD_WAITS];
	return err;
}

/*
 * Stop the programs (lock.bpf.c) and wait until no run is in flight: from
 * then on the maps are final.  Should that wait fail, the links are closed
 * first, and the accounting says so (stop_unsure).
 */
static int stop_programs(struct lock_collect *c)
{
	int err;

	c->skel->bss->stopped = true;
	err = cpus__quiesce();
	if (err) {
		/* An engine does not print: the report's accounting says it. */
		cli_log("lock: cannot wait for the programs' runs in flight: %s\n",
			strerror(-err));
		c->stop_unsure = true;
		lock_collect__detach(c);
	}
	c->stopped = true;
	return 0;
}

/* Waits begun and not ended, from the counters since the start. */
static uint64_t open_waits(const struct lock_accounting *a)
{
	const uint64_t *c = a->c;
	uint64_t recorded = c[LC_BEGINS] - c[LC_REBEGINS] - c[LC_DROP_TASK] - c[LC_DROP_NEST];
	uint64_t closed = c[LC_ENDS] - c[LC_UNMATCHED] + c[LC_STALE];

	return recorded > closed ? recorded - closed : 0;
}

/*
 * Everything since the start (or, with -I, since the last read): the
 * overflow records waiting in the buffers, the programs' statistics, the
 * rows, the counters.
 */
static int read_all(struct lock_collect *c, struct lock_table *t, struct lock_accounting *a)
{
	int err;

	c->table = t;
	err = perf_buffer__consume(c->pb);
	if (err < 0)
		return err;
	if (c->merge_err)
		return c->merge_err;
	memset(a, 0, sizeof(*a));
	a->merged = c->merged;
	/*
	 * The misses before the counters: a nested run's NESTED count is made
	 * before the kernel counts the first program's miss (lock.bpf.c).
	 * The runs and time of both programs of a pair are the pair's cost.
	 */
	lock_prog__stats(c->begin, &a->begin_runs, &a->begin_ns, &a->misses_begin);
	lock_prog__stats(c->end, &a->end_runs, &a->end_ns, &a->misses_end);
	lock_prog__stats(c->begin2, &a->begin2_runs, &a->begin_ns, &a->misses_second);
	lock_prog__stats(c->end2, &a->end2_runs, &a->end_ns, &a->misses_second);
	if (c->release)
		lock_prog__stats(c->release, &a->release_runs, &a->release_ns,
				 &a->release_misses);
	a->have_stats = a->begin_ns || a->end_ns;
	a->at_release = c->at_release;
	a->hold = c->hold;
	err = read_rows(c, t, a, c->interval);
	err = err ?: read_counters(c, a);
	if (err)
		return err;
	a->skipped_begin = a->misses_begin > a->c[LC_NESTED_BEGIN] ?
			   a->misses_begin - a->c[LC_NESTED_BEGIN] : 0;
	a->skipped_end = a->misses_end > a->c[LC_NESTED_END] ?
			 a->misses_end - a->c[LC_NESTED_END] : 0;
	a->open_waits = open_waits(a);
	a->stop_unsure = c->stop_unsure;
	if (c->user)
		err = c->stopped ? lock_ucollect__finish(c->user, t, a) :
				   lock_ucollect__read(c->user, t, a);
	if (!err && c->interval) {
		struct lock_accounting cur = *a;

		lock_accounting__delta(a, &c->acct_prev);
		c->acct_prev = cur;
	}
	return err;
}

int lock_collect__interval(struct lock_collect *c, struct lock_table *t,
			   struct lock_accounting *a)
{
	return read_all(c, t, a);
}

int lock_collect__finish(struct lock_collect *c, struct lock_table *t,
			 struct lock_accounting *a)
{
	double t0 = cli_now() * 1e3;
	int err;

	err = stop_programs(c);
	if (err)
		return err;
	cli_log("lock: stopped in %.1f ms\n", cli_now() * 1e3 - t0);
	err = read_all(c, t, a);
	if (err)
		return err;
	if (c->lost_records)
		cli_log("lock: the perf buffers lost %llu records (counted in lost_ringbuf)\n",
			(unsigned long long)c->lost_records);
	if (c->skel->bss->mismatch_saved) {
		cli_log("lock: first walked stack that differed, walked / unwound:\n");
		for (int i = 0; i < LOCK_MISMATCH_FRAMES; i++)
			cli_log("lock:   %#018llx %#018llx\n",
				(unsigned long long)c->skel->bss->mismatch_walked[i],
				(unsigned long long)c->skel->bss->mismatch_unwound[i]);
	}
	return 0;
}

void lock_collect__destroy(struct lock_collect *c)
{
	double t0 = cli_now() * 1e3;

	if (!c)
		return;
	lock_ucollect__destroy(c->user);
	perf_buffer__free(c->pb);
	/* Detaching waits for the kernel to unpatch the tracepoints (~2.5 ms
	 * each here).  Handing the links to a child to release was measured
	 * slower: forking this process costs more than the wait. */
	lock_collect__detach(c);
	if (c->stopped)
		cli_log("lock: detached in %.1f ms\n", cli_now() * 1e3 - t0);
	lock_bpf__destroy(c->skel);
	free(c->row_prev);
	free(c);
}

int lock_collect__wait_hist(struct lock_collect *c, struct lock_hist *h)
{
	int fd = bpf_map__fd(c->skel->maps.wait_hists), nr_cpus = libbpf_num_possible_cpus();
	struct lock_hist *v;
	uint32_t key, t;
	int cpu, b, err = 0;

	if (!c->skel->rodata->wait_hist)
		return -ENOENT;
	if (nr_cpus < 0)
		return nr_cpus;
	v = calloc(nr_cpus, sizeof(*v));	/* 8-byte multiple: the kernel's per-CPU stride */
	if (!v)
		return -ENOMEM;
	memset(h, 0, LOCK_HIST_TYPES * sizeof(*h));
	for (key = 0; key < 2 * LOCK_HIST_TYPES && !err; key++) {
		t = key % LOCK_HIST_TYPES;
		if (bpf_map_lookup_elem(fd, &key, v)) {
			err = -errno;
			break;
		}
		for (cpu = 0; cpu < nr_cpus; cpu++) {
			h[t].sum_ns += v[cpu].sum_ns;
			for (b = 0; b < LOCK_HIST_BUCKETS; b++)
				h[t].count[b] += v[cpu].count[b];
		}
	}
	free(v);
	return err;
}
