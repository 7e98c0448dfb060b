// SPDX-License-Identifier: GPL-2.0
/*
 * -U's collector: the futex programs (futex.bpf.c) loaded beside the
 * kernel's, on the same targets, CPUs and cgroups (their maps, by fd), and
 * the join of their records: a wait's begin (registers and stack, unwound
 * and named at once, while the process is surely alive) and its end (the
 * time), by sequence number.  The two come through different CPUs'
 * buffers when the waiter migrated, so either may come first.
 *
 * Every wait the programs recorded is, at the end, in a row, filtered by
 * -Y, lost with a counted reason, or still open at the stop.
 *
 * A thread of its own empties the kernel's buffers into a queue in user
 * space (lib/recq.h) and the main thread unwinds from there: a stall of
 * the unwinder (a new process's debug files read from a cold disk, a
 * loaded CPU) then costs memory for a while, not records.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/eventfd.h>
#include <sys/wait.h>

#include <linux/perf_event.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "cli/cli.h"
#include "lib/array.h"
#include "lib/recq.h"
#include "lib/tracefs.h"
#include "lock/lock_int.h"
#include "lock/futex.skel.h"

#define FUTEX_LOCK_PI		6
#define FUTEX_WAIT_REQUEUE_PI	11
#define FUTEX_LOCK_PI2		13

enum { P_BEGIN, P_END };	/* which half of a wait a pending entry holds */

struct pend {
	uint64_t seq;		/* 0: empty; ~0: deleted */
	uint64_t key;		/* P_BEGIN: the row's key */
	uint64_t ns;		/* P_END: the wait */
	uint32_t flags;
	uint8_t state;
	bool filtered;
};
#define PEND_DEL (~0ULL)

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
	bool draining;			/* the drain thread runs */
	bool inline_read;		/* records taken as read: no thread */
	atomic_bool quit, drained;
	int quitfd, evfd;		/* to the drain thread; from it, to poll */
	atomic_int drain_err;
	void *qbuf;			/* a record off the queue */
	struct lock_ustacks *st;
	struct lock_urec_begin *rec;	/* the record being read, aligned */
	const struct lock_opts *o;
	struct lock_table *table;
	size_t tail_size, def_size;
	struct pend *pend;
	size_t pend_cap, pend_used;	/* used: live and deleted entries */
	unsigned char *defs;		/* def_size bytes each */
	size_t nr_defs, cap_defs;
	uint32_t *def_slots;		/* 1 + index; 0 empty */
	size_t nr_def_slots;
	uint64_t merged, filtered, lost_records;
	double unwind_s;
	int err;
	struct lock_accounting prev;	/* -I */
};

static uint64_t hash64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return x;
}

/* ---- the pending halves, by sequence number ---- */

static struct pend *pend_find(struct lock_ucollect *u, uint64_t seq)
{
	size_t i, m = u->pend_cap - 1;

	if (!u->pend_cap)
		return NULL;
	for (i = hash64(seq) & m; u->pend[i].seq; i = (i + 1) & m)
		if (u->pend[i].seq == seq)
			return &u->pend[i];
	return NULL;
}

static int pend_rehash(struct lock_ucollect *u)
{
	size_t cap = u->pend_cap ? u->pend_cap : 1024, i, j, live = 0;
	struct pend *old = u->pend, *p;

	for (i = 0; i < u->pend_cap; i++)
		live += old[i].seq && old[i].seq != PEND_DEL;
	while (live * 4 >= cap)
		cap *= 2;
	p = calloc(cap, sizeof(*p));
	if (!p)
		return -ENOMEM;
	for (i = 0; i < u->pend_cap; i++) {
		if (!old[i].seq || old[i].seq == PEND_DEL)
			continue;
		for (j = hash64(old[i].seq) & (cap - 1); p[j].seq; j = (j + 1) & (cap - 1))
			;
		p[j] = old[i];
	}
	free(old);
	u->pend = p;
	u->pend_cap = cap;
	u->pend_used = live;
	return 0;
}

static struct pend *pend_add(struct lock_ucollect *u, uint64_t seq)
{
	size_t i, m;

	if ((u->pend_used + 1) * 2 > u->pend_cap && pend_rehash(u))
		return NULL;
	m = u->pend_cap - 1;
	for (i = hash64(seq) & m; u->pend[i].seq && u->pend[i].seq != PEND_DEL; i = (i + 1) & m)
		;
	u->pend_used += !u->pend[i].seq;
	memset(&u->pend[i], 0, sizeof(u->pend[i]));
	u->pend[i].seq = seq;
	return &u->pend[i];
}

/* ---- row definitions, by key ---- */

static struct udef *def_at(struct lock_ucollect *u, size_t i)
{
	return (struct udef *)(u->defs + i * u->def_size);
}

static struct udef *def_find(struct lock_ucollect *u, uint64_t key)
{
	size_t i, m = u->nr_def_slots - 1;

	if (!u->nr_def_slots)
		return NULL;
	for (i = hash64(key) & m; u->def_slots[i]; i = (i + 1) & m)
		if (def_at(u, u->def_slots[i] - 1)->key == key)
			return def_at(u, u->def_slots[i] - 1);
	return NULL;
}

static int def_slots_grow(struct lock_ucollect *u)
{
	size_t n = u->nr_def_slots ? u->nr_def_slots * 2 : 1024, i, j;
	uint32_t *s = calloc(n, sizeof(*s));

	if (!s)
		return -ENOMEM;
	for (i = 0; i < u->nr_defs; i++) {
		for (j = hash64(def_at(u, i)->key) & (n - 1); s[j]; j = (j + 1) & (n - 1))
			;
		s[j] = i + 1;
	}
	free(u->def_slots);
	u->def_slots = s;
	u->nr_def_slots = n;
	return 0;
}

static int def_put(struct lock_ucollect *u, uint64_t key, uint32_t flags, const void *tail)
{
	struct udef *d;
	size_t j;

	if (def_find(u, key))
		return 0;
	if ((u->nr_defs + 1) * 2 > u->nr_def_slots && def_slots_grow(u))
		return -ENOMEM;
	if (array__grow(&u->defs, &u->cap_defs, u->nr_defs + 1, u->def_size, 64))
		return -ENOMEM;
	d = def_at(u, u->nr_defs);
	d->key = key;
	d->flags = flags;
	memcpy(d->tail, tail, u->tail_size);
	for (j = hash64(key) & (u->nr_def_slots - 1); u->def_slots[j];
	     j = (j + 1) & (u->nr_def_slots - 1))
		;
	u->def_slots[j] = ++u->nr_defs;
	return 0;
}

/* ---- records ---- */

static int add_wait(struct lock_ucollect *u, uint64_t key, uint32_t flags, uint64_t ns)
{
	struct lock_stat st = { ns, ns, ns, 1, flags };
	struct udef *d = def_find(u, key);

	u->merged++;
	return lock_table__add(u->table, key, &st, d && u->tail_size ? d->tail : NULL,
			       u->tail_size);
}

/*
 * How much of a process's stack the next waits copy: twice what unwinding
 * read so far, in 512-byte steps, never less than before; the whole
 * --user-stack-size once an unwind ran past a copy.  An 8 KB copy costs
 * ~4.8 us at the wait's entry here; a fixture's 300-byte stacks ~1 us.
 */
static void copy_hint(struct lock_ucollect *u, const struct lock_urec_begin *r,
		      uint32_t reach, bool overrun)
{
	uint32_t full = u->o->ustack_size, cur = full, want;
	int fd = bpf_map__fd(u->skel->maps.ucopy);

	if (bpf_map_lookup_elem(fd, &r->tgid, &cur))
		cur = 0;	/* no hint yet: the full size was copied */
	want = overrun ? full : ((reach * 2 + 511) & ~511U);
	if (want > full)
		want = full;
	if (want < 512)
		want = 512;
	if (cur && want <= cur)
		return;
	if (!bpf_map_update_elem(fd, &r->tgid, &want, BPF_ANY))
		cli_log("lock: -U: process %u: %u bytes of stack a wait (%u read)\n",
			r->tgid, want, reach);
}

static uint64_t key_of_stack(const uint64_t *frames, unsigned int n, enum lock_utype ty)
{
	uint64_t h = hash64(ty + 1);
	unsigned int i;

	for (i = 0; i < n; i++)
		h = hash64(h ^ frames[i]) + i;
	return h ? h : 1;
}

/*
 * One half of a wait (its begin: KEY, FLAGS, FILTERED; its end: NS): with
 * the other half already here, the wait goes to its row (or to -Y's
 * count); alone, it waits for the other.
 */
static void half(struct lock_ucollect *u, uint64_t seq, uint8_t state, uint64_t key,
		 uint32_t flags, bool filtered, uint64_t ns)
{
	struct pend *p = pend_find(u, seq);

	if (p && p->state != state) {
		p->seq = PEND_DEL;
		if (state == P_END) {
			key = p->key;
			flags = p->flags;
			filtered = p->filtered;
		} else {
			ns = p->ns;
		}
		if (filtered)
			u->filtered++;
		else
			u->err = add_wait(u, key, flags, ns);
		return;
	}
	p = pend_add(u, seq);
	if (!p) {
		u->err = -ENOMEM;
		return;
	}
	*p = (struct pend){ .seq = seq, .key = key, .ns = ns, .flags = flags, .state = state,
			    .filtered = filtered };
}

static void on_begin(struct lock_ucollect *u, const struct lock_urec_begin *r)
{
	const struct lock_opts *o = u->o;
	uint64_t frames[LOCK_MAX_STACK] = { 0 }, key = 0;
	unsigned char tail[LOCK_MAX_STACK * sizeof(uint64_t)] = { 0 };
	unsigned int max = o->max_stack < LOCK_MAX_STACK ? o->max_stack : LOCK_MAX_STACK;
	enum lock_utype ty;
	uint32_t flags, reach;
	bool overrun;
	bool filtered;
	int n;

	n = lock_ustacks__unwind(u->st, r, frames, max, &ty, &reach, &overrun);
	if (n < 0) {
		u->err = n;
		return;
	}
	copy_hint(u, r, reach, overrun);
	if (ty == LOCK_U_NR)
		ty = r->op == FUTEX_LOCK_PI || r->op == FUTEX_LOCK_PI2 ||
		     r->op == FUTEX_WAIT_REQUEUE_PI ? LOCK_U_FUTEX_PI : LOCK_U_FUTEX;
	flags = LOCK_F_USER | (uint32_t)ty << LOCK_UTYPE_SHIFT;
	filtered = o->type_mask && !(o->type_mask & (1ULL << (LOCK_UTYPE_BIT + ty)));
	switch (o->mode) {
	case LOCK_AGGR_CALLER:
		key = key_of_stack(frames, n, ty);
		memcpy(tail, frames, max * sizeof(uint64_t));
		break;
	case LOCK_AGGR_TASK:
		key = LOCK_KEY_USER | r->tid;
		memcpy(tail, r->comm, LOCK_COMM_LEN);
		tail[LOCK_COMM_LEN - 1] = '\0';
		break;
	case LOCK_AGGR_ADDR:
		key = LOCK_KEY_USER | (uint64_t)(r->tgid & 0x3fff) << 48 |
		      (r->uaddr & LOCK_KEY_UADDR);
		lock_ustacks__data_name(u->st, r, (char *)tail, LOCK_SLAB_LEN);
		break;
	case LOCK_AGGR_CGROUP:
		key = LOCK_KEY_USER | r->cgroup;
		break;
	}
	if (!filtered && (u->err = def_put(u, key, flags, tail)))
		return;
	half(u, r->seq, P_BEGIN, key, flags, filtered, 0);
}

static void on_end(struct lock_ucollect *u, const struct lock_urec_end *e)
{
	half(u, e->seq, P_END, 0, 0, false, e->ns);
}

/* One record of the buffers: the program's, or the kernel's count of lost ones. */
static void take(struct lock_ucollect *u, const struct perf_event_header *h)
{
	const struct { struct perf_event_header h; uint32_t size; char data[]; } *raw = (void *)h;
	const struct { struct perf_event_header h; uint64_t id, lost; } *lost = (void *)h;
	struct lock_urec_begin *b = u->rec;

	if (h->type == PERF_RECORD_LOST && h->size >= sizeof(*lost)) {
		u->lost_records += lost->lost;
		return;
	}
	if (h->type != PERF_RECORD_SAMPLE || h->size < sizeof(*raw) ||
	    raw->size > h->size - sizeof(*raw) || raw->size < sizeof(uint32_t) ||
	    raw->size > sizeof(*b))
		return;
	/* The raw data sits 4 bytes into an 8-byte aligned record: copied to
	 * aligned storage before its 64-bit fields are read. */
	memcpy(b, raw->data, raw->size);
	if (b->kind == LOCK_REC_UPROC && raw->size >= sizeof(struct lock_urec_proc)) {
		const struct lock_urec_proc *pr = (const void *)b;

		u->err = lock_ustacks__proc(u->st, pr->tgid, pr->mm);
	} else if (b->kind == LOCK_REC_UBEGIN && raw->size >= offsetof(struct lock_urec_begin, stack) &&
	    b->stack_size <= raw->size - offsetof(struct lock_urec_begin, stack))
		on_begin(u, b);
	else if (b->kind == LOCK_REC_UEND && raw->size >= sizeof(struct lock_urec_end))
		on_end(u, (const void *)b);
}

/*
 * libbpf's callback: on the drain thread, the record goes to the queue
 * (waiting there while the queue is full: the kernel's buffer then fills
 * and counts what it loses); after it, at the stop, it is taken at once.
 */
static enum bpf_perf_event_ret on_event(void *ctx, int cpu, struct perf_event_header *h)
{
	struct lock_ucollect *u = ctx;
	int err;

	(void)cpu;
	if (u->inline_read) {
		take(u, h);
		return u->err ? LIBBPF_PERF_EVENT_ERROR : LIBBPF_PERF_EVENT_CONT;
	}
	err = recq__push(u->q, h, h->size);
	if (err && err != -ECANCELED)
		u->drain_err = err;
	return err ? LIBBPF_PERF_EVENT_ERROR : LIBBPF_PERF_EVENT_CONT;
}

/* ---- loading ---- */

static int reuse(struct bpf_map *mine, struct bpf_map *theirs)
{
	int err = bpf_map__set_max_entries(mine, bpf_map__max_entries(theirs));

	return err ?: bpf_map__reuse_fd(mine, bpf_map__fd(theirs));
}

/* Each syscall's pair: futex(2) always; futex_wait(2) and futex_waitv(2)
 * where the kernel has them. */
static int attach(struct lock_ucollect *u)
{
	struct futex_bpf *s = u->skel;
	struct bpf_program *order[6] = {
		s->progs.futex_exit, s->progs.futex_enter,
		s->progs.futex_wait_exit, s->progs.futex_wait_enter,
		s->progs.futex_waitv_exit, s->progs.futex_waitv_enter,
	};
	int i;

	for (i = 0; i < 6; i++) {
		if (!bpf_program__autoload(order[i]))
			continue;
		u->links[i] = lock_collect__attach_tp(order[i]);
		if (!u->links[i])
			return -errno;
	}
	return 0;
}

static bool has_event(const char *name)
{
	return tracefs__has_event("syscalls", name) > 0;
}

static int open_buffers(struct lock_ucollect *u, const struct lock_opts *o)
{
	/*
	 * A begin carries up to --user-stack-size bytes: the ring holds at
	 * least 128 of them (1 MB a CPU at 8 KB), since the reader unwinds
	 * each (~15 us) and shares the CPUs with the workload; 32 was seen
	 * to lose records under a 4-thread mutex storm on 2 CPUs.  The reader
	 * wakes at an eighth.
	 */
	size_t kb = o->ring_kb, min = (size_t)o->ustack_size * 128 / 1024;
	struct perf_event_attr attr;

	while (kb < min)
		kb *= 2;
	lock_collect__output_attr(&attr, kb * 1024 / 8);
	struct epoll_event ev = { .events = EPOLLIN };

	u->pb = perf_buffer__new_raw(bpf_map__fd(u->skel->maps.ubufs), kb / 4, &attr,
				     on_event, u, NULL);
	if (!u->pb)
		return -errno;
	lock_collect__output_attr(&attr, 0);
	u->wake = perf_buffer__new_raw(bpf_map__fd(u->skel->maps.uwake), 1, &attr,
				       on_event, u, NULL);
	if (!u->wake)
		return -errno;
	u->epfd = epoll_create1(EPOLL_CLOEXEC);
	u->quitfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	u->evfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (u->epfd < 0 || u->quitfd < 0 || u->evfd < 0 ||
	    epoll_ctl(u->epfd, EPOLL_CTL_ADD, perf_buffer__epoll_fd(u->pb), &ev) ||
	    epoll_ctl(u->epfd, EPOLL_CTL_ADD, perf_buffer__epoll_fd(u->wake), &ev) ||
	    epoll_ctl(u->epfd, EPOLL_CTL_ADD, u->quitfd, &ev))
		return -errno;
	/*
	 * The queue holds 8 times the kernel's buffers, at least 32 MB: held
	 * only while the unwinder is behind, given back as it catches up.
	 */
	long cpus = libbpf_num_possible_cpus();
	size_t limit = (size_t)kb * 1024 * 8 * (cpus > 0 ? (size_t)cpus : 1);

	u->q = recq__new(limit > (32U << 20) ? limit : 32U << 20);
	u->qbuf = malloc(1U << 16);	/* a perf record's size is 16 bits */
	return u->q && u->qbuf ? 0 : -ENOMEM;
}

static void kick(int fd)
{
	uint64_t one = 1;

	if (write(fd, &one, sizeof(one)) < 0) {
		/* EAGAIN: the counter is full, the reader is woken anyway. */
	}
}

/*
 * The drain thread only copies records, and what it is late for the
 * kernel's buffers lose: it runs 10 nice levels ahead of frugal and of the
 * workload, which inherits frugal's.  Measured with every CPU busy
 * (stress-ng --cpu 2, 2 CPUs) under a mutex storm: the longest a wake-up
 * waited for a CPU in a run was 28 ms at nice 0 (10 ms at the 90th
 * percentile of 60 runs), 4 ms at -10; the default buffer holds about
 * 20 ms of that storm's 8 KB stacks, and at nice 0 6 runs in 240 lost
 * records, at -10 none in 50.  Without the privilege, frugal's own
 * priority and a note.
 */
#define DRAIN_AHEAD	10

static void drain_ahead(void)
{
	id_t tid = (id_t)gettid();
	int ni;

	errno = 0;
	ni = getpriority(PRIO_PROCESS, tid);
	if (errno)
		return;
	ni = ni - DRAIN_AHEAD < -20 ? -20 : ni - DRAIN_AHEAD;
	if (setpriority(PRIO_PROCESS, tid, ni))
		cli_log("lock: -U: the reader of the buffers keeps frugal's priority: %s\n",
			strerror(errno));
}

/* The drain thread: each wake-up of the buffers, into the queue. */
static void *drain(void *arg)
{
	struct lock_ucollect *u = arg;
	struct epoll_event ev[4];
	int n;

	drain_ahead();
	while (!atomic_load(&u->quit) && !u->drain_err) {
		n = epoll_wait(u->epfd, ev, 4, -1);
		if (n < 0 && errno != EINTR) {
			u->drain_err = -errno;
			break;
		}
		if (atomic_load(&u->quit))
			break;
		/* New processes first: their names are taken before their waits'. */
		n = perf_buffer__consume(u->wake);
		n = n < 0 ? n : perf_buffer__consume(u->pb);
		if (n < 0 && !u->drain_err && !atomic_load(&u->quit))
			u->drain_err = n;
		kick(u->evfd);
	}
	atomic_store(&u->drained, true);
	kick(u->evfd);
	return NULL;
}

static int start_drain(struct lock_ucollect *u)
{
	sigset_t all, old;
	int err;

	/* Signals stay the main thread's. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	err = pthread_create(&u->drain, NULL, drain, u);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err)
		return -err;
	u->draining = true;
	return 0;
}

/* The records the drain thread queued, taken in order. */
static void take_queued(struct lock_ucollect *u)
{
	const struct perf_event_header *h = u->qbuf;
	ssize_t n;

	while (!u->err && (n = recq__pop(u->q, u->qbuf, 1U << 16)) > 0)
		if ((size_t)n >= sizeof(*h) && h->size == n)
			take(u, h);
}

/*
 * End the drain thread (the gate is closed: no record comes after what the
 * buffers hold), taking what it queues meanwhile so that it never waits
 * for room; then what is left in the buffers, read here.
 */
static int end_drain(struct lock_ucollect *u)
{
	struct pollfd p = { .fd = u->evfd, .events = POLLIN };
	uint64_t v;

	if (u->draining) {
		atomic_store(&u->quit, true);
		kick(u->quitfd);
		while (!atomic_load(&u->drained)) {
			take_queued(u);
			if (poll(&p, 1, 100) > 0 && read(u->evfd, &v, sizeof(v)) < 0) {
				/* EAGAIN: another read had it. */
			}
		}
		pthread_join(u->drain, NULL);
		u->draining = false;
	}
	u->inline_read = true;
	take_queued(u);
	if (u->err)
		return u->err;
	int n = perf_buffer__consume(u->wake);

	n = n < 0 ? n : perf_buffer__consume(u->pb);
	return u->err ?: n < 0 ? n : 0;
}

struct lock_ucollect *lock_ucollect__open(const struct lock_opts *o, struct bpf_map *targets,
					  struct bpf_map *cpus, struct bpf_map *cgroups,
					  uint32_t off_task_mm)
{
	struct lock_ucollect *u = calloc(1, sizeof(*u));
	struct futex_bpf *s;
	int err = -ENOMEM;

	if (!u)
		goto fail;
	u->o = o;
	u->epfd = u->quitfd = u->evfd = -1;
	u->tail_size = o->mode == LOCK_AGGR_CALLER ? o->max_stack * sizeof(uint64_t) :
		       o->mode == LOCK_AGGR_TASK ? LOCK_COMM_LEN :
		       o->mode == LOCK_AGGR_ADDR ? LOCK_SLAB_LEN : 0;
	u->def_size = (sizeof(struct udef) + u->tail_size + 7) & ~(size_t)7;
	u->st = lock_ustacks__new(o->debug_dir, o->stack_check);
	u->rec = malloc(sizeof(*u->rec));
	u->skel = s = futex_bpf__open();
	if (!u->st || !u->rec || !s) {
		err = -errno;
		goto fail;
	}
	s->rodata->ustack_size = o->ustack_size;
	s->rodata->do_nothing = o->floor;
	s->rodata->off_task_mm = off_task_mm;
	s->rodata->target_mode = o->target_mode;
	s->rodata->has_cpu = o->cpu_list != NULL;
	s->rodata->has_cgroup = o->nr_cgroups > 0;
	bpf_program__set_autoload(s->progs.futex_wait_enter, has_event("sys_enter_futex_wait"));
	bpf_program__set_autoload(s->progs.futex_wait_exit, has_event("sys_enter_futex_wait"));
	bpf_program__set_autoload(s->progs.futex_waitv_enter, has_event("sys_enter_futex_waitv"));
	bpf_program__set_autoload(s->progs.futex_waitv_exit, has_event("sys_enter_futex_waitv"));
	err = reuse(s->maps.targets, targets) ?: reuse(s->maps.cpus, cpus) ?:
	      reuse(s->maps.cgroups, cgroups);
	err = err ?: futex_bpf__load(s);
	err = err ?: open_buffers(u, o);
	err = err ?: attach(u);
	err = err ?: start_drain(u);
	if (err)
		goto fail;
	cli_log("lock: -U: futex programs attached (%u-byte stacks)\n", o->ustack_size);
	/* Never a network fetch of debug files from a profiler (libdw asks
	 * debuginfod when this is set). */
	unsetenv("DEBUGINFOD_URLS");
	return u;
fail:
	lock_ucollect__destroy(u);
	errno = -err;
	return NULL;
}

int lock_ucollect__fd(const struct lock_ucollect *u)
{
	return u->evfd;
}

static double thread_cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int lock_ucollect__consume(struct lock_ucollect *u, struct lock_table *t)
{
	double t0 = thread_cpu();
	int n;

	uint64_t v;

	u->table = t;
	if (read(u->evfd, &v, sizeof(v)) < 0) {
		/* EAGAIN: nothing new, or the queue was taken meanwhile. */
	}
	if (u->inline_read) {
		n = perf_buffer__consume(u->wake);
		n = n < 0 ? n : perf_buffer__consume(u->pb);
	} else {
		take_queued(u);
		n = u->drain_err;
	}
	u->unwind_s += thread_cpu() - t0;
	if (u->err)
		return u->err;
	return n < 0 ? n : 0;
}

static void read_stats(struct bpf_program *p, uint64_t *runs, uint64_t *ns)
{
	struct bpf_prog_info info;
	__u32 len = sizeof(info);

	if (!bpf_program__autoload(p))
		return;
	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(bpf_program__fd(p), &info, &len))
		return;
	*runs += info.run_cnt;
	*ns += info.run_time_ns;
}

static int read_counters(struct lock_ucollect *u, struct lock_accounting *a)
{
	struct futex_bpf *s = u->skel;
	size_t k;
	int err = lock_counters__read(bpf_map__fd(s->maps.ucounters), UL_NR, a->u);

	a->user = true;
	a->u_merged = u->merged;
	a->u_filtered = u->filtered;
	a->u_lost_records = u->lost_records;
	a->u_queue_peak = u->q ? recq__peak(u->q) : 0;
	a->u_unwind_s = u->unwind_s;
	a->u_open = a->u_unjoined = 0;
	for (k = 0; k < u->pend_cap; k++) {
		if (!u->pend[k].seq || u->pend[k].seq == PEND_DEL)
			continue;
		if (u->pend[k].state == P_BEGIN)
			a->u_open++;
		else
			a->u_unjoined++;
	}
	lock_ustacks__stats(u->st, &a->u_stacks, &a->u_frames, &a->u_shallow);
	lock_ustacks__walk_stats(u->st, &a->u_walked, &a->u_by_dwfl, &a->u_mismatches);
	a->u_begin_runs = a->u_begin_ns = a->u_end_runs = a->u_end_ns = 0;
	read_stats(s->progs.futex_enter, &a->u_begin_runs, &a->u_begin_ns);
	read_stats(s->progs.futex_wait_enter, &a->u_begin_runs, &a->u_begin_ns);
	read_stats(s->progs.futex_waitv_enter, &a->u_begin_runs, &a->u_begin_ns);
	read_stats(s->progs.futex_exit, &a->u_end_runs, &a->u_end_ns);
	read_stats(s->progs.futex_wait_exit, &a->u_end_runs, &a->u_end_ns);
	read_stats(s->progs.futex_waitv_exit, &a->u_end_runs, &a->u_end_ns);
	return err;
}

static uint64_t sub(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

int lock_ucollect__read(struct lock_ucollect *u, struct lock_table *t,
			struct lock_accounting *a)
{
	struct lock_accounting cur;
	int err = lock_ucollect__consume(u, t);
	int i;

	err = err ?: read_counters(u, a);
	if (err || !u->o->interval)
		return err;
	/* -I: what came since the last read; the open waits stay a level. */
	cur = *a;
	for (i = 0; i < UL_NR; i++)
		a->u[i] = sub(cur.u[i], u->prev.u[i]);
	a->u_merged = sub(cur.u_merged, u->prev.u_merged);
	a->u_filtered = sub(cur.u_filtered, u->prev.u_filtered);
	a->u_lost_records = sub(cur.u_lost_records, u->prev.u_lost_records);
	a->u_stacks = sub(cur.u_stacks, u->prev.u_stacks);
	a->u_frames = sub(cur.u_frames, u->prev.u_frames);
	a->u_shallow = sub(cur.u_shallow, u->prev.u_shallow);
	a->u_walked = sub(cur.u_walked, u->prev.u_walked);
	a->u_by_dwfl = sub(cur.u_by_dwfl, u->prev.u_by_dwfl);
	a->u_mismatches = sub(cur.u_mismatches, u->prev.u_mismatches);
	a->u_begin_runs = sub(cur.u_begin_runs, u->prev.u_begin_runs);
	a->u_begin_ns = sub(cur.u_begin_ns, u->prev.u_begin_ns);
	a->u_end_runs = sub(cur.u_end_runs, u->prev.u_end_runs);
	a->u_end_ns = sub(cur.u_end_ns, u->prev.u_end_ns);
	a->u_unwind_s = cur.u_unwind_s - u->prev.u_unwind_s;
	u->prev = cur;
	return 0;
}

static void detach(struct lock_ucollect *u)
{
	for (int i = 0; i < 6; i++) {
		bpf_link__destroy(u->links[i]);
		u->links[i] = NULL;
	}
}

/*
 * Releasing a syscall tracepoint's program waits for a tasks-trace RCU
 * grace period (those tracepoints may fault): 0.4-0.9 s here, and closing
 * the links from threads at once did not overlap the waits.  The gate is
 * closed by then (the programs return at once), so the last reference
 * goes to a grandchild that lets the kernel take its time, and frugal
 * exits without waiting.  It holds only this process's descriptors and
 * exits as soon as they are released.
 */
static void detach_behind(struct lock_ucollect *u)
{
	int p[2], i, any = 0;
	pid_t pid;
	char c;

	for (i = 0; i < 6; i++)
		any |= u->links[i] != NULL;
	if (!any || pipe(p))
		goto here;
	pid = fork();
	if (pid == 0) {
		if (fork() == 0) {
			/* The parent's copies are closed when the pipe is. */
			close(p[1]);
			while (read(p[0], &c, 1) < 0 && errno == EINTR)
				;
			_exit(0);
		}
		_exit(0);
	}
	close(p[0]);
	if (pid > 0)
		waitpid(pid, NULL, 0);
	for (i = 0; pid > 0 && i < 6; i++) {
		bpf_link__destroy(u->links[i]);
		u->links[i] = NULL;
	}
	futex_bpf__destroy(u->skel);
	u->skel = NULL;
	close(p[1]);
here:
	detach(u);
}

struct ucpu {
	uint64_t seq, in, out;	/* futex.bpf.c's struct ucpu */
};

/*
 * With `stopped` set: wait until every CPU's gate shows as many runs out as
 * in, up to ~1 s.  Newer kernels run the syscall tracepoints' programs
 * preemptibly (the tracepoints may fault), so a count, not a pass over the
 * CPUs (lib/cpus.c), says when none is in flight.  0, -ETIMEDOUT (then the links are closed), or -errno.
 */
static int gates_wait(int fd, size_t size, bool (*busy)(const void *cpu_value))
{
	int nr_cpus = libbpf_num_possible_cpus(), i, tries, any = 1;
	uint32_t zero = 0;
	char *v;

	if (nr_cpus < 0)
		return nr_cpus;
	v = calloc(nr_cpus, size);
	if (!v)
		return -ENOMEM;
	__sync_synchronize();
	for (tries = 0; any && tries < 20000; tries++) {
		if (tries)
			usleep(50);
		if (bpf_map_lookup_elem(fd, &zero, v)) {
			free(v);
			return -errno;
		}
		for (any = 0, i = 0; i < nr_cpus; i++)
			any |= busy(v + (size_t)i * size);
	}
	free(v);
	return any ? -ETIMEDOUT : 0;
}

static bool user_busy(const void *v)
{
	const struct ucpu *g = v;

	return g->in != g->out;
}

/* Close the gate (futex.bpf.c) and wait until no run is in flight. */
static int stop(struct lock_ucollect *u)
{
	int err;

	u->skel->bss->stopped = true;
	err = gates_wait(bpf_map__fd(u->skel->maps.ucpus), sizeof(struct ucpu), user_busy);
	if (err == -ETIMEDOUT)
		detach(u);
	return err == -ETIMEDOUT ? 0 : err;
}

int lock_ucollect__finish(struct lock_ucollect *u, struct lock_table *t,
			  struct lock_accounting *a)
{
	/* Detaching a tracepoint's program waits until no run of it is in
	 * flight: the counters and buffers are final after it. */
	uint64_t stacks, frames, shallow;
	int err;

	double t0;

	err = stop(u);
	u->table = t;
	t0 = thread_cpu();
	err = err ?: end_drain(u);
	u->unwind_s += thread_cpu() - t0;
	err = err ?: lock_ucollect__read(u, t, a);
	lock_ustacks__stats(u->st, &stacks, &frames, &shallow);
	cli_log("lock: -U: %llu user stacks unwound, %.1f ms of CPU for the records\n",
		(unsigned long long)stacks, u->unwind_s * 1e3);
	return err;
}

const struct lock_ustacks *lock_ucollect__stacks(const struct lock_ucollect *u)
{
	return u ? u->st : NULL;
}

void lock_ucollect__destroy(struct lock_ucollect *u)
{
	if (!u)
		return;
	if (u->draining) {
		atomic_store(&u->quit, true);
		recq__cancel(u->q);
		kick(u->quitfd);
		pthread_join(u->drain, NULL);
	}
	perf_buffer__free(u->pb);
	perf_buffer__free(u->wake);
	if (u->epfd >= 0)
		close(u->epfd);
	if (u->quitfd >= 0)
		close(u->quitfd);
	if (u->evfd >= 0)
		close(u->evfd);
	recq__free(u->q);
	free(u->qbuf);
	detach_behind(u);
	futex_bpf__destroy(u->skel);
	lock_ustacks__free(u->st);
	free(u->rec);
	free(u->pend);
	free(u->defs);
	free(u->def_slots);
	free(u);
}
