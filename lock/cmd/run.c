// SPDX-License-Identifier: GPL-2.0
/*
 * frugal lock [options] [-- command [args...]]: perf lock contention's
 * flags and report, from BPF, with nothing lost.  This file runs it: the
 * privileges, the command (forked, started once we are attached), the
 * signals, the loop that merges overflow records until the end, then the
 * report.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/capability.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#include "lib/io.h"
#include "lib/ksyms.h"
#include "lock/cmd/serve_int.h"
#include "lock/cmd/top_int.h"
#include "lock/kernel/kernel.h"
#include "lock/lock_cmd.h"
#include "lock/out/out.h"
#include "lock/report/report.h"
#include "lock/request/request.h"
#include "lock/rows/rows.h"

static volatile sig_atomic_t stop_signal;
static volatile sig_atomic_t child_exited;
/* Signal handlers write a byte here so a wait that is about to start wakes. */
static int wake_pipe[2] = { -1, -1 };

static void wake(void)
{
	int saved = errno;

	/* If the pipe is full, a wake-up is pending anyway. */
	if (wake_pipe[1] >= 0 && write(wake_pipe[1], "", 1) < 0) {
	}
	errno = saved;
}

static void on_stop(int sig)
{
	stop_signal = sig;
	wake();
}

static void on_child(int sig)
{
	(void)sig;
	child_exited = 1;
	wake();
}

static void install_signals(void)
{
	struct sigaction sa;

	if (wake_pipe[0] < 0 && pipe2(wake_pipe, O_CLOEXEC | O_NONBLOCK))
		wake_pipe[0] = wake_pipe[1] = -1;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sa.sa_handler = on_child;
	sigaction(SIGCHLD, &sa, NULL);
}

/* CAP_BPF and CAP_PERFMON, or CAP_SYS_ADMIN which implies both. */
static int check_privileges(void)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2];
	uint64_t eff;

	if (syscall(SYS_capget, &hdr, data))
		return cli_err(NULL, "cannot read capabilities: %s", strerror(errno));
	eff = data[0].effective | (uint64_t)data[1].effective << 32;
	if (eff & (1ULL << CAP_SYS_ADMIN))
		return 0;
	if (!(eff & (1ULL << CAP_BPF)) && !(eff & (1ULL << CAP_PERFMON)))
		return cli_err(NULL, "missing CAP_BPF and CAP_PERFMON (run as root)");
	if (!(eff & (1ULL << CAP_BPF)))
		return cli_err(NULL, "missing CAP_BPF (run as root)");
	if (!(eff & (1ULL << CAP_PERFMON)))
		return cli_err(NULL, "missing CAP_PERFMON (run as root)");
	return 0;
}

/*
 * A kernel without what this run needs is refused in one line, before
 * anything is opened (-v adds what was probed).  FRUGAL_VMLINUX_BTF names
 * a BTF file read instead of the kernel's: tests/lock/kernel.sh's stand-in
 * for an older kernel.
 */
static int check_kernel(const struct lock_opts *o)
{
	struct lock_caps k;
	char why[256];

	lock_caps__probe(&k, getenv("FRUGAL_VMLINUX_BTF"), o);
	return lock_caps__missing(&k, o, why, sizeof(why)) ? cli_err(NULL, "%s", why) : EXIT_OK;
}

struct run {
	double t0;			/* when frugal started, for -v's timings */
	struct lock_hist hist[LOCK_HIST_TYPES];	/* --histogram: the kernel's, last read */
	const struct lock_opts *o;	/* the request, as parsed */
	struct lock_filters filters;	/* -L, -S, -G resolved */
	struct lock_report_cfg rc;	/* the report's configuration */
	struct lock_report_cfg view;	/* top: rc with the sort its keys chose */
	struct lock_collect_cfg cc;	/* the collector's, once the command is forked */
	char **cmd;			/* the command to run, or NULL */
	pid_t child;
	int go_fd;			/* the child starts when a byte comes */
	int status;			/* the child's, from waitpid */
	bool child_done;
	double seconds;			/* of the run, or of the interval (-I) */
	double t_interval;		/* -I: when the interval began */
	double t_cut;			/* -I: the wall clock just before the
					 * interval's counts were taken */
	unsigned int interval;		/* -I: the last interval reported */
	struct lock_sinks sinks;	/* the files the report goes to */
	struct utsname un;
	char cmdline[256];
	/* frugal lock top: the terminal, and the last interval (a key redraws it) */
	struct lock_top top;
	bool quit;			/* q: the user's choice, exit 0 */
	struct lock_table *last;
	struct lock_accounting last_acct;
	struct lock_run_info last_ri;
	struct ksyms *last_ks;
};

/* A command that cannot be run is refused before anything is loaded. */
static bool command_exists(const char *cmd)
{
	const char *path = getenv("PATH"), *p;
	char buf[4096];

	if (strchr(cmd, '/'))
		return !access(cmd, X_OK);
	for (p = path ? path : "/usr/bin:/bin"; ; p += strcspn(p, ":") + 1) {
		size_t n = strcspn(p, ":");

		snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, n ? p : ".", cmd);
		if (!access(buf, X_OK))
			return true;
		if (!p[n])
			return false;
	}
}

/* Fork the command; it waits on a pipe until we are attached.  0 or -errno. */
static int fork_command(struct run *r)
{
	int p[2], err;
	char c;

	if (pipe2(p, O_CLOEXEC))
		return -errno;
	r->child = fork();
	if (r->child < 0) {
		err = -errno;
		close(p[0]);
		close(p[1]);
		return err;
	}
	if (r->child == 0) {
		close(p[1]);
		if (io__read_full(p[0], &c, 1) != 1)
			_exit(EXIT_RUNTIME);	/* we failed to start: go quietly */
		execvp(r->cmd[0], r->cmd);
		cli_err(r->cmd[0], "%s", errno == ENOENT ? "command not found" : strerror(errno));
		_exit(errno == ENOENT ? EXIT_CMD_NOT_FOUND : EXIT_CMD_CANNOT_RUN);
	}
	close(p[0]);
	r->go_fd = p[1];
	return 0;
}

/*
 * Without -a or -C, the command and what it starts are the target; with
 * them, the command only sets how long we look.  An exit code.
 */
static int start_command(struct run *r)
{
	int err;

	if (!command_exists(r->cmd[0])) {
		cli_err(r->cmd[0], "command not found");
		return EXIT_CMD_NOT_FOUND;
	}
	err = fork_command(r);
	if (err)
		return cli_err(NULL, "fork: %s", strerror(-err));
	return EXIT_OK;
}

/* Attached: let the command go.  An exit code. */
static int release_command(struct run *r)
{
	int err = 0;

	if (r->go_fd < 0)
		return EXIT_OK;
	err = io__write_full(r->go_fd, "g", 1);
	close(r->go_fd);
	r->go_fd = -1;
	return err ? cli_err(NULL, "starting the command: %s", strerror(-err)) : EXIT_OK;
}

/* The command, if it still runs, is ended; its status is kept. */
static void stop_command(struct run *r)
{
	if (r->go_fd >= 0)
		close(r->go_fd);
	r->go_fd = -1;
	if (r->child > 0 && !r->child_done) {
		kill(r->child, SIGTERM);
		if (waitpid(r->child, &r->status, 0) == r->child)
			r->child_done = true;
	}
}

/* frugal's exit status: the command's when there is one, as a shell gives it. */
static int exit_status_of(const struct run *r)
{
	if (!r->cmd)
		return EXIT_OK;
	if (WIFEXITED(r->status))
		return WEXITSTATUS(r->status);
	if (WIFSIGNALED(r->status))
		return 128 + WTERMSIG(r->status);
	return EXIT_RUNTIME;
}

static bool targets_alive(const struct lock_collect_cfg *cc)
{
	unsigned int i;

	for (i = 0; i < cc->nr_targets; i++)
		if (!kill(cc->targets[i], 0) || errno == EPERM)
			return true;
	return false;
}

static int report(struct run *r, struct lock_collect *c, struct lock_table *t,
		  struct lock_accounting *a);
static bool needs_ksyms(const struct lock_report_cfg *rc, size_t rows);
static int report_rows(const struct lock_report_cfg *rc, struct lock_table *t, struct ksyms *ks,
		       struct lock_table **rows);
static void run_info(struct run *r, struct lock_collect *c, struct lock_run_info *ri);

/* -I: the interval's report, then a fresh table for the next.  An exit code. */
static int report_interval(struct run *r, struct lock_collect *c, struct lock_table **tp)
{
	struct lock_table *next = lock_table__new(r->rc.row_frames);
	struct lock_accounting a;
	int err;

	if (!next)
		return cli_err(NULL, "out of memory");
	err = lock_collect__interval(c, *tp, &a);
	if (err) {
		lock_table__free(next);
		return cli_err(NULL, "reading results: %s", strerror(-err));
	}
	err = report(r, c, *tp, &a);
	lock_table__free(*tp);
	*tp = next;
	return err;
}

/* The live view's screen, from the last interval read. */
static int top_draw(struct run *r)
{
	int err = lock_top__draw(&r->top, &r->view, r->last, &r->last_acct, &r->last_ri, r->last_ks);

	return err ? cli_err(NULL, "drawing: %s", strerror(-err)) : EXIT_OK;
}

/* frugal lock top: read the interval, keep it (a key redraws it), draw it. */
static int top_interval(struct run *r, struct lock_collect *c, struct lock_table **tp)
{
	struct lock_table *next = lock_table__new(r->rc.row_frames), *shown;
	int err;

	if (!next)
		return cli_err(NULL, "out of memory");
	err = lock_collect__interval(c, *tp, &r->last_acct);
	if (err) {
		lock_table__free(next);
		return cli_err(NULL, "reading results: %s", strerror(-err));
	}
	lock_table__free(r->last);
	ksyms__free(r->last_ks);
	r->last = *tp;
	*tp = next;
	r->last_ks = needs_ksyms(&r->view, lock_table__len(r->last)) ?
		     lock_report_syms(&r->view, r->last) : NULL;
	if (report_rows(&r->view, r->last, r->last_ks, &shown))
		return cli_err(NULL, "out of memory");
	if (shown != r->last) {
		lock_table__free(r->last);
		r->last = shown;
	}
	run_info(r, c, &r->last_ri);
	return top_draw(r);
}

static void drain(int fd)
{
	char buf[64];

	while (io__read(fd, buf, sizeof(buf)) > 0)
		;
}

/* The wall clock, in seconds since the epoch. */
static double wall_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Collect until a signal, the duration, the command's end or the targets',
 * with -I reporting every interval on the way.  An exit code.
 */
static int collect_loop(struct run *r, struct lock_collect *c, struct lock_table **tp)
{
	double start = cli_now(), tick = r->o->interval, next = start + tick;
	int fds[2] = { wake_pipe[0], STDIN_FILENO };
	int n, err;

	r->t_interval = start;
	while (!stop_signal) {
		double now = cli_now(), left = r->o->duration ? r->o->duration - (now - start) : 0.1;

		if (left <= 0)
			break;
		if (tick && now >= next) {
			r->seconds = now - r->t_interval;
			r->t_interval = now;
			r->t_cut = wall_now();
			err = r->o->top ? top_interval(r, c, tp) : report_interval(r, c, tp);
			if (err)
				return err;
			next += tick;
			if (next <= now)	/* a slow report: skip ahead, never burst */
				next = now + tick;
			continue;
		}
		if (tick && next - now < left)
			left = next - now;
		n = lock_collect__poll(c, *tp, left < 0.1 ? (int)(left * 1000) + 1 : 100,
				       fds, r->o->top ? 2 : 1);
		if (n < 0)
			return cli_err(NULL, "reading the overflow ring: %s", strerror(-n));
		if (n & 1)
			drain(wake_pipe[0]);
		if (n & 2) {
			n = lock_top__keys(&r->top, &r->view.sort);
			if (n == LOCK_TOP_QUIT) {
				r->quit = true;
				break;
			}
			if (n == LOCK_TOP_REDRAW && r->last) {
				err = top_draw(r);
				if (err)
					return err;
			}
		}
		if (r->child > 0 && child_exited &&
		    waitpid(r->child, &r->status, WNOHANG) == r->child) {
			r->child_done = true;
			break;
		}
		if (r->cc.target_mode == LOCK_TARGET_TGID && !r->child && !targets_alive(&r->cc))
			break;
	}
	r->seconds = cli_now() - (tick ? r->t_interval : start);
	r->t_cut = wall_now();
	return 0;
}

/* The rows the report shows: T, or its rows merged (lock_report_merges),
 * a new table the caller frees.  0 or -ENOMEM. */
static int report_rows(const struct lock_report_cfg *rc, struct lock_table *t, struct ksyms *ks,
		       struct lock_table **rows)
{
	*rows = ks && lock_report_merges(rc) ? lock_report_merged(rc, t, ks) : t;
	return *rows ? 0 : -ENOMEM;
}

static bool needs_ksyms(const struct lock_report_cfg *rc, size_t rows)
{
	return rows && (rc->mode == LOCK_AGGR_CALLER || rc->mode == LOCK_AGGR_ADDR ||
			rc->verbose_stacks);
}

/* What the report says of the run (or of the interval, with -I). */
static void run_info(struct run *r, struct lock_collect *c, struct lock_run_info *ri)
{
	int i;

	memset(ri, 0, sizeof(*ri));
	uname(&r->un);
	r->cmdline[0] = '\0';
	for (i = 0; r->cmd && r->cmd[i]; i++)
		snprintf(r->cmdline + strlen(r->cmdline), sizeof(r->cmdline) - strlen(r->cmdline),
			 "%s%s", i ? " " : "", r->cmd[i]);
	ri->attach = lock_collect__path(c);
	if (r->o->owner) {
		bool rel = lock_collect__at_release(c);

		ri->owner_at = rel ? "release" : "begin";
		ri->owner_why = rel ? "lock:contended_release" :
				r->o->owner_at == LOCK_OWNER_AT_BEGIN ? "--owner-at begin" :
				"this kernel has no lock:contended_release";
	}
	ri->ustacks = lock_collect__ustacks(c);
	ri->seconds = r->seconds;
	if (r->o->interval) {
		ri->interval = ++r->interval;
		ri->time = r->t_cut;
	}
	ri->kernel = r->un.release;
	ri->command = r->cmd ? r->cmdline : NULL;
	ri->exit_status = exit_status_of(r);
	if (r->o->histogram) {
		int err = lock_collect__wait_hist(c, r->hist);

		if (err)
			cli_log("lock: the wait histogram: %s\n", strerror(-err));
		else
			ri->wait_hist = r->hist;
	}
}

static int report(struct run *r, struct lock_collect *c, struct lock_table *t,
		  struct lock_accounting *a)
{
	struct lock_table *m = NULL;
	struct lock_run_info ri;
	struct ksyms *ks = NULL;
	const char *failed;
	int err;

	/* Symbols only now, and only those the report names. */
	if (needs_ksyms(&r->rc, lock_table__len(t))) {
		ks = lock_report_syms(&r->rc, t);
		if (!ks)
			cli_log("lock: no kernel symbols (%s): printing addresses\n",
				strerror(errno));
	}
	if (report_rows(&r->rc, t, ks, &m)) {
		ksyms__free(ks);
		return cli_err(NULL, "out of memory");
	}
	run_info(r, c, &ri);
	err = lock_report_all(&r->rc, &r->sinks, m, a, &ri, ks, &failed);
	if (m != t)
		lock_table__free(m);
	ksyms__free(ks);
	if (err)
		return cli_err(failed, "writing the report: %s", strerror(-err));
	return EXIT_OK;
}

/* The report's files, before anything runs: a name that cannot be written is said now. */
static int open_sinks(struct run *r)
{
	const char *failed = NULL;
	int err = lock_sinks__open(&r->sinks, &r->rc, &failed);

	return err ? cli_err(failed, "%s", strerror(-err)) : EXIT_OK;
}

/* Load and attach, start the command, collect, report.  An exit code. */
static int trace(struct run *r, struct lock_collect **cp, struct lock_table **tp)
{
	const struct lock_opts *o = r->o;
	struct lock_accounting a;
	double t_stop;
	int err;

	*tp = lock_table__new(r->rc.row_frames);
	if (!*tp)
		return cli_err(NULL, "out of memory");
	lock_collect_cfg__build(&r->cc, o, &r->filters, r->child);
	*cp = lock_collect__open(&r->cc);
	if (!*cp)
		return cli_err(NULL, "loading BPF: %s%s", strerror(errno),
			       errno == EPERM ? " (missing privileges?)" :
			       errno == ENOENT ? " (no contention_begin/end tracepoints?)" : "");
	cli_log("lock: attached with %s, %.1f ms after start%s\n", lock_collect__path(*cp),
		(cli_now() - r->t0) * 1e3,
		o->skip_nested ? "; one program per tracepoint" :
		"; two programs per tracepoint (--nested)");
	err = release_command(r);
	err = err ?: collect_loop(r, *cp, tp);
	if (err || o->top)
		return err;
	t_stop = cli_now();
	err = lock_collect__finish(*cp, *tp, &a);
	if (err)
		return cli_err(NULL, "reading results: %s", strerror(-err));
	cli_log("lock: results read in %.1f ms\n", (cli_now() - t_stop) * 1e3);
	t_stop = cli_now();
	err = report(r, *cp, *tp, &a);
	cli_log("lock: report in %.1f ms\n", (cli_now() - t_stop) * 1e3);
	return err;
}

static int run(struct run *r)
{
	struct lock_collect *c = NULL;
	struct lock_table *t = NULL;
	int ret;

	/* First: a SIGINT or SIGTERM from now on ends the run with a report.
	 * Before this, the inherited disposition applies (a shell without job
	 * control starts background commands with SIGINT ignored). */
	install_signals();
	lock_report_cfg__build(&r->rc, r->o, r->cmd != NULL);
	r->view = r->rc;
	ret = open_sinks(r);
	if (!ret && r->o->top && lock_top__start(&r->top, STDIN_FILENO))
		ret = cli_err(NULL, "top: the standard input is not a terminal");
	ret = ret ?: lock_filters__resolve(&r->filters, r->o);
	if (!ret && r->cmd)
		ret = start_command(r);
	if (!ret)
		ret = trace(r, &c, &t);
	lock_top__stop(&r->top);
	stop_command(r);
	lock_sinks__discard(&r->sinks);
	lock_table__free(r->last);
	ksyms__free(r->last_ks);
	if (!ret && !r->quit)
		ret = exit_status_of(r);
	lock_collect__destroy(c);
	lock_table__free(t);
	lock_filters__free(&r->filters);
	return ret;
}

int lock_main(int argc, char **argv)
{
	struct lock_opts o;
	struct run r = { .o = &o, .t0 = cli_now(), .go_fd = -1 };
	int idx, err;

	err = lock_opts__parse(&o, argc, argv, &idx);
	if (err)
		return err;
	if (o.help) {
		lock_opts__help(stdout);
		return EXIT_OK;
	}
	if (o.verbose_stacks && !o.quiet)
		cli_verbose = 1;
	if (idx < argc)
		r.cmd = argv + idx;
	cli_libbpf_logs();
	err = (o.serve ? lock_serve_privileges() : check_privileges()) ?: check_kernel(&o);
	if (err)
		return err;
	return o.serve ? lock_serve_run(&o) : run(&r);
}
