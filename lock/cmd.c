// SPDX-License-Identifier: GPL-2.0
/*
 * frugal lock [options] [-- command [args...]]: perf lock contention's
 * flags and report, from BPF, with nothing lost.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/capability.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#include <bpf/libbpf.h>

#include "cli/cli.h"
#include "lib/ksyms.h"
#include "lock/lock_int.h"

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

enum {
	OPT_TID = 256, OPT_MAX_STACK, OPT_STACK_SKIP, OPT_JSON, OPT_RING, OPT_RAW_TP,
	OPT_NO_WALK, OPT_STACK_CHECK, OPT_FLOOR,
};

/* Options, with the help beside each. */
static const struct {
	struct option lo;
	const char *arg, *help;
} opt_table[] = {
	{ { "all-cpus", no_argument, NULL, 'a' }, NULL, "system-wide (default without a command)" },
	{ { "pid", required_argument, NULL, 'p' }, "PID,..", "processes (all their threads)" },
	{ { "tid", required_argument, NULL, OPT_TID }, "TID,..", "threads" },
	{ { "cpu", required_argument, NULL, 'C' }, "LIST", "CPUs, e.g. 0,2-3" },
	{ { "duration", required_argument, NULL, 'd' }, "SECS", "stop after SECS seconds" },
	{ { "threads", no_argument, NULL, 't' }, NULL, "aggregate by task" },
	{ { "lock-addr", no_argument, NULL, 'l' }, NULL, "aggregate by lock" },
	{ { "lock-cgroup", no_argument, NULL, 'g' }, NULL, "aggregate by cgroup" },
	{ { "key", required_argument, NULL, 'k' }, "KEY", "sort: contended, wait_total (default), wait_max, wait_min, avg_wait" },
	{ { "field", required_argument, NULL, 'F' }, "LIST", "columns: contended,wait_total,wait_max,wait_min,avg_wait" },
	{ { "entries", required_argument, NULL, 'E' }, "N", "print the first N rows" },
	{ { "field-separator", required_argument, NULL, 'x' }, "SEP", "CSV with SEP, raw nanoseconds" },
	{ { "json", no_argument, NULL, OPT_JSON }, NULL, "one JSON object: rows, accounting, metadata" },
	{ { "verbose", no_argument, NULL, 'v' }, NULL, "call stack under each row; log what was probed" },
	{ { "max-stack", required_argument, NULL, OPT_MAX_STACK }, "N", "frames per stack (default 8 with -v, else 4: enough to name the caller)" },
	{ { "stack-skip", required_argument, NULL, OPT_STACK_SKIP }, "N", "frames skipped at the top (default: the tracing frames)" },
	{ { "type-filter", required_argument, NULL, 'Y' }, "TYPES", "spinlock, rwlock[:R|:W], rwsem[:R|:W], mutex, rt-mutex, percpu-rwsem, semaphore" },
	{ { "lock-filter", required_argument, NULL, 'L' }, "ADDRS", "lock addresses or kernel symbols" },
	{ { "callstack-filter", required_argument, NULL, 'S' }, "SYMS", "keep stacks with a symbol containing one of SYMS" },
	{ { "map-nr-entries", required_argument, NULL, 'M' }, "N", "kernel table size (default 16384)" },
	{ { "ring-size", required_argument, NULL, OPT_RING }, "KB", "overflow buffer per CPU, power of two (default 128)" },
	{ { "use-bpf", no_argument, NULL, 'b' }, NULL, "accepted for perf compatibility (always BPF)" },
	{ { "raw-tp", no_argument, NULL, OPT_RAW_TP }, NULL, "skip tp_btf, use raw tracepoints" },
	{ { "no-stack-walk", no_argument, NULL, OPT_NO_WALK }, NULL, "unwind every stack (no learned walk)" },
	{ { "floor", no_argument, NULL, OPT_FLOOR }, NULL, "attach programs that do nothing (the cost floor, for benchmarks)" },
	{ { "stack-check", no_argument, NULL, OPT_STACK_CHECK }, NULL, "walk and unwind every stack, count differences" },
	{ { "help", no_argument, NULL, 'h' }, NULL, "this help" },
};
#define NR_OPTS (sizeof(opt_table) / sizeof(opt_table[0]))

static void usage(FILE *f)
{
	size_t i;

	fputs("usage: frugal lock [options] [-- command [args...]]\n\n"
	      "Kernel lock contention, aggregated in BPF; nothing lost, every drop counted.\n\n", f);
	for (i = 0; i < NR_OPTS; i++) {
		char left[48];
		int c = opt_table[i].lo.val;

		snprintf(left, sizeof(left), "%c%c%c --%s%s%s", c < 256 ? '-' : ' ',
			 c < 256 ? c : ' ', c < 256 ? ',' : ' ', opt_table[i].lo.name,
			 opt_table[i].arg ? " " : "", opt_table[i].arg ? opt_table[i].arg : "");
		fprintf(f, "  %-32s %s\n", left, opt_table[i].help);
	}
}

/* -p, --tid: the ids of the last one given (as for every other option). */
static int parse_list_u32(const char *opt, const char *arg, struct lock_opts *o)
{
	char buf[4096], *tok, *save = NULL;
	unsigned long long v;

	o->nr_targets = 0;
	if (strlen(arg) >= sizeof(buf))
		return cli_usage_err("%s: list too long", opt);
	strcpy(buf, arg);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (o->nr_targets >= LOCK_MAX_TARGETS)
			return cli_usage_err("%s: more than %d ids", opt, LOCK_MAX_TARGETS);
		if (cli_parse_u64(opt, tok, 1, 0x3fffffff, &v))
			return EXIT_USAGE;
		o->targets[o->nr_targets++] = v;
	}
	return o->nr_targets ? 0 : cli_usage_err("%s: empty list", opt);
}

static int parse_fields(const char *arg, unsigned int *fields)
{
	static const char *names[] = { "contended", "wait_total", "wait_max",
				       "wait_min", "avg_wait" };
	const char *p = arg;
	size_t i, n;

	*fields = 0;
	while (*p) {
		n = strcspn(p, ",");
		for (i = 0; i < 5; i++)
			if (strlen(names[i]) == n && !strncmp(p, names[i], n))
				break;
		if (i == 5)
			return cli_usage_err("-F: unknown field '%.*s'", (int)n, p);
		*fields |= 1U << i;
		p += n + (p[n] == ',');
	}
	return *fields ? 0 : cli_usage_err("-F: empty list");
}

static int parse_key(const char *arg, enum lock_sort *key)
{
	static const char *names[] = { "contended", "wait_total", "wait_max",
				       "wait_min", "avg_wait" };
	int i;

	for (i = 0; i < 5; i++)
		if (!strcmp(arg, names[i])) {
			*key = i;
			return 0;
		}
	return cli_usage_err("-k: unknown key '%s'", arg);
}

int lock_cpu_list_parse(const char *list, unsigned char *set, int nr_cpus)
{
	const char *p = list;
	char *end;

	while (*p) {
		unsigned long a, b;

		/* strtoul would skip blanks and take a sign: only digits here. */
		if (!isdigit((unsigned char)*p))
			return -EINVAL;
		errno = 0;
		a = strtoul(p, &end, 10);
		if (end == p || errno)
			return -EINVAL;
		b = a;
		if (*end == '-') {
			p = end + 1;
			if (!isdigit((unsigned char)*p))
				return -EINVAL;
			b = strtoul(p, &end, 10);
			if (end == p || errno || b < a)
				return -EINVAL;
		}
		if (b >= (unsigned long)nr_cpus)
			return -ERANGE;
		for (; a <= b; a++)
			set[a] = 1;
		if (*end && *end != ',')
			return -EINVAL;
		p = *end ? end + 1 : end;
	}
	return 0;
}

/*
 * What was not given follows from what was.  Unwinding is most of the cost
 * of an event (~100 ns a frame), so without -v or -S only the frames that
 * name the caller are taken.  Before the checks: --stack-skip alone must
 * fit beside the default depth.
 */
static void default_max_stack(struct lock_opts *o)
{
	if (!o->max_stack)
		o->max_stack = o->verbose_stacks || o->callstack_arg ? 8 : 4;
	o->user_max_stack = o->max_stack;
}

/*
 * Above the locking code sit the BPF program's own frame, then one or two
 * of the tracepoint's (bpf_trace_run2, and __traceiter_* unless the
 * unwinder does not see it): skip the first, keep two more, and let the
 * report drop those it recognises by name.
 */
static void default_stack_skip(struct lock_opts *o)
{
	if (o->stack_skip == (unsigned int)-1) {
		o->stack_skip = 1;
		o->max_stack += LOCK_MACHINERY_FRAMES;
		o->strip_machinery = true;
	}
}

static int check_options(struct lock_opts *o, int nmodes, bool have_cmd)
{
	int nr_cpus = libbpf_num_possible_cpus();
	unsigned char set[4096];

	if (nmodes > 1)
		return cli_usage_err("-t, -l and -g cannot be combined");
	if (o->json && o->csv_sep)
		return cli_usage_err("--json and -x cannot be combined");
	if (o->pid_arg && o->tid_arg)
		return cli_usage_err("-p and --tid cannot be combined");
	if (o->system_wide && (o->pid_arg || o->tid_arg))
		return cli_usage_err("-a cannot be combined with -p or --tid");
	if (have_cmd && (o->pid_arg || o->tid_arg))
		return cli_usage_err("a command cannot be combined with -p or --tid");
	if (o->csv_sep && !*o->csv_sep)
		return cli_usage_err("-x: empty separator");
	if (o->ring_kb & (o->ring_kb - 1))
		return cli_usage_err("--ring-size: %u is not a power of two", o->ring_kb);
	if (o->cpu_list && (nr_cpus > 4096 || nr_cpus < 1 ||
			    lock_cpu_list_parse(o->cpu_list, set, nr_cpus)))
		return cli_usage_err("-C: '%s' is not a CPU list of this machine (0-%d)",
				     o->cpu_list, nr_cpus - 1);
	if (o->max_stack + (o->stack_skip == (unsigned int)-1 ? LOCK_MACHINERY_FRAMES :
			     o->stack_skip) > LOCK_MAX_STACK)
		return cli_usage_err("--max-stack plus --stack-skip exceed %d", LOCK_MAX_STACK);
	return 0;
}

static void set_defaults(struct lock_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->mode = LOCK_AGGR_CALLER;
	o->sort = LOCK_SORT_WAIT_TOTAL;
	o->fields = LOCK_FIELDS_DEFAULT;
	o->stack_skip = (unsigned int)-1;	/* not given: see default_stack_skip() */
	o->map_entries = LOCK_DEF_ENTRIES;
	o->ring_kb = 128;
}

/* One option C with its value ARG.  0 or EXIT_USAGE. */
static int parse_one(struct lock_opts *o, int c, const char *arg, int *nmodes)
{
	unsigned long long v;
	double d;

	switch (c) {
	case 'a': o->system_wide = true; break;
	case 'p': o->pid_arg = arg; o->target_mode = LOCK_TARGET_TGID;
		return parse_list_u32("-p", arg, o);
	case OPT_TID: o->tid_arg = arg; o->target_mode = LOCK_TARGET_TID;
		return parse_list_u32("--tid", arg, o);
	case 'C': o->cpu_list = arg; break;
	case 'd':
		if (cli_parse_double("-d", arg, 0.001, 1e7, &d)) return EXIT_USAGE;
		o->duration = d;
		break;
	case 't': o->mode = LOCK_AGGR_TASK; (*nmodes)++; break;
	case 'l': o->mode = LOCK_AGGR_ADDR; (*nmodes)++; break;
	case 'g': o->mode = LOCK_AGGR_CGROUP; (*nmodes)++; break;
	case 'k': return parse_key(arg, &o->sort);
	case 'F': return parse_fields(arg, &o->fields);
	case 'E':
		if (cli_parse_u64("-E", arg, 1, 1U << 30, &v)) return EXIT_USAGE;
		o->entries = v;
		break;
	case 'x': o->csv_sep = arg; break;
	case OPT_JSON: o->json = true; break;
	case 'v': o->verbose_stacks = true; break;
	case OPT_MAX_STACK:
		if (cli_parse_u64("--max-stack", arg, 1, LOCK_MAX_STACK, &v)) return EXIT_USAGE;
		o->max_stack = v;
		break;
	case OPT_STACK_SKIP:
		if (cli_parse_u64("--stack-skip", arg, 0, LOCK_MAX_STACK, &v)) return EXIT_USAGE;
		o->stack_skip = v;
		break;
	case 'Y':
		o->type_arg = arg;
		if (lock_type_parse(arg, &o->type_mask))
			return cli_usage_err("-Y: unknown lock type in '%s'", arg);
		break;
	case 'L': o->lock_arg = arg; break;
	case 'S': o->callstack_arg = arg; break;
	case 'M':
		if (cli_parse_u64("-M", arg, 1, 1U << 24, &v)) return EXIT_USAGE;
		o->map_entries = v;
		break;
	case OPT_RING:
		if (cli_parse_u64("--ring-size", arg, 4, 1U << 20, &v)) return EXIT_USAGE;
		o->ring_kb = v;
		break;
	case 'b': break;
	case OPT_RAW_TP: o->force_raw_tp = true; break;
	case OPT_NO_WALK: o->no_stack_walk = true; break;
	case OPT_FLOOR: o->floor = true; break;
	case OPT_STACK_CHECK: o->stack_check = true; break;
	case 'h': o->help = true; break;
	}
	return 0;
}

/*
 * getopt returned '?' or ':' (C) on the word WORD.  optopt names a short
 * option, which may sit inside a group ("-tZ"); a long one is the word.
 */
static int bad_option(const char *word, int c)
{
	bool is_long = word[0] == '-' && word[1] == '-';

	if (c == ':')
		return is_long ? cli_usage_err("option '%s' needs a value", word) :
				 cli_usage_err("option '-%c' needs a value", optopt);
	return is_long ? cli_usage_err("unknown option '%s'", word) :
			 cli_usage_err("unknown option '-%c'", optopt);
}

int lock_opts__parse(struct lock_opts *o, int argc, char **argv, int *cmd_idx)
{
	struct option lo[NR_OPTS + 1];
	int c, at, err, nmodes = 0, shift = 0;
	size_t i;

	set_defaults(o);
	*cmd_idx = argc;
	for (i = 0; i < NR_OPTS; i++)
		lo[i] = opt_table[i].lo;
	memset(&lo[NR_OPTS], 0, sizeof(lo[0]));
	/*
	 * "frugal lock contention ..." reads like perf's command line; getopt
	 * then starts from "contention" (it only shows argv[0] in messages,
	 * and those are off).
	 */
	if (argc > 1 && !strcmp(argv[1], "contention"))
		shift = 1;
	argc -= shift;
	argv += shift;
	/* 0, not 1: glibc then also forgets a group ("-tl") left half-read. */
	optind = 0;
	opterr = 0;
	/* "+": no permuting, so the word being read is argv[optind] (1 at first). */
	for (at = 1; (c = getopt_long(argc, argv, "+:ap:C:d:tlgk:F:E:x:vY:L:S:M:bh", lo,
				     NULL)) != -1; at = optind) {
		if (c == '?' || c == ':')
			return bad_option(argv[at], c);
		err = parse_one(o, c, optarg, &nmodes);
		if (err || o->help)
			return err;
	}
	*cmd_idx = optind + shift;
	default_max_stack(o);
	err = check_options(o, nmodes, optind < argc);
	if (!err)
		default_stack_skip(o);
	return err;
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

/* -L: addresses or symbols. */
static int resolve_locks(struct lock_opts *o, struct ksyms *ks)
{
	char buf[4096], *tok, *save = NULL, *end;
	uint64_t addr;

	if (strlen(o->lock_arg) >= sizeof(buf))
		return cli_usage_err("-L: list too long");
	strcpy(buf, o->lock_arg);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (o->nr_addrs >= LOCK_MAX_ADDRS)
			return cli_usage_err("-L: more than %d locks", LOCK_MAX_ADDRS);
		errno = 0;
		addr = strtoull(tok, &end, 0);
		if (end == tok || *end || errno) {
			if (!ks || ksyms__find(ks, tok, &addr))
				return cli_usage_err("-L: '%s' is neither an address nor a kernel symbol", tok);
		}
		o->addrs[o->nr_addrs++] = addr;
	}
	return o->nr_addrs ? 0 : cli_usage_err("-L: empty list");
}

static bool name_matches(const char *name, const char *list)
{
	const char *p = list;

	while (*p) {
		size_t n = strcspn(p, ",");
		char pat[128];

		if (n && n < sizeof(pat)) {
			memcpy(pat, p, n);
			pat[n] = '\0';
			if (strstr(name, pat))
				return true;
		}
		p += n + (p[n] == ',');
	}
	return false;
}

/* -S: the text ranges of every symbol whose name contains one of the words. */
static int resolve_callstack(struct lock_opts *o, struct ksyms *ks)
{
	size_t i, n = ksyms__count(ks), cap = 0;
	struct ksym s;
	uint64_t end;

	for (i = 0; i < n; i++) {
		if (ksyms__at(ks, i, &s, &end) || !name_matches(s.name, o->callstack_arg))
			continue;
		if (o->nr_ranges && o->ranges[o->nr_ranges - 1][1] == s.addr) {
			o->ranges[o->nr_ranges - 1][1] = end;
			continue;
		}
		if (o->nr_ranges == cap) {
			void *p = realloc(o->ranges, (cap = cap ? cap * 2 : 64) * sizeof(*o->ranges));

			if (!p)
				return cli_err(NULL, "out of memory");
			o->ranges = p;
		}
		o->ranges[o->nr_ranges][0] = s.addr;
		o->ranges[o->nr_ranges][1] = end;
		o->nr_ranges++;
	}
	if (!o->nr_ranges)
		return cli_usage_err("-S: no kernel function matches '%s'", o->callstack_arg);
	return 0;
}

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

/* Fork the command; it waits on a pipe until we are attached. */
static pid_t start_command(char **argv, int *go_fd)
{
	int p[2];
	pid_t pid;
	char c;

	if (pipe2(p, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid == 0) {
		close(p[1]);
		if (read(p[0], &c, 1) != 1)
			_exit(EXIT_RUNTIME);	/* we failed to start: go quietly */
		execvp(argv[0], argv);
		cli_err(argv[0], "%s", errno == ENOENT ? "command not found" : strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	close(p[0]);
	*go_fd = p[1];
	return pid;
}

static bool targets_alive(const struct lock_opts *o)
{
	unsigned int i;

	for (i = 0; i < o->nr_targets; i++)
		if (!kill(o->targets[i], 0) || errno == EPERM)
			return true;
	return false;
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

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (!cli_verbose || level == LIBBPF_DEBUG)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

struct run {
	double t0;			/* when the command started, for -v's timings */
	struct lock_opts *o;
	char **cmd;
	pid_t child;
	int status;
	bool child_done;
	double seconds;
};

/* Collect until a signal, the duration, the command's end or the targets'. */
static int collect_loop(struct run *r, struct lock_collect *c, struct lock_table *t)
{
	double start = cli_now();
	int n;

	while (!stop_signal) {
		double left = r->o->duration ? r->o->duration - (cli_now() - start) : 0.1;

		if (left <= 0)
			break;
		n = lock_collect__poll(c, t, left < 0.1 ? (int)(left * 1000) + 1 : 100,
				       wake_pipe[0]);
		if (n < 0)
			return cli_err(NULL, "reading the overflow ring: %s", strerror(-n));
		if (r->child > 0 && child_exited &&
		    waitpid(r->child, &r->status, WNOHANG) == r->child) {
			r->child_done = true;
			break;
		}
		if (r->o->target_mode == LOCK_TARGET_TGID && !r->child && !targets_alive(r->o))
			break;
	}
	r->seconds = cli_now() - start;
	return 0;
}

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

static bool needs_ksyms(const struct lock_opts *o, size_t rows)
{
	return rows && (o->mode == LOCK_AGGR_CALLER || o->mode == LOCK_AGGR_ADDR ||
			o->verbose_stacks);
}

/*
 * Symbols only now, and only those the report names: the frames of the
 * printed rows (or their lock addresses) and the section marks that tell
 * locking code apart.
 */
static struct ksyms *load_report_syms(const struct lock_opts *o, struct lock_table *t)
{
	static const char *const marks[] = {
		"__lock_text_start", "__lock_text_end",
		"__sched_text_start", "__sched_text_end",
	};
	struct lock_row **rows = lock_table__sorted(t, o->sort);
	size_t i, j, n = lock_table__len(t), nr = 0;
	struct ksyms *ks = NULL;
	uint64_t *addrs;

	if (o->entries && n > o->entries)
		n = o->entries;
	addrs = malloc((n ? n : 1) * (o->max_stack + 1) * sizeof(*addrs));
	if (rows && addrs) {
		for (i = 0; i < n; i++) {
			if (o->mode == LOCK_AGGR_ADDR)
				addrs[nr++] = rows[i]->key;
			for (j = 0; rows[i]->stack && j < o->max_stack && rows[i]->stack[j]; j++)
				addrs[nr++] = rows[i]->stack[j];
		}
		/* The kernel names them fastest; /proc/kallsyms is the fallback. */
		ks = lock_symbolize(addrs, nr, marks, 4);
		if (!ks) {
			cli_log("lock: kernel symbolizer unavailable (%s): reading /proc/kallsyms\n",
				strerror(errno));
			ks = ksyms__load_addrs(NULL, addrs, nr, marks, 4);
		}
	} else {
		errno = ENOMEM;
	}
	free(addrs);
	free(rows);
	return ks;
}

static int report(struct run *r, struct lock_collect *c, struct lock_table *t,
		  struct lock_accounting *a, struct ksyms **ks)
{
	struct lock_run_info ri = { 0 };
	struct utsname un;
	char cmdline[256] = "";
	int i, err;

	if (!*ks && needs_ksyms(r->o, lock_table__len(t))) {
		*ks = load_report_syms(r->o, t);
		if (!*ks)
			cli_log("lock: no kernel symbols (%s): printing addresses\n",
				strerror(errno));
	}
	uname(&un);
	for (i = 0; r->cmd && r->cmd[i]; i++)
		snprintf(cmdline + strlen(cmdline), sizeof(cmdline) - strlen(cmdline),
			 "%s%s", i ? " " : "", r->cmd[i]);
	ri.attach = lock_collect__path(c);
	ri.seconds = r->seconds;
	ri.kernel = un.release;
	ri.command = r->cmd ? cmdline : NULL;
	ri.exit_status = exit_status_of(r);
	err = lock_report(stdout, r->o, t, a, &ri, *ks);
	if (!err && fflush(stdout))
		err = -errno;
	return err ? cli_err(NULL, "writing the report: %s", strerror(-err)) : 0;
}

static int prepare_filters(struct lock_opts *o, struct ksyms **ks)
{
	unsigned int i;
	int err = 0;

	for (i = 0; o->pid_arg && i < o->nr_targets; i++)
		if (kill(o->targets[i], 0) && errno == ESRCH)
			return cli_err("-p", "no process %u", o->targets[i]);

	if (o->lock_arg || o->callstack_arg) {
		*ks = ksyms__load(NULL, o->callstack_arg && !o->lock_arg ? "tTwW" : NULL);
		if (!*ks && o->callstack_arg)
			return cli_err("/proc/kallsyms", "%s", strerror(errno));
	}
	if (o->lock_arg)
		err = resolve_locks(o, *ks);
	if (!err && o->callstack_arg)
		err = resolve_callstack(o, *ks);
	return err;
}

static int run(struct run *r)
{
	struct lock_opts *o = r->o;
	struct lock_collect *c = NULL;
	struct lock_table *t = NULL;
	struct lock_accounting a;
	struct ksyms *ks = NULL;
	int go_fd = -1, err;
	double t_stop;

	/* First: a SIGINT or SIGTERM from now on ends the run with a report.
	 * Before this, the inherited disposition applies (a shell without job
	 * control starts background commands with SIGINT ignored). */
	install_signals();
	err = prepare_filters(o, &ks);
	if (err)
		goto out;
	/* The filters hold addresses now; the report loads what it names. */
	ksyms__free(ks);
	ks = NULL;
	if (r->cmd) {
		err = command_exists(r->cmd[0]) ? 0 : 127;
		if (err) {
			cli_err(r->cmd[0], "command not found");
			goto out;
		}
		r->child = start_command(r->cmd, &go_fd);
		err = r->child < 0 ? cli_err(NULL, "fork: %s", strerror(errno)) : 0;
		if (err)
			goto out;
		/* Without -a or -C, the command and what it starts are the target;
		 * with them, the command only sets how long we look. */
		if (!o->system_wide && !o->cpu_list) {
			o->targets[0] = r->child;
			o->nr_targets = 1;
			o->target_mode = LOCK_TARGET_TGID;
			o->follow_forks = true;
		}
	}
	t = lock_table__new(o->mode == LOCK_AGGR_CALLER ? o->max_stack : 0);
	err = t ? 0 : cli_err(NULL, "out of memory");
	if (err)
		goto out;
	c = lock_collect__open(o, &err);
	if (!c) {
		err = cli_err(NULL, "loading BPF: %s%s", strerror(-err),
			      err == -EPERM ? " (missing privileges?)" :
			      err == -ENOENT ? " (no contention_begin/end tracepoints?)" : "");
		goto out;
	}
	cli_log("lock: attached with %s, %.1f ms after start\n", lock_collect__path(c),
		(cli_now() - r->t0) * 1e3);
	if (go_fd >= 0) {
		err = write(go_fd, "g", 1) == 1 ? 0 : cli_err(NULL, "starting the command: %s",
							      strerror(errno));
		close(go_fd);
		go_fd = -1;
		if (err)
			goto out;
	}
	err = collect_loop(r, c, t);
	if (err)
		goto out;
	t_stop = cli_now();
	err = lock_collect__finish(c, t, &a);
	if (err) {
		err = cli_err(NULL, "reading results: %s", strerror(-err));
		goto out;
	}
	cli_log("lock: results read in %.1f ms\n", (cli_now() - t_stop) * 1e3);
	t_stop = cli_now();
	err = report(r, c, t, &a, &ks);
	cli_log("lock: report in %.1f ms\n", (cli_now() - t_stop) * 1e3);
	if (!err)
		err = exit_status_of(r);
out:
	if (go_fd >= 0)
		close(go_fd);
	if (r->child > 0 && !r->child_done) {
		kill(r->child, SIGTERM);
		if (waitpid(r->child, &r->status, 0) == r->child && !err)
			err = exit_status_of(r);
	}
	lock_collect__destroy(c);
	lock_table__free(t);
	ksyms__free(ks);
	free(o->ranges);
	return err;
}

int cmd_lock(int argc, char **argv)
{
	struct lock_opts o;
	struct run r = { .o = &o, .t0 = cli_now() };
	int idx, err;

	err = lock_opts__parse(&o, argc, argv, &idx);
	if (err)
		return err;
	if (o.help) {
		usage(stdout);
		return EXIT_OK;
	}
	if (o.verbose_stacks)
		cli_verbose = 1;
	if (idx < argc)
		r.cmd = argv + idx;
	libbpf_set_print(libbpf_print);
	err = check_privileges();
	if (err)
		return err;
	return run(&r);
}
