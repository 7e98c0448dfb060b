// SPDX-License-Identifier: GPL-2.0
/*
 * frugal lock's command line: perf lock contention's options into struct
 * lock_opts (each row of the table binds its field, or has a callback for
 * what a binding cannot say), checked against each other, nothing opened
 * or run.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "cli/cli.h"
#include "lib/cpus.h"
#include "lock/lock_cmd.h"
#include "lock/request/request.h"

/* The long-only options' ids. */
enum {
	OPT_TID = CLI_OPT_LONG, OPT_MAX_STACK, OPT_STACK_SKIP, OPT_JSON, OPT_RING,
	OPT_RAW_TP, OPT_NO_WALK, OPT_STACK_CHECK, OPT_FLOOR, OPT_AS_NESTED,
	OPT_SKIP_NESTED, OPT_NESTED, OPT_FOLDED, OPT_WEIGHT, OPT_SVG, OPT_PPROF,
	OPT_OUTPUT, OPT_USER_ONLY, OPT_USTACK, OPT_DEBUG_DIR, OPT_OWNER_AT, OPT_HOLD,
	OPT_NO_OBJECTS, OPT_HISTOGRAM, OPT_LISTEN, OPT_TELEMETRY, OPT_WEB_CONFIG,
	OPT_LISTEN_REMOTE, OPT_SERIES_MAX, OPT_EXPORT_ADDRS,
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

/* --owner-at's words, by enum lock_owner_at. */
static const char *owner_at_word(unsigned int i)
{
	static const char *const names[] = {
		[LOCK_OWNER_AT_ANY] = "auto",
		[LOCK_OWNER_AT_BEGIN] = "begin",
		[LOCK_OWNER_AT_RELEASE] = "release",
	};

	return i < sizeof(names) / sizeof(names[0]) ? names[i] : NULL;
}

/*
 * The callbacks' context: the options, and how many of -t, -l and -g were
 * given (check_options() refuses more than one, even the same twice).
 */
struct parse_state {
	struct lock_opts *o;
	int nmodes;
	const char *serve_opt;		/* the last of serve's options given */
};

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

/* The rows' callbacks (cli_row_fn): each row's value is in r->set. */

/* -p, --tid (the list kept by the row): the ids, and whose they are. */
static int set_targets(void *ctx, const struct cli_opt *r, const char *arg)
{
	struct parse_state *ps = ctx;
	char label[32];

	ps->o->target_mode = r->set;
	return parse_list_u32(cli_opt__label(r, label, sizeof(label)), arg, ps->o);
}

/* -t, -l, -g: counted, since only one may be given (check_options). */
static int set_mode(void *ctx, const struct cli_opt *r, const char *arg)
{
	struct parse_state *ps = ctx;

	(void)arg;
	ps->o->mode = r->set;
	ps->nmodes++;
	return 0;
}

/* -x, --json, --folded: a format other than the last one given is counted. */
static int set_format(void *ctx, const struct cli_opt *r, const char *arg)
{
	struct lock_opts *o = ((struct parse_state *)ctx)->o;

	(void)arg;
	if (o->format != r->set)
		o->nformats++;
	o->format = r->set;
	if (r->set == LOCK_FMT_FOLDED)
		o->stack_output = true;
	return 0;
}

/* --svg FILE, --pprof FILE: one more file to write. */
static int add_file(void *ctx, const struct cli_opt *r, const char *path)
{
	struct lock_opts *o = ((struct parse_state *)ctx)->o;
	char opt[32];

	cli_opt__label(r, opt, sizeof(opt));
	if (!*path)
		return cli_usage_err("%s: empty file name", opt);
	if (o->nfiles == LOCK_MAX_FILES)
		return cli_usage_err("%s: more than %d files", opt, LOCK_MAX_FILES);
	o->files[o->nfiles].format = r->set;
	o->files[o->nfiles++].path = path;
	o->stack_output = true;
	return 0;
}

/* --weight: its own message, which names both words. */
static int set_weight(void *ctx, const struct cli_opt *r, const char *arg)
{
	struct lock_opts *o = ((struct parse_state *)ctx)->o;
	int i = cli_opt__word(r, arg);

	if (i < 0)
		return cli_usage_err("--weight: '%s' is neither wait nor contended", arg);
	o->weight = i;
	return 0;
}

/* --output (kept by the row): a file name. */
static int check_output(void *ctx, const struct cli_opt *r, const char *arg)
{
	(void)ctx, (void)r;
	return *arg ? 0 : cli_usage_err("--output: empty file name");
}

/*
 * --debug-dir (kept by the row): absolute paths joined by ':', or ""
 * (none).  libdwfl reads an empty or relative entry as the binary's own
 * directory or one under it.
 */
static int check_debug_dirs(void *ctx, const struct cli_opt *r, const char *arg)
{
	const char *p;

	(void)ctx, (void)r;
	for (p = arg; *p; p++)
		if ((p == arg || p[-1] == ':') && *p != '/')
			break;
	if (*p || (p != arg && p[-1] == ':'))
		return cli_usage_err("--debug-dir: '%s' is not a ':'-separated list of absolute paths (or '')", arg);
	return 0;
}

/* -Y (kept by the row): the types' mask. */
static int set_types(void *ctx, const struct cli_opt *r, const char *arg)
{
	struct lock_opts *o = ((struct parse_state *)ctx)->o;

	(void)r;
	if (lock_type_parse(arg, &o->type_mask))
		return cli_usage_err("-Y: unknown lock type in '%s'", arg);
	return 0;
}

/* serve's options: noted, since they mean nothing without serve (check_options). */
static int serve_opt(void *ctx, const struct cli_opt *r, const char *arg)
{
	(void)arg;
	((struct parse_state *)ctx)->serve_opt = r->name;
	return 0;
}

/* --web.telemetry-path: a path of its own, not one of the other routes. */
static int check_telemetry_path(void *ctx, const struct cli_opt *r, const char *arg)
{
	if (arg[0] != '/' || !arg[1] || strpbrk(arg, "?# \t") || !strncmp(arg, "/debug/", 7))
		return cli_usage_err("--web.telemetry-path: '%s' is not a path like /metrics "
				     "(outside /debug/)", arg);
	return serve_opt(ctx, r, arg);
}

#define LO struct lock_opts	/* the type every row binds into */

/* perf lock contention's options and frugal's own, under --help's headings. */
const struct cli_opt lock_cli_opts[] = {
	CLI_OPT_GROUP("What to trace"),
	CLI_OPT_BOOL("all-cpus", 'a', LO, system_wide, true, "system-wide (default without a command)"),
	CLI_OPT_STR("pid", 'p', LO, pid_arg, "PID,..", "processes (all their threads)",
		    .cb = set_targets, .set = LOCK_TARGET_TGID),
	CLI_OPT_STR("tid", OPT_TID, LO, tid_arg, "TID,..", "threads",
		    .cb = set_targets, .set = LOCK_TARGET_TID),
	CLI_OPT_STR("cpu", 'C', LO, cpu_list, "LIST", "CPUs, e.g. 0,2-3"),
	CLI_OPT_STR("cgroup-filter", 'G', LO, cgroup_arg, "CGROUPS", "only tasks of these cgroups (paths from the v2 root)"),
	CLI_OPT_GROUP("Which locks"),
	CLI_OPT_STR("type-filter", 'Y', LO, type_arg, "TYPES", "spinlock, rwlock[:R|:W], rwsem[:R|:W], mutex, rt-mutex, percpu-rwsem, semaphore; -U: futex, futex-pi, pthread_mutex, pthread_rwlock[:R|:W], pthread_cond, sem, pthread_barrier",
		    .kind = CLI_ARG_LIST, .words = lock_type__word, .cb = set_types),
	CLI_OPT_STR("lock-filter", 'L', LO, lock_arg, "ADDRS", "lock addresses or kernel symbols"),
	CLI_OPT_STR("callstack-filter", 'S', LO, callstack_arg, "SYMS", "keep stacks with a symbol containing one of SYMS"),
	CLI_OPT_GROUP("User space"),
	CLI_OPT_BOOL("user", 'U', LO, user, true, "user-space lock waits (futex) too, by user call stack, in the same report"),
	CLI_OPT_BOOL("user-only", OPT_USER_ONLY, LO, user_only, true, "user-space lock waits alone"),
	CLI_OPT_UINT("user-stack-size", OPT_USTACK, LO, ustack_size, 512, LOCK_USTACK_MAX, "BYTES", "user stack copied per wait, for unwinding (power of two, default 8192)"),
	CLI_OPT_STR("debug-dir", OPT_DEBUG_DIR, LO, debug_dir, "DIRS", "-U: debug files (.build-id/, debuglink) in DIRS, ':'-separated, instead of /usr/lib/debug; '' for none",
		    .kind = CLI_ARG_DIR, .cb = check_debug_dirs),
	CLI_OPT_GROUP("Aggregation (by call stack unless one is given)"),
	CLI_OPT_CALLBACK("threads", 't', no_argument, NULL, "aggregate by task", set_mode, LOCK_AGGR_TASK),
	CLI_OPT_CALLBACK("lock-addr", 'l', no_argument, NULL, "aggregate by lock", set_mode, LOCK_AGGR_ADDR),
	CLI_OPT_CALLBACK("lock-cgroup", 'g', no_argument, NULL, "aggregate by cgroup", set_mode, LOCK_AGGR_CGROUP),
	CLI_OPT_BOOL("lock-owner", 'o', LO, owner, true, "by the locks' holders: at release where the kernel can, else the owner at the wait's begin; implies -t"),
	CLI_OPT_BOOL("hold", OPT_HOLD, LO, hold, true, "hold times of contended locks, not waits: by the holder's stack at release, or -t, -l, -g (needs lock:contended_release)"),
	CLI_OPT_WORD("owner-at", OPT_OWNER_AT, LO, owner_at, owner_at_word, "point", "WHEN", "-o: release (each holder that released during the wait; lock:contended_release), begin (mutex, rwsem writer, rt-mutex owner), auto (default)"),
	CLI_OPT_GROUP("How long"),
	CLI_OPT_DOUBLE("duration", 'd', LO, duration, 0.001, 1e7, "SECS", "stop after SECS seconds"),
	CLI_OPT_DOUBLE("interval", 'I', LO, interval, 0.01, 1e7, "SECS", "a report every SECS seconds, each of its interval (table, CSV, JSON Lines)"),
	CLI_OPT_GROUP("Report"),
	CLI_OPT_WORD("key", 'k', LO, sort, sort_word, "key", "KEY", "sort: contended, wait_total (default), wait_max, wait_min, avg_wait"),
	CLI_OPT_WORD_MASK("field", 'F', LO, fields, sort_word, "field", "LIST", "columns: contended,wait_total,wait_max,wait_min,avg_wait"),
	CLI_OPT_UINT("entries", 'E', LO, entries, 1, 1U << 30, "N", "print the first N rows"),
	CLI_OPT_BOOL("verbose", 'v', LO, verbose_stacks, true, "call stack under each row; log what was probed"),
	CLI_OPT_GROUP("Output formats"),
	CLI_OPT_STR("field-separator", 'x', LO, csv_sep, "SEP", "CSV with SEP, raw nanoseconds",
		    .cb = set_format, .set = LOCK_FMT_CSV),
	CLI_OPT_CALLBACK("json", OPT_JSON, no_argument, NULL, "one JSON object: rows, accounting, metadata", set_format, LOCK_FMT_JSON),
	CLI_OPT_BOOL("histogram", OPT_HISTOGRAM, LO, histogram, true, "--json: also the waits' histogram per lock type (powers of two of ns), kept by the kernel"),
	CLI_OPT_CALLBACK("folded", OPT_FOLDED, no_argument, NULL, "folded stacks (flamegraph.pl, inferno, speedscope); accounting to stderr", set_format, LOCK_FMT_FOLDED),
	CLI_OPT_CALLBACK("weight", OPT_WEIGHT, required_argument, "W", "what --folded and --svg weigh: wait (total ns, default) or contended",
			 set_weight, 0, .kind = CLI_ARG_WORD, .words = weight_word),
	CLI_OPT_CALLBACK("svg", OPT_SVG, required_argument, "FILE", "also an interactive flame graph into FILE",
			 add_file, LOCK_FMT_SVG, .kind = CLI_ARG_FILE),
	CLI_OPT_CALLBACK("pprof", OPT_PPROF, required_argument, "FILE", "also a gzipped pprof profile into FILE (go tool pprof, Pyroscope, Parca)",
			 add_file, LOCK_FMT_PPROF, .kind = CLI_ARG_FILE),
	CLI_OPT_STR("output", OPT_OUTPUT, LO, output, "FILE", "the report into FILE (whole or not at all), not stdout",
		    .kind = CLI_ARG_FILE, .cb = check_output),
	CLI_OPT_GROUP("Limits"),
	CLI_OPT_UINT("max-stack", OPT_MAX_STACK, LO, max_stack, 1, LOCK_MAX_STACK, "N", "frames per stack (default 8 with -v, else 4: enough to name the caller)"),
	CLI_OPT_UINT("stack-skip", OPT_STACK_SKIP, LO, stack_skip, 0, LOCK_MAX_STACK, "N", "frames skipped at the top (default: the tracing frames)"),
	CLI_OPT_UINT("map-nr-entries", 'M', LO, map_entries, 1, 1U << 24, "N", "kernel table size (default 16384)"),
	CLI_OPT_UINT("ring-size", OPT_RING, LO, ring_kb, 4, 1U << 20, "KB", "overflow buffer per CPU, power of two (default 128)"),
	CLI_OPT_GROUP("How the kernel is probed (for tests and benchmarks)"),
	{ "use-bpf", 'b', no_argument, NULL, "accepted for perf compatibility (always BPF)" },
	CLI_OPT_BOOL("raw-tp", OPT_RAW_TP, LO, force_raw_tp, true, "skip tp_btf, use raw tracepoints"),
	CLI_OPT_BOOL("no-stack-walk", OPT_NO_WALK, LO, no_stack_walk, true, "unwind every stack (no learned walk)"),
	CLI_OPT_BOOL("floor", OPT_FLOOR, LO, floor, true, "attach programs that do nothing (the cost floor, for benchmarks)"),
	CLI_OPT_BOOL("nested", OPT_NESTED, LO, skip_nested, false, "a second program per tracepoint takes contentions inside our own runs (else counted as skipped); slower"),
	CLI_OPT_BOOL("skip-nested", OPT_SKIP_NESTED, LO, skip_nested, true, "one program per tracepoint (the default; undoes --nested)"),
	CLI_OPT_BOOL("as-nested", OPT_AS_NESTED, LO, as_nested, true, "take every contention as one nested in our own programs (for tests)"),
	CLI_OPT_BOOL("stack-check", OPT_STACK_CHECK, LO, stack_check, true, "walk and unwind every stack, count differences"),
	CLI_OPT_BOOL("no-objects", OPT_NO_OBJECTS, LO, no_objects, true, "-l: do not describe what holds each lock (its cost, for benchmarks)"),
	CLI_OPT_GROUP("The service (frugal lock serve)"),
	CLI_OPT_STR("web.listen-address", OPT_LISTEN, LO, listen_address, "HOST:PORT", "where /metrics and /debug/pprof/ listen (default " LOCK_SERVE_ADDRESS "; :PORT is every address)",
		    .cb = serve_opt),
	CLI_OPT_STR("web.telemetry-path", OPT_TELEMETRY, LO, telemetry_path, "PATH", "the metrics' path (default /metrics)",
		    .cb = check_telemetry_path),
	CLI_OPT_STR("web.config.file", OPT_WEB_CONFIG, LO, web_config, "FILE", "TLS and basic auth (bcrypt), in the exporter toolkit's format",
		    .kind = CLI_ARG_FILE, .cb = serve_opt),
	CLI_OPT_BOOL("web.listen-remote", OPT_LISTEN_REMOTE, LO, listen_remote, true, "listen beyond loopback without --web.config.file",
		     .cb = serve_opt),
	CLI_OPT_UINT("series-max", OPT_SERIES_MAX, LO, series_max, 1, 1U << 20, "N", "series per metric (default 500); the rest fold into one `other` series, counted",
		     .cb = serve_opt),
	CLI_OPT_BOOL("export-addresses", OPT_EXPORT_ADDRS, LO, export_addresses, true, "kernel addresses in labels (off: they defeat KASLR)",
		     .cb = serve_opt),
	CLI_OPT_GROUP("Miscellaneous"),
	CLI_OPT_BOOL("quiet", 'q', LO, quiet, true, "no logs, even with -v (errors still)"),
	CLI_OPT_HELP(LO, help),
	CLI_OPT_END,
};

#undef LO

/* The words lock_opts__parse() reads first: lock_main runs them itself. */
static const struct cli_cmd modes[] = {
	{ "top", "a live view: the report redrawn every interval", NULL,
	  lock_cli_opts, CLI_ARG_CMD, NULL },
	{ "serve", "always on: Prometheus metrics and pprof profiles over HTTP", NULL,
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
	      "                                                          sort, q quits)\n"
	      "       frugal lock serve [options]                        (always on: /metrics,\n"
	      "                                                          /debug/pprof/mutex)\n\n"
	      "Kernel lock contention, aggregated in BPF; nothing lost, every drop counted.\n\n", f);
	cli_opts__help(f, lock_cli_opts);
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

/* frugal lock serve: a service's modes and options, and theirs only elsewhere. */
static int check_serve(struct lock_opts *o, const char *serve_opt, bool have_cmd)
{
	if (!o->serve)
		return serve_opt ? cli_usage_err("--%s needs frugal lock serve", serve_opt) : 0;
	if (o->mode == LOCK_AGGR_TASK)
		return cli_usage_err("serve: -t and -o are not service modes (thread ids in labels); "
				     "use the default (callers), -l or -g");
	if (o->hold)
		return cli_usage_err("serve cannot be combined with --hold");
	if (have_cmd)
		return cli_usage_err("serve runs no command: trace it with -p, or the whole system");
	if (o->nformats || o->nfiles || o->output)
		return cli_usage_err("serve cannot be combined with --json, -x, --folded, --svg, "
				     "--pprof or --output (its formats are served)");
	if (!o->interval)
		o->interval = 1;
	return 0;
}

static int check_options(struct lock_opts *o, int nmodes, bool have_cmd, const char *serve_opt)
{
	if (nmodes > 1)
		return cli_usage_err("-t, -l and -g cannot be combined");
	if (o->nformats > 1)
		return cli_usage_err("--json, -x and --folded cannot be combined");
	if (o->histogram && o->format != LOCK_FMT_JSON)
		return cli_usage_err("--histogram is written by --json only");
	if (o->pid_arg && o->tid_arg)
		return cli_usage_err("-p and --tid cannot be combined");
	if (o->system_wide && (o->pid_arg || o->tid_arg))
		return cli_usage_err("-a cannot be combined with -p or --tid");
	if (have_cmd && (o->pid_arg || o->tid_arg))
		return cli_usage_err("a command cannot be combined with -p or --tid");
	/* perf: -o implies -t (with -v, each owner's call stack under its row). */
	if (o->owner && nmodes == 0)
		o->mode = LOCK_AGGR_TASK;
	if (o->owner && o->mode != LOCK_AGGR_TASK)
		return cli_usage_err("-o cannot be combined with -l or -g");
	if (o->owner_at && !o->owner)
		return cli_usage_err("--owner-at needs -o");
	if (o->hold && o->owner)
		return cli_usage_err("--hold cannot be combined with -o");
	if (o->top && (o->nformats || o->nfiles || o->output))
		return cli_usage_err("top cannot be combined with --json, -x, --folded, --svg, --pprof or --output");
	if (o->top && !o->interval)
		o->interval = 1;
	if (check_serve(o, serve_opt, have_cmd))
		return EXIT_USAGE;
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
	if (o->user && o->hold)
		return cli_usage_err("--hold cannot be combined with -U (a futex's release is not seen)");
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
	else if (argc > 1 && !strcmp(argv[1], "serve"))
		/* the profiles it serves are --pprof's, as deep */
		shift = o->serve = o->stack_output = 1;
	/* In order: the words after the first that is not an option are a command's. */
	err = cli_opts__parse_into(lock_cli_opts, o, argc - shift, argv + shift,
				   CLI_OPTS_IN_ORDER, NULL, &ps, &next);
	if (err || o->help)
		return err;
	*cmd_idx = next + shift;
	default_max_stack(o);
	err = check_options(o, ps.nmodes, next < argc - shift, ps.serve_opt);
	if (!err)
		default_stack_skip(o);
	return err;
}
