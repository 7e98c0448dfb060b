// SPDX-License-Identifier: GPL-2.0
/*
 * frugal lock serve: frugal lock always on.  The service listens first (a
 * wrong address or configuration is said before anything is loaded), then
 * the programs are loaded and, every --interval, the interval's rows are
 * read (the kernel's counts differenced, lock_collect__interval), named as
 * the report names them and handed to the service (lock/serve/), which
 * folds them into the series /metrics serves and into the profile windows
 * /debug/pprof/ serves.  SIGTERM or SIGINT ends it: the requests in flight
 * are answered, then everything is closed (no BPF object outlives the
 * process: nothing is pinned).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <linux/capability.h>

#include "cli/cli.h"
#include "lib/io.h"
#include "lib/ksyms.h"
#include "lock/cmd/serve_int.h"
#include "lock/kernel/kernel.h"
#include "lock/report/report.h"
#include "lock/request/request.h"
#include "lock/rows/rows.h"
#include "lock/serve/serve.h"

static volatile sig_atomic_t stop_signal;
static int wake_pipe[2] = { -1, -1 };

static void on_stop(int sig)
{
	int saved = errno;

	stop_signal = sig;
	if (wake_pipe[1] >= 0 && write(wake_pipe[1], "", 1) < 0) {
	}
	errno = saved;
}

/* SIGTERM and SIGINT end the service; a client gone mid-answer is no signal. */
static int install_signals(void)
{
	struct sigaction sa;

	if (pipe2(wake_pipe, O_CLOEXEC | O_NONBLOCK))
		return -errno;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	return 0;
}

int lock_serve_privileges(void)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2];
	const char *missing;
	uint64_t eff;

	if (syscall(SYS_capget, &hdr, data))
		return cli_err(NULL, "cannot read capabilities: %s", strerror(errno));
	eff = data[0].effective | (uint64_t)data[1].effective << 32;
	if (eff & (1ULL << CAP_SYS_ADMIN))
		return EXIT_OK;
	missing = !(eff & (1ULL << CAP_BPF)) && !(eff & (1ULL << CAP_PERFMON)) ?
		  "CAP_BPF and CAP_PERFMON" : !(eff & (1ULL << CAP_BPF)) ? "CAP_BPF" :
		  !(eff & (1ULL << CAP_PERFMON)) ? "CAP_PERFMON" : NULL;
	if (!missing)
		return EXIT_OK;
	return cli_err(NULL, "missing %s: grant the service CAP_BPF and CAP_PERFMON (systemd: "
		       "AmbientCapabilities=CAP_BPF CAP_PERFMON, as frugal-lock.service does; by "
		       "hand, as root: setpriv --reuid=USER --regid=GROUP --init-groups "
		       "--inh-caps=+bpf,+perfmon --ambient-caps=+bpf,+perfmon frugal lock serve)",
		       missing);
}

/* The service's log: one line each, on stderr (the journal, under systemd). */
static void log_line(void *ctx, const char *line)
{
	(void)ctx;
	fprintf(stderr, "frugal lock serve: %s\n", line);
}

struct serve {
	const struct lock_opts *o;
	struct lock_report_cfg rc;
	struct lock_serve_cfg sc;
	struct lock_filters filters;
	struct lock_collect_cfg cc;
	struct lock_service *svc;
	struct lock_collect *c;
	struct lock_table *t;
	struct utsname un;
	double t_tick;
	unsigned int ticks;
	struct lock_hist hist[LOCK_HIST_TYPES];	/* the kernel's, last read */
};

/*
 * The wait-time histogram's buckets as exported: the kernel's powers of
 * two of ns (lock.h) merged into every third one, 2^9 ns (512 ns) to 2^30
 * ns (1.07 s), then +Inf: nine buckets a lock type, each eight times the
 * last, from a spinlock's short waits to a mutex held across I/O.
 */
#define HIST_FIRST	9
#define HIST_STEP	3

/*
 * The kernel's histogram, read after the interval's rows and handed to
 * the service before them (so a type's count is never below its
 * contentions in a scrape): by lock type name, the types that share a
 * name summed, buckets merged and cumulative; a type with no wait yet is
 * not exported.  0 or -errno.
 */
static int feed_hist(struct serve *s)
{
	uint64_t bounds[LOCK_HIST_BUCKETS], cum[LOCK_HIST_BUCKETS], c[LOCK_HIST_BUCKETS];
	uint64_t sum_ns, run;
	uint32_t t, u;
	size_t n;
	int b, err = lock_collect__wait_hist(s->c, s->hist);

	for (t = 0; t < LOCK_HIST_TYPES && !err; t++) {
		const char *name = lock_type_name(t);

		for (u = 0; u < t && strcmp(lock_type_name(u), name); u++)
			;
		if (u < t)
			continue;	/* summed under its name already */
		memset(c, 0, sizeof(c));
		sum_ns = run = 0;
		for (u = t; u < LOCK_HIST_TYPES; u++) {
			if (strcmp(lock_type_name(u), name))
				continue;
			sum_ns += s->hist[u].sum_ns;
			for (b = 0; b < LOCK_HIST_BUCKETS; b++)
				c[b] += s->hist[u].count[b];
		}
		for (n = 0, b = 0; b < LOCK_HIST_BUCKETS; b++) {
			run += c[b];
			if (b == LOCK_HIST_BUCKETS - 1)
				bounds[n] = UINT64_MAX;
			else if (b >= HIST_FIRST && (b - HIST_FIRST) % HIST_STEP == 0)
				bounds[n] = 1ULL << b;
			else
				continue;
			cum[n++] = run;
		}
		if (run)
			err = lock_service__histogram(s->svc, name, bounds, cum, n, sum_ns);
	}
	return err;
}

/* One tick: the interval read, named, handed to the service.  An exit code. */
static int tick(struct serve *s)
{
	struct lock_table *next = lock_table__new(s->rc.row_frames), *m = NULL;
	struct lock_run_info ri = { 0 };
	struct lock_accounting a;
	struct ksyms *ks = NULL;
	double now = cli_now();
	int err;

	if (!next)
		return cli_err(NULL, "out of memory");
	err = lock_collect__interval(s->c, s->t, &a);
	if (err) {
		lock_table__free(next);
		return cli_err(NULL, "reading results: %s", strerror(-err));
	}
	err = feed_hist(s);
	if (err) {
		lock_table__free(next);
		return cli_err(NULL, "reading the wait histogram: %s", strerror(-err));
	}
	if (lock_table__len(s->t))
		ks = lock_report_syms(&s->rc, s->t);
	m = ks && lock_report_merges(&s->rc) ? lock_report_merged(&s->rc, s->t, ks) : s->t;
	ri.attach = lock_collect__path(s->c);
	ri.ustacks = lock_collect__ustacks(s->c);
	ri.seconds = now - s->t_tick;
	ri.interval = ++s->ticks;
	ri.kernel = s->un.release;
	err = m ? lock_service__tick(s->svc, m, &a, &ri, ks) : -ENOMEM;
	if (m != s->t)
		lock_table__free(m);
	ksyms__free(ks);
	lock_table__free(s->t);
	s->t = next;
	s->t_tick = now;
	return err ? cli_err(NULL, "folding an interval: %s", strerror(-err)) : EXIT_OK;
}

static void drain(int fd)
{
	char buf[64];

	while (io__read(fd, buf, sizeof(buf)) > 0)
		;
}

/* Ticks until a signal (or -d).  An exit code. */
static int loop(struct serve *s)
{
	double start = cli_now(), step = s->sc.interval, next = start + step;
	int n, err;

	s->t_tick = start;
	while (!stop_signal) {
		double now = cli_now(), left = next - now;

		if (s->o->duration && now - start >= s->o->duration)
			break;
		if (left <= 0) {
			err = tick(s);
			if (err)
				return err;
			next += step;
			if (next <= now)	/* a slow tick: skip ahead, never burst */
				next = now + step;
			continue;
		}
		n = lock_collect__poll(s->c, s->t, left < 0.1 ? (int)(left * 1000) + 1 : 100,
				       wake_pipe, 1);
		if (n < 0)
			return cli_err(NULL, "reading the overflow ring: %s", strerror(-n));
		if (n & 1)
			drain(wake_pipe[0]);
	}
	return EXIT_OK;
}

/* Listen, load, tick.  An exit code. */
static int serve(struct serve *s)
{
	char why[512];
	int err;

	s->svc = lock_service__new(&s->sc, &s->rc, log_line, NULL);
	if (!s->svc)
		return cli_err(NULL, "out of memory");
	err = lock_service__listen(s->svc, why, sizeof(why));
	if (err == -EPERM || err == -EINVAL)
		return cli_usage_err("%s", why);
	if (err)
		return cli_err(NULL, "%s", why);
	err = lock_filters__resolve(&s->filters, s->o);
	if (err)
		return err;
	lock_collect_cfg__build(&s->cc, s->o, &s->filters, 0);
	s->cc.wait_hist = true;		/* frugal_lock_wait_duration_seconds */
	s->t = lock_table__new(s->rc.row_frames);
	if (!s->t)
		return cli_err(NULL, "out of memory");
	s->c = lock_collect__open(&s->cc);
	if (!s->c)
		return cli_err(NULL, "loading BPF: %s%s", strerror(errno),
			       errno == EPERM ? " (missing privileges?)" : "");
	cli_log("lock serve: attached with %s; a tick every %g s\n", lock_collect__path(s->c),
		s->sc.interval);
	return loop(s);
}

int lock_serve_run(const struct lock_opts *o)
{
	struct serve s = { .o = o };
	int ret;

	if (install_signals())
		return cli_err(NULL, "signals: %s", strerror(errno));
	uname(&s.un);
	lock_report_cfg__build(&s.rc, o, false);
	lock_serve_cfg__build(&s.sc, o);
	ret = serve(&s);
	if (stop_signal)
		log_line(NULL, stop_signal == SIGTERM ? "SIGTERM: stopping" : "SIGINT: stopping");
	/* The requests in flight first: a profile window is answered with what it has. */
	lock_service__stop(s.svc);
	lock_collect__destroy(s.c);
	lock_service__free(s.svc);
	lock_table__free(s.t);
	lock_filters__free(&s.filters);
	return ret;
}
