// SPDX-License-Identifier: GPL-2.0
/*
 * frugal bench lock: real kernel lock contention on demand, for tests and
 * demos.  Threads of one process hammer mmap/mprotect/munmap, which take
 * the mm's mmap_lock for writing (rwsem:W); processes write one pipe, which
 * serialises on the pipe's mutex.  Every worker is created first and starts
 * at one instant (after --delay), so a tracer attached during the delay
 * sees every contention of the run; with --start-on-usr1 they start when
 * the bench is sent SIGUSR1, once it has said it is ready (a tracer's
 * test starts the run once its tracers are attached, not after a sleep it
 * hopes is long enough).  --owner adds a lock whose owner is known
 * (lock/workload_owner.c).
 */
#include <errno.h>
#include <stdbool.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sched.h>
#include <limits.h>
#include <poll.h>
#include <sys/mman.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "lib/io.h"
#include "lib/iodir.h"
#include "lock/lock_cmd.h"
#include "lock/workload/workload_int.h"

#define BENCH_MAX_TASKS 4096

/* This worker has stopped contending. */
void bench_worker_done(const struct bench *b)
{
	if (write(b->done[1], "", 1) < 0) {
		/* The bench then never says "run over"; nothing else depends on it. */
	}
}

static void ts_add(struct timespec *ts, double s)
{
	long long ns = ts->tv_nsec + (long long)(s * 1e9);

	ts->tv_sec += ns / 1000000000;
	ts->tv_nsec = ns % 1000000000;
}

bool bench_past(const struct timespec *t)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec > t->tv_sec ||
	       (now.tv_sec == t->tv_sec && now.tv_nsec >= t->tv_nsec);
}

void bench_wait_until(const struct timespec *t)
{
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, t, NULL) == EINTR)
		;
}

/*
 * A worker's start: with --start-on-usr1, the gate first (a read that
 * returns when the bench closes the pipe's last write end, after setting
 * the clock), then the common start instant.
 */
void bench_start_line(const struct bench *b)
{
	char c;

	if (b->on_usr1)
		while (read(b->gate[0], &c, 1) < 0 && errno == EINTR)
			;
	bench_wait_until(&b->clk->start);
}

/* mmap_lock taken for writing three times per round. */
static void *mmap_worker(void *arg)
{
	const struct bench *b = arg;
	unsigned int n = 0;

	bench_start_line(b);
	do {
		char *p = mmap(NULL, 65536, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			break;
		p[0] = 1;
		mprotect(p, 4096, PROT_READ);
		munmap(p, 65536);
	} while ((++n & 15) || !bench_past(&b->clk->stop));
	bench_worker_done(b);
	bench_wait_until(&b->clk->leave);
	return NULL;
}

/*
 * --pthread: user-space contention for -U.  Threads take one pthread mutex,
 * hold it ~2 us, and work ~2 us outside it: the lock is the bottleneck and
 * most takes wait in the kernel (glibc's default mutex does not spin).
 */
#define PT_HOLD_NS	2000
#define PT_WORK_NS	2000

static void spin_ns(long ns)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do
		clock_gettime(CLOCK_MONOTONIC, &t);
	while ((t.tv_sec - t0.tv_sec) * 1000000000L + t.tv_nsec - t0.tv_nsec < ns);
}

__attribute__((noinline)) static void pthread_locked_work(struct bench *b)
{
	pthread_mutex_lock(&b->mutex);
	spin_ns(PT_HOLD_NS);
	b->mutex_ops++;
	pthread_mutex_unlock(&b->mutex);
}

static void *pthread_worker(void *arg)
{
	struct bench *b = arg;

	prctl(PR_SET_NAME, "pthread-worker");
	bench_start_line(b);
	do {
		pthread_locked_work(b);
		spin_ns(PT_WORK_NS);
	} while (!bench_past(&b->clk->stop));
	bench_worker_done(b);
	bench_wait_until(&b->clk->leave);
	return NULL;
}

/* Spread workers over the CPUs: contention needs them to run at once. */
static void pin(unsigned int i)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	cpu_set_t set;

	if (n < 2)
		return;
	CPU_ZERO(&set);
	CPU_SET(i % n, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

/*
 * Writers and one reader of a shared pipe: its mutex.  Writes of 16 KB
 * keep the mutex held long enough (a copy of four pages) for writers on
 * other CPUs to find it taken.
 */
static void pipe_writer(const struct bench *b, int fd, unsigned int i)
{
	static char buf[16384];
	unsigned int n = 0;

	pin(i);
	memset(buf, 'x', sizeof(buf));
	bench_start_line(b);
	do {
		if (write(fd, buf, sizeof(buf)) < 0 && errno != EINTR)
			break;
	} while ((++n & 15) || !bench_past(&b->clk->stop));
	bench_worker_done(b);
	bench_wait_until(&b->clk->leave);
	_exit(0);
}

static void pipe_reader(int fd)
{
	char buf[65536];

	while (read(fd, buf, sizeof(buf)) > 0)
		;
	_exit(0);
}

/*
 * A worker must not outlive the bench: when a tracer stops the bench with a
 * signal, its processes would go on contending until the end of -d.
 */
static void die_with_parent(pid_t parent)
{
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
		_exit(1);
}

/* A forked worker keeps no write end of the gate: its EOF needs them all closed. */
static void close_gate_writer(const struct bench *b)
{
	if (b->gate[1] >= 0)
		close(b->gate[1]);
}

static int spawn_pipe(const struct bench *b, pid_t *pids, unsigned int *npids)
{
	pid_t parent = getpid();
	int p[2];
	unsigned long long i;
	pid_t pid;

	if (pipe(p))
		return cli_err("pipe", "%s", strerror(errno));
	pid = fork();
	if (pid == 0) {
		die_with_parent(parent);
		close(p[1]);
		close_gate_writer(b);
		pipe_reader(p[0]);
	}
	if (pid < 0)
		goto fail;
	pids[(*npids)++] = pid;
	for (i = 0; i < b->procs; i++) {
		pid = fork();
		if (pid == 0) {
			die_with_parent(parent);
			close(p[0]);
			close_gate_writer(b);
			pipe_writer(b, p[1], i);
		}
		if (pid < 0)
			goto fail;
		pids[(*npids)++] = pid;
	}
	close(p[0]);
	close(p[1]);
	return 0;
fail:
	close(p[0]);
	close(p[1]);
	return cli_err("fork", "%s", strerror(errno));
}

enum { OPT_DELAY = CLI_OPT_LONG, OPT_HOLD, OPT_OWNER, OPT_PTHREAD, OPT_USR1, OPT_PAUSE,
       OPT_HPAUSE, OPT_HHOLD };

const struct cli_opt lock_bench_cli_opts[] = {
	{ "threads", 'T', required_argument, "N", "threads hammering mmap/mprotect/munmap (mmap_lock; default 4)" },
	{ "procs", 'P', required_argument, "N", "processes writing one pipe (pipe mutex; default 4)" },
	{ "duration", 'd', required_argument, "SECS", "how long to contend (default 2)" },
	{ "delay", OPT_DELAY, required_argument, "SECS", "create every worker, then wait SECS seconds before starting" },
	{ "start-on-usr1", OPT_USR1, no_argument, NULL, "create every worker, say 'ready', start when sent SIGUSR1 (not after --delay)" },
	{ "hold", OPT_HOLD, required_argument, "SECS", "after the run, keep every worker alive SECS more seconds" },
	{ "owner", OPT_OWNER, required_argument, "N", "also a 'holder' thread holding a file's inode lock, N 'waiter' threads" },
	{ "waiter-pause", OPT_PAUSE, required_argument, "SECS", "--owner: a waiter's pause between its writes (default 0.001; 0: none)" },
	{ "holder-hold", OPT_HHOLD, required_argument, "SECS", "--owner: the holder writes a page whose copy faults (userfaultfd), the lock held SECS until the bench answers" },
	{ "holder-pause", OPT_HPAUSE, required_argument, "SECS", "--owner: the holder's pause between its writes (default 0), so that it waits to take the lock again" },
	{ "pthread", OPT_PTHREAD, required_argument, "N", "also N threads on one pthread mutex (user-space contention, for -U)" },
	{ "help", 'h', no_argument, NULL, "this help" },
	{ NULL, 0, 0, NULL, NULL },
};

static int parse_one(void *ctx, int c, const char *arg)
{
	struct bench *b = ctx;

	switch (c) {
	case 'T': return cli_parse_u64("-T", arg, 0, BENCH_MAX_TASKS, &b->threads);
	case 'P': return cli_parse_u64("-P", arg, 0, BENCH_MAX_TASKS, &b->procs);
	case 'd': return cli_parse_double("-d", arg, 0.001, 3600, &b->duration);
	case OPT_DELAY: return cli_parse_double("--delay", arg, 0, 3600, &b->delay);
	case OPT_HOLD: return cli_parse_double("--hold", arg, 0, 3600, &b->hold);
	case OPT_OWNER: return cli_parse_u64("--owner", arg, 0, BENCH_MAX_TASKS, &b->owner);
	case OPT_PAUSE: return cli_parse_double("--waiter-pause", arg, 0, 1, &b->waiter_pause);
	case OPT_HPAUSE: return cli_parse_double("--holder-pause", arg, 0, 1, &b->holder_pause);
	case OPT_HHOLD: return cli_parse_double("--holder-hold", arg, 0.001, 1, &b->holder_hold);
	case OPT_USR1: b->on_usr1 = true; return 0;
	case OPT_PTHREAD: return cli_parse_u64("--pthread", arg, 0, BENCH_MAX_TASKS, &b->pthreads);
	case 'h': b->help = true; return CLI_OPTS_STOP;
	}
	return 0;
}

/* The command line into B: 0 (with b->help for -h), or EXIT_USAGE once the reason is printed. */
static int parse(int argc, char **argv, struct bench *b)
{
	int next, err;

	err = cli_opts__parse(lock_bench_cli_opts, argc, argv, 0, parse_one, b, &next);
	if (err || b->help)
		return err;
	if (next < argc)
		return cli_usage_err("unexpected argument '%s'", argv[next]);
	if (!b->threads && !b->procs && !b->owner && !b->pthreads)
		return cli_usage_err("nothing to run: -T, -P, --owner and --pthread are all 0");
	return 0;
}

/* Wait for N workers' bytes, but never past the end of --hold (a worker
 * killed by someone else never writes).  True when all came. */
static bool wait_done(const struct bench *b, unsigned int n)
{
	struct pollfd p = { .fd = b->done[0], .events = POLLIN };
	struct timespec now;
	char c;

	while (n) {
		long long ms;

		clock_gettime(CLOCK_MONOTONIC, &now);
		ms = (b->clk->leave.tv_sec - now.tv_sec) * 1000LL +
		     (b->clk->leave.tv_nsec - now.tv_nsec) / 1000000 + 1;
		if (ms <= 0 || poll(&p, 1, ms > INT_MAX ? INT_MAX : (int)ms) <= 0)
			return false;
		if (read(b->done[0], &c, 1) == 1)
			n--;
	}
	return true;
}

/*
 * --start-on-usr1: is task TID of PID asleep in the gate's read, waiting
 * for data (its wchan [anon_]pipe_read), past the pipe's mutex?  A worker still
 * contending on that mutex when a tracer attaches would end a wait whose
 * begin the tracer never saw.  Unknown (no wchan) counts as yes.
 */
static bool task_gated(pid_t pid, const char *tid)
{
	char path[64], buf[32];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/task/%s/wchan", (int)pid, tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return true;
	n = io__read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return true;
	buf[n] = 0;
	/* pipe_read; anon_pipe_read on newer kernels (6.18 has it) */
	return strstr(buf, "pipe_read") || !strcmp(buf, "0");
}

/*
 * Is task TID of PID parked where a worker ends, blocked in clock_nanosleep
 * (until --hold is over) or, the pipe reader, in read?  A worker's done byte
 * is in the pipe before its write returns: it may still be in that write's
 * tail (waking the reader) when the bench says "run over".
 */
static bool task_parked(pid_t pid, const char *tid, bool gate)
{
	char path[64], buf[32];
	ssize_t n;
	long nr;
	int fd;

	if (gate)
		return task_gated(pid, tid);
	snprintf(path, sizeof(path), "/proc/%d/task/%s/syscall", (int)pid, tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT;	/* gone: it contends no more */
	n = io__read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = 0;
	nr = strtol(buf, NULL, 10);
	return strncmp(buf, "running", 7) && (nr == SYS_clock_nanosleep || nr == SYS_read);
}

/* Every task of PID but SELF parked (GATE: at the gate)?  An unreadable
 * /proc counts as yes. */
static bool tasks_parked(pid_t pid, pid_t self, bool gate)
{
	struct iodir d;
	struct iodir_entry e;
	char path[32];
	bool all = true;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	if (iodir__open(&d, AT_FDCWD, path))
		return true;
	while (all && iodir__next(&d, &e, false) > 0)
		if (atoi(e.name) != self)
			all = task_parked(pid, e.name, gate);
	iodir__close(&d);
	return all;
}

/*
 * Wait until every worker thread and process is parked, so that a tracer
 * stopped on "run over" misses nothing and sees nothing more; never past
 * --hold.  True when all are.
 */
static bool wait_all(const pid_t *pids, unsigned int npids, bool gate,
		     const struct timespec *until)
{
	struct timespec tick = { 0, 1000000 };
	pid_t self = (pid_t)syscall(SYS_gettid);
	unsigned int i;

	while (!bench_past(until)) {
		bool all = tasks_parked(getpid(), self, gate);

		for (i = 0; all && i < npids; i++)
			all = tasks_parked(pids[i], 0, gate);
		if (all)
			return true;
		nanosleep(&tick, NULL);
	}
	return false;
}

static bool wait_parked(const struct bench *b, const pid_t *pids, unsigned int npids)
{
	return wait_all(pids, npids, false, &b->clk->leave);
}

/*
 * --start-on-usr1: wait (30 s at most) until every worker sleeps at the
 * gate, so that a tracer attached on "ready" finds no wait open.  True
 * when all do.
 */
static bool wait_gated(const pid_t *pids, unsigned int npids)
{
	struct timespec until;

	clock_gettime(CLOCK_MONOTONIC, &until);
	ts_add(&until, 30);
	return wait_all(pids, npids, true, &until);
}

/* The run's instants: the start SECS from now, then -d, then --hold. */
static void clock_set(struct bench_clock *c, double secs, double duration, double hold)
{
	clock_gettime(CLOCK_MONOTONIC, &c->start);
	ts_add(&c->start, secs);
	c->stop = c->start;
	ts_add(&c->stop, duration);
	c->leave = c->stop;
	ts_add(&c->leave, hold);
}

/* --start-on-usr1: the clock set (a run of -d, or none), then the gate
 * opened: every worker's read of it returns. */
static void gate_open(struct bench *b, double secs, bool run)
{
	clock_set(b->clk, secs, run ? b->duration : 0, run ? b->hold : 0);
	close(b->gate[1]);
	b->gate[1] = -1;
}

/* --start-on-usr1: the signal, blocked in every task, taken here. */
static int wait_usr1(void)
{
	const struct timespec cap = { 3600, 0 };
	sigset_t set;
	int sig;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	do
		sig = sigtimedwait(&set, NULL, &cap);
	while (sig < 0 && errno == EINTR);
	return sig == SIGUSR1 ? 0 : cli_err("--start-on-usr1", "no SIGUSR1 in %ld s", (long)cap.tv_sec);
}

/*
 * The workers, in the order they start: the mmap threads, --owner's holder
 * and waiters (and --holder-hold's fault resolver), --pthread's threads.
 * Started into TIDS from *N on; 0, or an exit code once said (the threads
 * started are counted in *N, to be joined).
 */
static int start_threads(struct bench *b, pthread_t *tids, unsigned int *n)
{
	const struct {
		unsigned long long n;
		void *(*fn)(void *);
	} groups[] = {
		{ b->threads, mmap_worker },
		{ b->owner ? 1 : 0, bench_holder },
		{ b->owner, bench_waiter },
		{ b->upage ? 1 : 0, bench_resolver },
		{ b->pthreads, pthread_worker },
	};
	unsigned long long i;
	size_t g;
	int err;

	for (g = 0; g < sizeof(groups) / sizeof(groups[0]); g++)
		for (i = 0; i < groups[g].n; i++) {
			err = pthread_create(&tids[*n], NULL, groups[g].fn, b);
			if (err)
				return cli_err("pthread_create", "%s", strerror(err));
			(*n)++;
		}
	return 0;
}

/* B's shared state: the pipes, the clock, --owner's file and page; 0 or an exit code once said. */
static int setup(struct bench *b)
{
	int err = 0;

	pthread_mutex_init(&b->mutex, NULL);
	if (pipe(b->done))
		err = cli_err("pipe", "%s", strerror(errno));
	if (!err && b->on_usr1 && pipe(b->gate))
		err = cli_err("pipe", "%s", strerror(errno));
	b->clk = mmap(NULL, sizeof(*b->clk), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		      -1, 0);
	if (b->clk == MAP_FAILED) {
		b->clk = NULL;
		if (!err)
			err = cli_err("mmap", "%s", strerror(errno));
	}
	if (!err && b->owner)
		err = bench_owner_setup(b);
	if (err)
		return err;
	if (b->on_usr1) {
		/* Blocked before any task exists: every one inherits the mask. */
		sigset_t set;

		sigemptyset(&set);
		sigaddset(&set, SIGUSR1);
		pthread_sigmask(SIG_BLOCK, &set, NULL);
	} else {
		/* Leave time to create everything before the start line. */
		clock_set(b->clk, b->delay + 0.2 +
			  (b->threads + b->procs + b->owner + b->pthreads) * 0.002,
			  b->duration, b->hold);
	}
	return 0;
}

/* What the run says at the end, then B's shared state given back. */
static void finish(struct bench *b, int err)
{
	if (!err)
		fprintf(stderr, "frugal bench lock: %llu mmap threads, %llu pipe writers, "
			"%llu waiters on a holder, %llu pthread threads (%llu mutex ops), %.2f s\n",
			b->threads, b->procs, b->owner, b->pthreads, b->mutex_ops, b->duration);
	/* A row keyed by the holder's id may carry the name it had before it
	 * named itself (frugal keeps a task's first comm): tests match its id. */
	if (!err && b->owner) {
		fprintf(stderr, "frugal bench lock: the holder is thread %d\n", (int)b->holder_tid);
		bench_owner_timing(b);
	}
	if (b->done[0] >= 0) {
		close(b->done[0]);
		close(b->done[1]);
	}
	if (b->gate[0] >= 0)
		close(b->gate[0]);
	if (b->clk)
		munmap(b->clk, sizeof(*b->clk));
	bench_owner_free(b);
}

int lock_bench_main(int argc, char **argv)
{
	struct bench b = { .threads = 4, .procs = 4, .duration = 2, .waiter_pause = 0.001,
			   .done = { -1, -1 }, .gate = { -1, -1 }, .memfd = -1, .ufd = -1 };
	pthread_t *tids = NULL;
	pid_t *pids = NULL;
	unsigned int npids = 0, i, nthreads = 0;
	int err, status;

	err = parse(argc, argv, &b);
	if (err || b.help) {
		if (b.help) {
			fputs("usage: frugal bench lock [options]\n\n"
			      "Real kernel lock contention, for tests and demos.\n\n", stdout);
			cli_opts__help(stdout, lock_bench_cli_opts);
		}
		return err;
	}
	tids = calloc(b.threads + (b.owner ? b.owner + 2 : 0) + b.pthreads + 1, sizeof(*tids));
	pids = calloc(b.procs + 1, sizeof(*pids));
	err = tids && pids ? setup(&b) : cli_err(NULL, "out of memory");
	if (!err && b.procs)
		err = spawn_pipe(&b, pids, &npids);
	err = err ?: start_threads(&b, tids, &nthreads);
	if (err)
		goto out;
	if (b.on_usr1) {
		if (!wait_gated(pids, npids))
			fprintf(stderr, "frugal bench lock: not every worker reached the gate in 30 s\n");
		fprintf(stderr, "frugal bench lock: ready, %u threads and %u processes\n",
			nthreads, npids);
		err = wait_usr1();
		if (err)
			goto out;
		gate_open(&b, 0.05, true);
	}
	/*
	 * Say when every worker has stopped contending and is parked (tests
	 * stop their tracers on this line, during --hold, rather than after a
	 * sleep).
	 */
	if (wait_done(&b, nthreads + (npids ? npids - 1 : 0)) && wait_parked(&b, pids, npids)) {
		/* Said before "run over", on which tests stop (and kill us). */
		bench_owner_timing(&b);
		fprintf(stderr, "frugal bench lock: run over\n");
	}
out:
	/* Workers still at the gate pass it into a run that is already over. */
	if (b.gate[1] >= 0)
		gate_open(&b, 0, false);
	for (i = 0; i < nthreads; i++)
		pthread_join(tids[i], NULL);
	/* The writers end on their own; the reader ends when they are gone. */
	for (i = 0; i < npids; i++)
		waitpid(pids[i], &status, 0);
	finish(&b, err);
	free(tids);
	free(pids);
	return err;
}
