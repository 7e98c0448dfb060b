// SPDX-License-Identifier: GPL-2.0
/*
 * frugal lock's command line: perf lock contention's options into struct
 * lock_opts, checked against each other, nothing opened or run.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "cli/cli.h"
#include "cli/tools.h"
#include "lib/cpus.h"
#include "lock/opts.h"
#include "lock/types.h"

enum {
	OPT_TID = CLI_OPT_LONG, OPT_MAX_STACK, OPT_STACK_SKIP, OPT_JSON, OPT_RING,
	OPT_RAW_TP, OPT_NO_WALK, OPT_STACK_CHECK, OPT_FLOOR, OPT_AS_NESTED, OPT_SKIP_NESTED, OPT_NESTED, OPT_FOLDED, OPT_WEIGHT,
	OPT_SVG, OPT_PPROF, OPT_OUTPUT, OPT_USER_ONLY, OPT_USTACK, OPT_DEBUG_DIR,
};

/* The -F fields and -k keys, in enum lock_sort's order. */
static const char *const sort_names[] = {
	"contended", "wait_total", "wait_max", "wait_min", "avg_wait",
};
#define NR_SORT (sizeof(sort_names) / sizeof(sort_names[0]))

/* --weight's words, by enum lock_weight. */
static const char *const weight_names[] = {
	[LOCK_WEIGHT_WAIT] = "wait",
	[LOCK_WEIGHT_CONTENDED] = "contended",
};
#define NR_WEIGHT (sizeof(weight_names) / sizeof(weight_names[0]))

/* The words of -k and -F, and of --weight (cli_words_fn). */
static const char *sort_word(unsigned int i)
{
	return i < NR_SORT ? sort_names[i] : NULL;
}

static const char *weight_word(unsigned int i)
{
	return i < NR_WEIGHT ? weight_names[i] : NULL;
}

const struct cli_opt lock_cli_opts[] = {
	{ "all-cpus", 'a', no_argument, NULL, "system-wide (default without a command)" },
	{ "pid", 'p', required_argument, "PID,..", "processes (all their threads)" },
	{ "tid", OPT_TID, required_argument, "TID,..", "threads" },
	{ "cpu", 'C', required_argument, "LIST", "CPUs, e.g. 0,2-3" },
	{ "duration", 'd', required_argument, "SECS", "stop after SECS seconds" },
	{ "interval", 'I', required_argument, "SECS", "a report every SECS seconds, each of its interval (table, CSV, JSON Lines)" },
	{ "threads", 't', no_argument, NULL, "aggregate by task" },
	{ "lock-addr", 'l', no_argument, NULL, "aggregate by lock" },
	{ "lock-cgroup", 'g', no_argument, NULL, "aggregate by cgroup" },
	{ "lock-owner", 'o', no_argument, NULL, "by the lock's owner when the wait began (mutex, rwsem writer, rt-mutex); implies -t" },
	{ "user", 'U', no_argument, NULL, "user-space lock waits (futex) too, by user call stack, in the same report" },
	{ "user-only", OPT_USER_ONLY, no_argument, NULL, "user-space lock waits alone" },
	{ "user-stack-size", OPT_USTACK, required_argument, "BYTES", "user stack copied per wait, for unwinding (power of two, default 8192)" },
	{ "debug-dir", OPT_DEBUG_DIR, required_argument, "DIRS", "-U: debug files (.build-id/, debuglink) in DIRS, ':'-separated, instead of /usr/lib/debug; '' for none",
	  CLI_ARG_DIR },
	{ "cgroup-filter", 'G', required_argument, "CGROUPS", "only tasks of these cgroups (paths from the v2 root)" },
	{ "quiet", 'q', no_argument, NULL, "no logs, even with -v (errors still)" },
	{ "key", 'k', required_argument, "KEY", "sort: contended, wait_total (default), wait_max, wait_min, avg_wait",
	  CLI_ARG_WORD, sort_word },
	{ "field", 'F', required_argument, "LIST", "columns: contended,wait_total,wait_max,wait_min,avg_wait",
	  CLI_ARG_LIST, sort_word },
	{ "entries", 'E', required_argument, "N", "print the first N rows" },
	{ "field-separator", 'x', required_argument, "SEP", "CSV with SEP, raw nanoseconds" },
	{ "json", OPT_JSON, no_argument, NULL, "one JSON object: rows, accounting, metadata" },
	{ "folded", OPT_FOLDED, no_argument, NULL, "folded stacks (flamegraph.pl, inferno, speedscope); accounting to stderr" },
	{ "weight", OPT_WEIGHT, required_argument, "W", "what --folded and --svg weigh: wait (total ns, default) or contended",
	  CLI_ARG_WORD, weight_word },
	{ "svg", OPT_SVG, required_argument, "FILE", "also an interactive flame graph into FILE", CLI_ARG_FILE },
	{ "pprof", OPT_PPROF, required_argument, "FILE", "also a gzipped pprof profile into FILE (go tool pprof, Pyroscope, Parca)",
	  CLI_ARG_FILE },
	{ "output", OPT_OUTPUT, required_argument, "FILE", "the report into FILE (whole or not at all), not stdout",
	  CLI_ARG_FILE },
	{ "verbose", 'v', no_argument, NULL, "call stack under each row; log what was probed" },
	{ "max-stack", OPT_MAX_STACK, required_argument, "N", "frames per stack (default 8 with -v, else 4: enough to name the caller)" },
	{ "stack-skip", OPT_STACK_SKIP, required_argument, "N", "frames skipped at the top (default: the tracing frames)" },
	{ "type-filter", 'Y', required_argument, "TYPES", "spinlock, rwlock[:R|:W], rwsem[:R|:W], mutex, rt-mutex, percpu-rwsem, semaphore; -U: futex, futex-pi, pthread_mutex, pthread_rwlock[:R|:W], pthread_cond, sem, pthread_barrier",
	  CLI_ARG_LIST, lock_type__word },
	{ "lock-filter", 'L', required_argument, "ADDRS", "lock addresses or kernel symbols" },
	{ "callstack-filter", 'S', required_argument, "SYMS", "keep stacks with a symbol containing one of SYMS" },
	{ "map-nr-entries", 'M', required_argument, "N", "kernel table size (default 16384)" },
	{ "ring-size", OPT_RING, required_argument, "KB", "overflow buffer per CPU, power of two (default 128)" },
	{ "use-bpf", 'b', no_argument, NULL, "accepted for perf compatibility (always BPF)" },
	{ "raw-tp", OPT_RAW_TP, no_argument, NULL, "skip tp_btf, use raw tracepoints" },
	{ "no-stack-walk", OPT_NO_WALK, no_argument, NULL, "unwind every stack (no learned walk)" },
	{ "floor", OPT_FLOOR, no_argument, NULL, "attach programs that do nothing (the cost floor, for benchmarks)" },
	{ "nested", OPT_NESTED, no_argument, NULL, "a second program per tracepoint takes contentions inside our own runs (else counted as skipped); slower" },
	{ "skip-nested", OPT_SKIP_NESTED, no_argument, NULL, "one program per tracepoint (the default; undoes --nested)" },
	{ "as-nested", OPT_AS_NESTED, no_argument, NULL, "take every contention as one nested in our own programs (for tests)" },
	{ "stack-check", OPT_STACK_CHECK, no_argument, NULL, "walk and unwind every stack, count differences" },
	{ "help", 'h', no_argument, NULL, "this help" },
	{ NULL, 0, 0, NULL, NULL },
};

/* The words lock_opts__parse() reads first: lock_main runs them itself. */
static const struct cli_cmd modes[] = {
	{ "top", "a live view: the report redrawn every interval", NULL,
	  lock_cli_opts, CLI_ARG_CMD, NULL },
	{ "contention", "as perf spells it: the same as without it", NULL,
	  lock_cli_opts, CLI_ARG_CMD, NULL },
	{ NULL, NULL, NULL, NULL, 0, NULL },
};

const struct cli_group lock_cli_modes = {
	.name = "frugal lock",
	.noun = "mode",
	.cmds = modes,
};

unsigned int lock_opts__row_frames(const struct lock_opts *o)
{
	if (o->mode == LOCK_AGGR_CALLER)
		return o->max_stack;
	return o->owner && o->verbose_stacks ? LOCK_OWNER_FRAMES : 0;
}

void lock_opts__help(FILE *f)
{
	fputs("usage: frugal lock [options] [-- command [args...]]\n"
	      "       frugal lock top [options] [-- command [args...]]   (a live view: keys c t m n a\n"
	      "                                                          sort, q quits)\n\n"
	      "Kernel lock contention, aggregated in BPF; nothing lost, every drop counted.\n\n", f);
	cli_opts__help(f, lock_cli_opts);
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
	const char *p = arg;
	size_t i, n;

	*fields = 0;
	while (*p) {
		n = strcspn(p, ",");
		for (i = 0; i < NR_SORT; i++)
			if (strlen(sort_names[i]) == n && !strncmp(p, sort_names[i], n))
				break;
		if (i == NR_SORT)
			return cli_usage_err("-F: unknown field '%.*s'", (int)n, p);
		*fields |= 1U << i;
		p += n + (p[n] == ',');
	}
	return *fields ? 0 : cli_usage_err("-F: empty list");
}

static int parse_key(const char *arg, enum lock_sort *key)
{
	size_t i;

	for (i = 0; i < NR_SORT; i++)
		if (!strcmp(arg, sort_names[i])) {
			*key = i;
			return 0;
		}
	return cli_usage_err("-k: unknown key '%s'", arg);
}

/*
 * What was not given follows from what was.  Unwinding is most of the cost
 * of an event (~100 ns a frame), so without -v or -S only the frames that
 * name the caller are taken; a flame graph wants the whole path.  Before the checks: --stack-skip alone must
 * fit beside the default depth.
 */
static void default_max_stack(struct lock_opts *o)
{
	if (!o->max_stack)
		o->max_stack = o->stack_output ? 16 :
			       o->verbose_stacks || o->callstack_arg ? 8 : 4;
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

/* -C, parsed once: into o->cpus, over this machine's possible CPUs. */
static int check_cpus(struct lock_opts *o)
{
	int nr_cpus = libbpf_num_possible_cpus();

	memset(o->cpus, 0, sizeof(o->cpus));
	if (nr_cpus > LOCK_MAX_CPUS || nr_cpus < 1 ||
	    cpus__parse_list(o->cpu_list, o->cpus, nr_cpus))
		return cli_usage_err("-C: '%s' is not a CPU list of this machine (0-%d)",
				     o->cpu_list, nr_cpus - 1);
	o->nr_cpus = nr_cpus;
	return 0;
}

static int check_options(struct lock_opts *o, int nmodes, bool have_cmd)
{
	if (nmodes > 1)
		return cli_usage_err("-t, -l and -g cannot be combined");
	if (o->nformats > 1)
		return cli_usage_err("--json, -x and --folded cannot be combined");
	if (o->pid_arg && o->tid_arg)
		return cli_usage_err("-p and --tid cannot be combined");
	if (o->system_wide && (o->pid_arg || o->tid_arg))
		return cli_usage_err("-a cannot be combined with -p or --tid");
	if (have_cmd && (o->pid_arg || o->tid_arg))
		return cli_usage_err("a command cannot be combined with -p or --tid");
	/* perf: -o implies -t.  (Owners' call stacks are not kept yet.) */
	if (o->owner && nmodes == 0)
		o->mode = LOCK_AGGR_TASK;
	if (o->owner && o->mode != LOCK_AGGR_TASK)
		return cli_usage_err("-o cannot be combined with -l or -g");
	if (o->top && (o->nformats || o->nfiles || o->output))
		return cli_usage_err("top cannot be combined with --json, -x, --folded, --svg, --pprof or --output");
	if (o->top && !o->interval)
		o->interval = 1;
	if (o->interval && (o->format == LOCK_FMT_FOLDED || o->nfiles || o->output))
		return cli_usage_err("-I cannot be combined with --folded, --svg, --pprof or --output");
	if (o->csv_sep && !*o->csv_sep)
		return cli_usage_err("-x: empty separator");
	if (o->ring_kb & (o->ring_kb - 1))
		return cli_usage_err("--ring-size: %u is not a power of two", o->ring_kb);
	if (o->user_only)
		o->user = true;
	if (o->user && o->owner)
		return cli_usage_err("-o cannot be combined with -U (a futex has no owner the kernel knows)");
	if (o->user_only && (o->lock_arg || o->callstack_arg))
		return cli_usage_err("--user-only cannot be combined with -L or -S (kernel addresses and symbols)");
	if (o->ustack_size & (o->ustack_size - 1))
		return cli_usage_err("--user-stack-size: %u is not a power of two", o->ustack_size);
	if (o->cpu_list && check_cpus(o))
		return EXIT_USAGE;
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
	o->format = LOCK_FMT_TABLE;
	o->stack_skip = (unsigned int)-1;	/* not given: see default_stack_skip() */
	o->map_entries = LOCK_DEF_ENTRIES;
	o->ring_kb = 128;
	o->skip_nested = true;		/* see lock.bpf.c, "Nesting" */
	o->ustack_size = LOCK_USTACK_DEF;
}

struct parse_state {
	struct lock_opts *o;
	int nmodes;
};

static void set_mode(struct parse_state *ps, enum lock_aggr mode)
{
	ps->o->mode = mode;
	ps->nmodes++;
}

static void set_format(struct lock_opts *o, enum lock_format f)
{
	if (o->format != f)
		o->nformats++;
	o->format = f;
}

/* --svg FILE, --pprof FILE: one more file to write. */
static int add_file(struct lock_opts *o, const char *opt, enum lock_format f, const char *path)
{
	if (!*path)
		return cli_usage_err("%s: empty file name", opt);
	if (o->nfiles == LOCK_MAX_FILES)
		return cli_usage_err("%s: more than %d files", opt, LOCK_MAX_FILES);
	o->files[o->nfiles].format = f;
	o->files[o->nfiles++].path = path;
	o->stack_output = true;
	return 0;
}

static int parse_weight(const char *arg, enum lock_weight *w)
{
	size_t i;

	for (i = 0; i < NR_WEIGHT; i++)
		if (!strcmp(arg, weight_names[i])) {
			*w = i;
			return 0;
		}
	return cli_usage_err("--weight: '%s' is neither wait nor contended", arg);
}

/* A number option into *OUT. */
static int number(const char *opt, const char *arg, unsigned long long min,
		  unsigned long long max, unsigned int *out)
{
	unsigned long long v;

	if (cli_parse_u64(opt, arg, min, max, &v))
		return EXIT_USAGE;
	*out = v;
	return 0;
}

/* --debug-dir: absolute paths joined by ':', or "" (none).  libdwfl reads an
 * empty or relative entry as the binary's own directory or one under it. */
static bool debug_dirs_ok(const char *arg)
{
	const char *p;

	for (p = arg; *p; p++)
		if ((p == arg || p[-1] == ':') && *p != '/')
			return false;
	return p == arg || p[-1] != ':';
}

static int parse_one(void *ctx, int c, const char *arg)
{
	struct parse_state *ps = ctx;
	struct lock_opts *o = ps->o;

	switch (c) {
	case 'a': o->system_wide = true; break;
	case 'p': o->pid_arg = arg; o->target_mode = LOCK_TARGET_TGID;
		return parse_list_u32("-p", arg, o);
	case OPT_TID: o->tid_arg = arg; o->target_mode = LOCK_TARGET_TID;
		return parse_list_u32("--tid", arg, o);
	case 'C': o->cpu_list = arg; break;
	case 'd': return cli_parse_double("-d", arg, 0.001, 1e7, &o->duration);
	case 'I': return cli_parse_double("-I", arg, 0.01, 1e7, &o->interval);
	case 't': set_mode(ps, LOCK_AGGR_TASK); break;
	case 'l': set_mode(ps, LOCK_AGGR_ADDR); break;
	case 'g': set_mode(ps, LOCK_AGGR_CGROUP); break;
	case 'o': o->owner = true; break;
	case 'U': o->user = true; break;
	case OPT_USER_ONLY: o->user_only = true; break;
	case OPT_DEBUG_DIR:
		if (!debug_dirs_ok(arg))
			return cli_usage_err("--debug-dir: '%s' is not a ':'-separated list of absolute paths (or '')", arg);
		o->debug_dir = arg;
		break;
	case OPT_USTACK: return number("--user-stack-size", arg, 512, LOCK_USTACK_MAX, &o->ustack_size);
	case 'G': o->cgroup_arg = arg; break;
	case 'q': o->quiet = true; break;
	case 'k': return parse_key(arg, &o->sort);
	case 'F': return parse_fields(arg, &o->fields);
	case 'E': return number("-E", arg, 1, 1U << 30, &o->entries);
	case 'x': o->csv_sep = arg; set_format(o, LOCK_FMT_CSV); break;
	case OPT_JSON: set_format(o, LOCK_FMT_JSON); break;
	case OPT_FOLDED: set_format(o, LOCK_FMT_FOLDED); o->stack_output = true; break;
	case OPT_WEIGHT: return parse_weight(arg, &o->weight);
	case OPT_SVG: return add_file(o, "--svg", LOCK_FMT_SVG, arg);
	case OPT_PPROF: return add_file(o, "--pprof", LOCK_FMT_PPROF, arg);
	case OPT_OUTPUT:
		if (!*arg)
			return cli_usage_err("--output: empty file name");
		o->output = arg;
		break;
	case 'v': o->verbose_stacks = true; break;
	case OPT_MAX_STACK: return number("--max-stack", arg, 1, LOCK_MAX_STACK, &o->max_stack);
	case OPT_STACK_SKIP: return number("--stack-skip", arg, 0, LOCK_MAX_STACK, &o->stack_skip);
	case 'Y':
		o->type_arg = arg;
		if (lock_type_parse(arg, &o->type_mask))
			return cli_usage_err("-Y: unknown lock type in '%s'", arg);
		break;
	case 'L': o->lock_arg = arg; break;
	case 'S': o->callstack_arg = arg; break;
	case 'M': return number("-M", arg, 1, 1U << 24, &o->map_entries);
	case OPT_RING: return number("--ring-size", arg, 4, 1U << 20, &o->ring_kb);
	case 'b': break;
	case OPT_RAW_TP: o->force_raw_tp = true; break;
	case OPT_NO_WALK: o->no_stack_walk = true; break;
	case OPT_FLOOR: o->floor = true; break;
	case OPT_AS_NESTED: o->as_nested = true; break;
	case OPT_SKIP_NESTED: o->skip_nested = true; break;
	case OPT_NESTED: o->skip_nested = false; break;
	case OPT_STACK_CHECK: o->stack_check = true; break;
	case 'h': o->help = true; return CLI_OPTS_STOP;
	}
	return 0;
}

int lock_opts__parse(struct lock_opts *o, int argc, char **argv, int *cmd_idx)
{
	struct parse_state ps = { .o = o };
	int err, next, shift = 0;

	set_defaults(o);
	*cmd_idx = argc;
	/*
	 * "frugal lock contention ..." reads like perf's command line; getopt
	 * then starts from "contention" (it only shows argv[0] in messages,
	 * and those are off).
	 */
	if (argc > 1 && !strcmp(argv[1], "contention"))
		shift = 1;
	else if (argc > 1 && !strcmp(argv[1], "top"))
		shift = o->top = 1;
	/* In order: the words after the first that is not an option are a command's. */
	err = cli_opts__parse(lock_cli_opts, argc - shift, argv + shift, CLI_OPTS_IN_ORDER,
			      parse_one, &ps, &next);
	if (err || o->help)
		return err;
	*cmd_idx = next + shift;
	default_max_stack(o);
	err = check_options(o, ps.nmodes, next < argc - shift);
	if (!err)
		default_stack_skip(o);
	return err;
}
