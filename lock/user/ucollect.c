// SPDX-License-Identifier: GPL-2.0
/*
 * -U's collector: the futex programs (futex.bpf.c) loaded beside the
 * kernel's, on the same targets, CPUs and cgroups (their maps, by fd), and
 * their records handed to the join (ujoin.c) that makes them rows.
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
#include "lib/recq.h"
#include "lib/tracefs.h"
#include "lock/request/request.h"
#include "lock/rows/rows.h"
#include "lock/user/ucollect_int.h"
#include "lock/user/user.h"
#include "lock/user/futex.skel.h"

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
		lock_ujoin__take(u, h);
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
		u->links[i] = lock_perf__attach_tp(order[i]);
		if (!u->links[i])
			return -errno;
	}
	return 0;
}

static bool has_event(const char *name)
{
	return tracefs__has_event("syscalls", name) > 0;
}

static int open_buffers(struct lock_ucollect *u, const struct lock_collect_cfg *cfg)
{
	/*
	 * A begin carries up to --user-stack-size bytes: the ring holds at
	 * least 128 of them (1 MB a CPU at 8 KB), since the reader unwinds
	 * each (~15 us) and shares the CPUs with the workload; 32 was seen
	 * to lose records under a 4-thread mutex storm on 2 CPUs.  The reader
	 * wakes at an eighth.
	 */
	size_t kb = cfg->ring_kb, min = (size_t)cfg->ustack_size * 128 / 1024;
	struct perf_event_attr attr;

	while (kb < min)
		kb *= 2;
	lock_perf__output_attr(&attr, kb * 1024 / 8);
	struct epoll_event ev = { .events = EPOLLIN };

	u->pb = perf_buffer__new_raw(bpf_map__fd(u->skel->maps.ubufs), kb / 4, &attr,
				     on_event, u, NULL);
	if (!u->pb)
		return -errno;
	lock_perf__output_attr(&attr, 0);
	u->wake = perf_buffer__new_raw(bpf_map__fd(u->skel->maps.uwake), 1, &attr,
				       on_event, u, NULL);
	if (!u->wake)
		return -errno;
	u->epfd = epoll_create1(EPOLL_CLOEXEC);
	u->quitfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	u->evfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	u->pokefd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (u->epfd < 0 || u->quitfd < 0 || u->evfd < 0 || u->pokefd < 0 ||
	    epoll_ctl(u->epfd, EPOLL_CTL_ADD, perf_buffer__epoll_fd(u->pb), &ev) ||
	    epoll_ctl(u->epfd, EPOLL_CTL_ADD, perf_buffer__epoll_fd(u->wake), &ev) ||
	    epoll_ctl(u->epfd, EPOLL_CTL_ADD, u->quitfd, &ev) ||
	    epoll_ctl(u->epfd, EPOLL_CTL_ADD, u->pokefd, &ev))
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
	sem_post(u->started);
	while (!atomic_load(&u->quit) && !u->drain_err) {
		unsigned int poke;
		uint64_t v;

		n = epoll_wait(u->epfd, ev, 4, -1);
		if (n < 0 && errno != EINTR) {
			u->drain_err = -errno;
			break;
		}
		if (atomic_load(&u->quit))
			break;
		/* Read before the pass: what was written before a poke is in it. */
		poke = atomic_load(&u->poke);
		if (read(u->pokefd, &v, sizeof(v)) < 0) {
			/* EAGAIN: woken by the buffers, not poked */
		}
		/* New processes first: their names are taken before their waits'. */
		n = perf_buffer__consume(u->wake);
		n = n < 0 ? n : perf_buffer__consume(u->pb);
		if (n < 0 && !u->drain_err && !atomic_load(&u->quit))
			u->drain_err = n;
		atomic_store(&u->poked, poke);
		kick(u->evfd);
	}
	atomic_store(&u->drained, true);
	kick(u->evfd);
	return NULL;
}

static int start_drain(struct lock_ucollect *u)
{
	sigset_t all, old;
	sem_t started;
	int err;

	/*
	 * Signals stay the main thread's.  The thread is ahead before this
	 * returns: the workload, started next, never runs before the reader
	 * of its buffers has its priority.
	 */
	if (sem_init(&started, 0, 0))
		return -errno;
	u->started = &started;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	err = pthread_create(&u->drain, NULL, drain, u);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!err) {
		u->draining = true;
		while (sem_wait(&started) && errno == EINTR)
			;
	}
	u->started = NULL;
	sem_destroy(&started);
	return -err;
}

/* The records the drain thread queued, taken in order. */
static void take_queued(struct lock_ucollect *u)
{
	const struct perf_event_header *h = u->qbuf;
	ssize_t n;

	while (!u->err && (n = recq__pop(u->q, u->qbuf, 1U << 16)) > 0)
		if ((size_t)n >= sizeof(*h) && h->size == n)
			lock_ujoin__take(u, h);
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

struct lock_ucollect *lock_ucollect__open(const struct lock_collect_cfg *cfg,
					  struct bpf_map *targets, struct bpf_map *cpus,
					  struct bpf_map *cgroups, uint32_t off_task_mm)
{
	struct lock_ucollect *u = calloc(1, sizeof(*u));
	struct futex_bpf *s;
	int err = -ENOMEM;

	if (!u)
		goto fail;
	lock_ujoin__init(u, cfg);
	u->epfd = u->quitfd = u->evfd = u->pokefd = -1;
	u->st = lock_ustacks__new(cfg->debug_dir, cfg->stack_check);
	u->rec = malloc(sizeof(*u->rec));
	u->skel = s = futex_bpf__open();
	if (!u->st || !u->rec || !s) {
		err = -errno;
		goto fail;
	}
	s->rodata->ustack_size = cfg->ustack_size;
	s->rodata->do_nothing = cfg->floor;
	s->rodata->off_task_mm = off_task_mm;
	s->rodata->target_mode = cfg->target_mode;
	s->rodata->has_cpu = cfg->has_cpu;
	s->rodata->has_cgroup = cfg->f.nr_cgroups > 0;
	bpf_program__set_autoload(s->progs.futex_wait_enter, has_event("sys_enter_futex_wait"));
	bpf_program__set_autoload(s->progs.futex_wait_exit, has_event("sys_enter_futex_wait"));
	bpf_program__set_autoload(s->progs.futex_waitv_enter, has_event("sys_enter_futex_waitv"));
	bpf_program__set_autoload(s->progs.futex_waitv_exit, has_event("sys_enter_futex_waitv"));
	err = reuse(s->maps.targets, targets) ?: reuse(s->maps.cpus, cpus) ?:
	      reuse(s->maps.cgroups, cgroups);
	err = err ?: futex_bpf__load(s);
	err = err ?: open_buffers(u, cfg);
	err = err ?: attach(u);
	err = err ?: start_drain(u);
	if (err)
		goto fail;
	cli_log("lock: -U: futex programs attached (%u-byte stacks)\n", cfg->ustack_size);
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

int lock_ucollect__consume(struct lock_ucollect *u, struct lock_table *t)
{
	double t0 = lock_thread_cpu();
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
	u->unwind_s += lock_thread_cpu() - t0;
	if (u->err)
		return u->err;
	return n < 0 ? n : 0;
}

static int read_counters(struct lock_ucollect *u, struct lock_accounting *a)
{
	struct futex_bpf *s = u->skel;
	int err = lock_counters__read(bpf_map__fd(s->maps.ucounters), UL_NR, a->u);

	a->user = true;
	a->u_merged = u->merged;
	a->u_filtered = u->filtered;
	a->u_lost_records = u->lost_records;
	a->u_queue_peak = u->q ? recq__peak(u->q) : 0;
	a->u_unwind_s = u->unwind_s;
	lock_ujoin__pending(u, &a->u_open, &a->u_unjoined);
	lock_ustacks__stats(u->st, &a->u_stacks, &a->u_frames, &a->u_shallow);
	lock_ustacks__walk_stats(u->st, &a->u_walked, &a->u_by_dwfl, &a->u_mismatches);
	a->u_begin_runs = a->u_begin_ns = a->u_end_runs = a->u_end_ns = 0;
	lock_prog__stats(s->progs.futex_enter, &a->u_begin_runs, &a->u_begin_ns, NULL);
	lock_prog__stats(s->progs.futex_wait_enter, &a->u_begin_runs, &a->u_begin_ns, NULL);
	lock_prog__stats(s->progs.futex_waitv_enter, &a->u_begin_runs, &a->u_begin_ns, NULL);
	lock_prog__stats(s->progs.futex_exit, &a->u_end_runs, &a->u_end_ns, NULL);
	lock_prog__stats(s->progs.futex_wait_exit, &a->u_end_runs, &a->u_end_ns, NULL);
	lock_prog__stats(s->progs.futex_waitv_exit, &a->u_end_runs, &a->u_end_ns, NULL);
	return err;
}

/*
 * An interval's read: the drain thread makes a pass over the buffers,
 * below their mark too, and its records are taken meanwhile (it never
 * waits for room in the queue).  Bounded: a drain thread that ended or
 * failed answers nothing.
 */
static void sync_drain(struct lock_ucollect *u)
{
	struct pollfd p = { .fd = u->evfd, .events = POLLIN };
	unsigned int want = atomic_fetch_add(&u->poke, 1) + 1;
	uint64_t v;
	int i;

	kick(u->pokefd);
	for (i = 0; i < 100 && !atomic_load(&u->drained) && !u->drain_err; i++) {
		take_queued(u);
		if ((int)(atomic_load(&u->poked) - want) >= 0)
			break;
		if (poll(&p, 1, 50) > 0 && read(u->evfd, &v, sizeof(v)) < 0) {
			/* EAGAIN: another read had it */
		}
	}
}

int lock_ucollect__read(struct lock_ucollect *u, struct lock_table *t,
			struct lock_accounting *a)
{
	int err;

	if (u->draining) {
		double t0 = lock_thread_cpu();

		u->table = t;
		sync_drain(u);
		u->unwind_s += lock_thread_cpu() - t0;
	}
	err = lock_ucollect__consume(u, t);

	return err ?: read_counters(u, a);
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
	t0 = lock_thread_cpu();
	err = err ?: end_drain(u);
	u->unwind_s += lock_thread_cpu() - t0;
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
	if (u->pokefd >= 0)
		close(u->pokefd);
	recq__free(u->q);
	free(u->qbuf);
	detach_behind(u);
	futex_bpf__destroy(u->skel);
	lock_ustacks__free(u->st);
	free(u->rec);
	lock_ujoin__free(u);
	free(u);
}
