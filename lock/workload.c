// SPDX-License-Identifier: GPL-2.0
/*
 * frugal bench lock: real kernel lock contention on demand, for tests and
 * demos.  Threads of one process hammer mmap/mprotect/munmap, which take
 * the mm's mmap_lock for writing (rwsem:W); processes write one pipe, which
 * serialises on the pipe's mutex.  Every worker is created first and starts
 * at one instant (after --delay), so a tracer attached during the delay
 * sees every contention of the run.
 */
#include <errno.h>
#include <stdbool.h>
#include <getopt.h>
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
#include <sys/prctl.h>
#include <sys/wait.h>

#include "cli/cli.h"

#define BENCH_MAX_TASKS 4096

struct bench {
	unsigned long long threads, procs;
	double duration, delay, hold;
	struct timespec start, stop;	/* CLOCK_MONOTONIC */
	struct timespec leave;		/* stop + hold: when workers exit */
	int done[2];			/* a byte from each worker whose run is over */
};

/* This worker has stopped contending. */
static void worker_done(const struct bench *b)
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

static bool past(const struct timespec *t)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec > t->tv_sec ||
	       (now.tv_sec == t->tv_sec && now.tv_nsec >= t->tv_nsec);
}

static void wait_until(const struct timespec *t)
{
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, t, NULL) == EINTR)
		;
}

/* mmap_lock taken for writing three times per round. */
static void *mmap_worker(void *arg)
{
	const struct bench *b = arg;
	unsigned int n = 0;

	wait_until(&b->start);
	do {
		char *p = mmap(NULL, 65536, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			break;
		p[0] = 1;
		mprotect(p, 4096, PROT_READ);
		munmap(p, 65536);
	} while ((++n & 15) || !past(&b->stop));
	worker_done(b);
	wait_until(&b->leave);
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
	wait_until(&b->start);
	do {
		if (write(fd, buf, sizeof(buf)) < 0 && errno != EINTR)
			break;
	} while ((++n & 15) || !past(&b->stop));
	worker_done(b);
	wait_until(&b->leave);
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

static void usage(FILE *f)
{
	fputs("usage: frugal bench lock [-T THREADS] [-P PROCS] [-d SECS] [--delay SECS]\n\n"
	      "  -T, --threads N   threads hammering mmap/mprotect/munmap (mmap_lock; default 4)\n"
	      "  -P, --procs N     processes writing one pipe (pipe mutex; default 4)\n"
	      "  -d, --duration S  how long to contend (default 2)\n"
	      "      --delay S     create every worker, then wait S seconds before starting\n"
	      "      --hold S      after the run, keep every worker alive S more seconds\n", f);
}

static int parse(int argc, char **argv, struct bench *b)
{
	static const struct option lo[] = {
		{ "threads", required_argument, NULL, 'T' },
		{ "procs", required_argument, NULL, 'P' },
		{ "duration", required_argument, NULL, 'd' },
		{ "delay", required_argument, NULL, 'D' },
		{ "hold", required_argument, NULL, 'H' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":T:P:d:h", lo, NULL)) != -1) {
		switch (c) {
		case 'T':
			if (cli_parse_u64("-T", optarg, 0, BENCH_MAX_TASKS, &b->threads))
				return EXIT_USAGE;
			break;
		case 'P':
			if (cli_parse_u64("-P", optarg, 0, BENCH_MAX_TASKS, &b->procs))
				return EXIT_USAGE;
			break;
		case 'd':
			if (cli_parse_double("-d", optarg, 0.001, 3600, &b->duration))
				return EXIT_USAGE;
			break;
		case 'D':
			if (cli_parse_double("--delay", optarg, 0, 3600, &b->delay))
				return EXIT_USAGE;
			break;
		case 'H':
			if (cli_parse_double("--hold", optarg, 0, 3600, &b->hold))
				return EXIT_USAGE;
			break;
		case 'h':
			usage(stdout);
			return -1;
		case ':':
			return cli_usage_err("option '%s' needs a value", argv[optind - 1]);
		default:
			return cli_usage_err("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return cli_usage_err("unexpected argument '%s'", argv[optind]);
	if (!b->threads && !b->procs)
		return cli_usage_err("nothing to run: -T and -P are both 0");
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
		ms = (b->leave.tv_sec - now.tv_sec) * 1000LL +
		     (b->leave.tv_nsec - now.tv_nsec) / 1000000 + 1;
		if (ms <= 0 || poll(&p, 1, ms > INT_MAX ? INT_MAX : (int)ms) <= 0)
			return false;
		if (read(b->done[0], &c, 1) == 1)
			n--;
	}
	return true;
}

static int bench_lock(int argc, char **argv)
{
	struct bench b = { .threads = 4, .procs = 4, .duration = 2, .done = { -1, -1 } };
	pthread_t *tids = NULL;
	pid_t *pids = NULL;
	unsigned int npids = 0, i, nthreads = 0;
	int err, status;

	err = parse(argc, argv, &b);
	if (err)
		return err < 0 ? EXIT_OK : err;
	tids = calloc(b.threads + 1, sizeof(*tids));
	pids = calloc(b.procs + 1, sizeof(*pids));
	err = tids && pids ? 0 : cli_err(NULL, "out of memory");
	if (!err && pipe(b.done))
		err = cli_err("pipe", "%s", strerror(errno));
	if (err)
		goto out;
	clock_gettime(CLOCK_MONOTONIC, &b.start);
	/* Leave time to create everything before the start line. */
	ts_add(&b.start, b.delay + 0.2 + (b.threads + b.procs) * 0.002);
	b.stop = b.start;
	ts_add(&b.stop, b.duration);
	b.leave = b.stop;
	ts_add(&b.leave, b.hold);
	if (b.procs && (err = spawn_pipe(&b, pids, &npids)))
		goto out;
	for (i = 0; i < b.threads; i++) {
		err = pthread_create(&tids[i], NULL, mmap_worker, &b);
		if (err) {
			err = cli_err("pthread_create", "%s", strerror(err));
			goto out;
		}
		nthreads++;
	}
	/*
	 * Say when every worker has stopped contending (tests stop their
	 * tracers on this line, during --hold, rather than after a sleep).
	 */
	if (wait_done(&b, nthreads + (npids ? npids - 1 : 0)))
		fprintf(stderr, "frugal bench lock: run over\n");
out:
	for (i = 0; i < nthreads; i++)
		pthread_join(tids[i], NULL);
	/* The writers end on their own; the reader ends when they are gone. */
	for (i = 0; i < npids; i++)
		waitpid(pids[i], &status, 0);
	if (!err)
		fprintf(stderr, "frugal bench lock: %llu mmap threads, %llu pipe writers, %.2f s\n",
			b.threads, b.procs, b.duration);
	if (b.done[0] >= 0) {
		close(b.done[0]);
		close(b.done[1]);
	}
	free(tids);
	free(pids);
	return err;
}

int cmd_bench(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		fputs("usage: frugal bench lock [options]   (see 'frugal bench lock --help')\n",
		      argc < 2 ? stderr : stdout);
		return argc < 2 ? EXIT_USAGE : EXIT_OK;
	}
	if (!strcmp(argv[1], "lock"))
		return bench_lock(argc - 1, argv + 1);
	return cli_usage_err("unknown benchmark '%s'", argv[1]);
}
