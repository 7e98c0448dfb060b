// SPDX-License-Identifier: GPL-2.0
/*
 * The subcommands' command-line parsers, over arbitrary argument vectors.
 * The first byte picks the parser (k % 6: lock, btf encode, pahole, btf
 * diff, btf stat, btf show); the rest, split at NUL bytes, are the arguments after
 * argv[0] (at most MAX_ARGS, each in its own allocation so reading past one
 * is caught).  Each vector is parsed twice.
 * Invariants:
 *  - the result is 0 or EXIT_USAGE, the same both times, and so are the
 *    options filled (getopt starts afresh);
 *  - the strings are never written, and the vector holds the same pointers
 *    (lock: in the same order; GNU getopt may move options first);
 *  - every string option points at one of the arguments;
 *  - lock, accepted: one mode, the depths within LOCK_MAX_STACK, the ring
 *    size a power of two, not both --json and -x, targets only with -p or
 *    --tid (not both, not with -a or a command) and exactly the ids of that
 *    list, the command index within argc, -C a list of this machine's CPUs;
 *  - encode, accepted: jobs in [1, 1024], only known feature bits, exactly
 *    one FILE; diff: two files and a known, non-empty set of kinds.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "btf/btf_int.h"
#include "btf/view/view.h"
#include "cli/cli.h"
#include "lib/cpus.h"
#include "lock/request/request.h"

#define MAX_ARGS 32

struct args {
	int argc;
	char *argv[MAX_ARGS + 2];
	char *orig[MAX_ARGS + 2];	/* the pointers as given */
	char *copy;			/* the strings as given, NUL-separated */
	size_t copy_len;
};

static void args__free(struct args *a)
{
	int i;

	for (i = 1; i < a->argc; i++)
		free(a->orig[i]);
	free(a->copy);
}

static void args__make(struct args *a, const char *argv0, const uint8_t *data, size_t size)
{
	size_t n;

	memset(a, 0, sizeof(*a));
	a->argv[0] = a->orig[0] = (char *)argv0;
	a->argc = 1;
	while (size && a->argc <= MAX_ARGS) {
		n = strnlen((const char *)data, size);
		a->orig[a->argc] = strndup((const char *)data, n);
		if (!a->orig[a->argc])
			abort();
		a->argv[a->argc] = a->orig[a->argc];
		a->argc++;
		n += n < size;
		data += n;
		size -= n;
	}
	for (n = 0; n < (size_t)a->argc; n++)
		a->copy_len += strlen(a->orig[n]) + 1;
	a->copy = malloc(a->copy_len);
	if (!a->copy)
		abort();
	for (n = 0, size = 0; n < (size_t)a->argc; n++) {
		memcpy(a->copy + size, a->orig[n], strlen(a->orig[n]) + 1);
		size += strlen(a->orig[n]) + 1;
	}
}

/* Same strings, same pointers (in the same order when ORDERED). */
static void args__check(const struct args *a, bool ordered)
{
	size_t off = 0;
	int i, j;

	for (i = 0; i < a->argc; i++) {
		size_t len = strlen(a->orig[i]) + 1;

		if (off + len > a->copy_len || memcmp(a->copy + off, a->orig[i], len))
			abort();
		off += len;
	}
	if (a->argv[a->argc] || a->argv[0] != a->orig[0])
		abort();
	for (i = 1; i < a->argc; i++) {
		if (ordered && a->argv[i] != a->orig[i])
			abort();
		for (j = 1; j < a->argc && a->argv[j] != a->orig[i]; j++)
			;
		if (j == a->argc)
			abort();
	}
}

/* NULL, or a pointer into one of the arguments (an option's value). */
static void check_str(const struct args *a, const char *s)
{
	int i;

	if (!s)
		return;
	for (i = 1; i < a->argc; i++)
		if (s >= a->orig[i] && s <= a->orig[i] + strlen(a->orig[i]))
			return;
	abort();
}

static bool is_pow2(unsigned int v)
{
	return v && !(v & (v - 1));
}

/* The ids of a -p/--tid list, in order, as the parser should take them. */
static void check_targets(const struct lock_opts *o, const char *list)
{
	const char *p = list;
	unsigned int n = 0;
	char *end;

	while (*p) {
		if (*p == ',') {
			p++;
			continue;
		}
		/* cli_parse_u64's base: 0x and 0 prefixes count. */
		if (n >= o->nr_targets || strtoul(p, &end, 0) != o->targets[n++] || end == p)
			abort();
		p = end;
	}
	if (n != o->nr_targets || !n)
		abort();
}

static void check_lock_stack(const struct lock_opts *o)
{
	if (o->user_max_stack < 1 || o->max_stack > LOCK_MAX_STACK)
		abort();
	if (o->strip_machinery) {
		if (o->stack_skip != 1 ||
		    o->max_stack != o->user_max_stack + LOCK_MACHINERY_FRAMES ||
		    o->user_max_stack + LOCK_MACHINERY_FRAMES > LOCK_MAX_STACK)
			abort();
	} else if (o->max_stack != o->user_max_stack ||
		   o->max_stack + o->stack_skip > LOCK_MAX_STACK) {
		abort();
	}
}

/* -C: parsed into o->cpus over this machine's CPUs, as the list says. */
static void check_cpus(const struct lock_opts *o)
{
	unsigned char set[sizeof(o->cpus)] = {};
	int nr_cpus = libbpf_num_possible_cpus();

	if (!o->cpu_list) {
		if (o->nr_cpus || memchr(o->cpus, 1, sizeof(o->cpus)))
			abort();
		return;
	}
	if (o->nr_cpus != nr_cpus || cpus__parse_list(o->cpu_list, set, nr_cpus) ||
	    memcmp(set, o->cpus, sizeof(set)))
		abort();
}

static void check_lock(const struct args *a, const struct lock_opts *o, int idx)
{
	unsigned int i;

	check_str(a, o->csv_sep);
	check_str(a, o->cpu_list);
	check_str(a, o->pid_arg);
	check_str(a, o->tid_arg);
	check_str(a, o->type_arg);
	check_str(a, o->lock_arg);
	check_str(a, o->callstack_arg);
	if (o->help)
		return;
	if (idx < 1 || idx > a->argc)
		abort();
	/* The command follows "--" or is the first word that is no option. */
	if (idx < a->argc && strcmp(a->argv[idx - 1], "--") &&
	    a->argv[idx][0] == '-' && a->argv[idx][1])
		abort();
	if (o->mode > LOCK_AGGR_CGROUP || o->sort > LOCK_SORT_AVG_WAIT)
		abort();
	check_lock_stack(o);
	if (!is_pow2(o->ring_kb) || o->ring_kb < 4 || o->ring_kb > 1U << 20 ||
	    o->map_entries < 1 || o->map_entries > 1U << 24 || o->entries > 1U << 30)
		abort();
	if (!o->fields || (o->fields & ~0x1fU))
		abort();
	/* One format on stdout: CSV exactly when -x gave a separator. */
	if (o->nformats > 1 || o->format > LOCK_FMT_FOLDED ||
	    (o->format == LOCK_FMT_CSV) != (o->csv_sep != NULL) || (o->csv_sep && !*o->csv_sep))
		abort();
	if (o->duration && !(o->duration >= 0.001 && o->duration <= 1e7))
		abort();
	if (o->type_arg && !o->type_mask)
		abort();
	if ((o->pid_arg && o->tid_arg) || o->target_mode != (o->pid_arg ? 1 : o->tid_arg ? 2 : 0))
		abort();
	if (o->target_mode && (o->system_wide || idx < a->argc))
		abort();
	if (o->target_mode)
		check_targets(o, o->pid_arg ? o->pid_arg : o->tid_arg);
	else if (o->nr_targets)
		abort();
	for (i = 0; i < o->nr_targets; i++)
		if (o->targets[i] < 1 || o->targets[i] > 0x3fffffff)
			abort();
	check_cpus(o);
	/* Files: named, of a file format; -I and top write none; top writes no format. */
	check_str(a, o->output);
	if (o->output && !*o->output)
		abort();
	if (o->nfiles > LOCK_MAX_FILES)
		abort();
	for (i = 0; i < o->nfiles; i++) {
		check_str(a, o->files[i].path);
		if (!*o->files[i].path || (o->files[i].format != LOCK_FMT_SVG &&
					   o->files[i].format != LOCK_FMT_PPROF))
			abort();
	}
	if (o->weight > LOCK_WEIGHT_CONTENDED)
		abort();
	if (o->interval && !(o->interval >= 0.01 && o->interval <= 1e7))
		abort();
	if (o->interval && (o->format == LOCK_FMT_FOLDED || o->nfiles || o->output))
		abort();
	if (o->top && (!o->interval || o->nformats || o->nfiles || o->output))
		abort();
}

static void fuzz_lock(struct args *a)
{
	static struct lock_opts o1, o2;
	int r1, r2, idx1 = -1, idx2 = -1;

	r1 = lock_opts__parse(&o1, a->argc, a->argv, &idx1);
	args__check(a, true);
	r2 = lock_opts__parse(&o2, a->argc, a->argv, &idx2);
	if (r1 != r2 || memcmp(&o1, &o2, sizeof(o1)) || (!r1 && idx1 != idx2))
		abort();
	if (r1 != 0 && r1 != EXIT_USAGE)
		abort();
	if (!r1)
		check_lock(a, &o1, idx1);
}

static void check_encode(const struct args *a, const struct btf_encode_args *e)
{
	check_str(a, e->opts.path);
	check_str(a, e->opts.detached);
	check_str(a, e->opts.base);
	check_str(a, e->opts.lang_exclude);
	if (e->opts.errbuf || e->opts.errlen || !memchr(e->features, 0, sizeof(e->features)))
		abort();
	if (e->opts.jobs < 1 || e->opts.jobs > 1024)
		abort();
	if (e->help || e->version)
		return;
	if (!e->opts.path || (e->opts.features & ~btf_feat__all()))
		abort();
	if (!e->have_features && e->features[0])
		abort();
}

static void fuzz_encode(struct args *a)
{
	static struct btf_encode_args e1, e2;
	int r1, r2;

	r1 = btf_encode_args__parse(&e1, a->argc, a->argv);
	args__check(a, false);
	r2 = btf_encode_args__parse(&e2, a->argc, a->argv);
	args__check(a, false);
	/* A second pass sees the options first; the outcome is the same.  An
	 * unknown feature under --btf_features_strict is pahole's exit 1. */
	if (r1 != r2 || (r1 != 0 && r1 != EXIT_USAGE && r1 != EXIT_RUNTIME))
		abort();
	if (!r1) {
		check_encode(a, &e1);
		if (e1.opts.features != e2.opts.features || e1.opts.jobs != e2.opts.jobs ||
		    e1.opts.path != e2.opts.path || e1.help != e2.help)
			abort();
	}
}

static void fuzz_diff(struct args *a)
{
	static struct btf_diff_opts d1, d2;
	int r1, r2, i;

	r1 = btf_diff_opts__parse(&d1, a->argc, a->argv);
	args__check(a, false);
	r2 = btf_diff_opts__parse(&d2, a->argc, a->argv);
	args__check(a, false);
	if (r1 != r2 || (r1 != 0 && r1 != EXIT_USAGE))
		abort();
	if (r1)
		return;
	for (i = 0; i < 2; i++) {
		check_str(a, d1.path[i]);
		check_str(a, d1.base[i]);
		if ((!d1.help && !d1.path[i]) || d1.path[i] != d2.path[i])
			abort();
	}
	if (!d1.kinds || (d1.kinds & ~BTF_CANON_ALL) || d1.kinds != d2.kinds)
		abort();
}

static void fuzz_stat(struct args *a)
{
	static struct btf_stat_opts s1, s2;
	int r1, r2;

	r1 = btf_stat_opts__parse(&s1, a->argc, a->argv);
	args__check(a, false);
	r2 = btf_stat_opts__parse(&s2, a->argc, a->argv);
	args__check(a, false);
	if (r1 != r2 || (r1 != 0 && r1 != EXIT_USAGE))
		abort();
	if (r1)
		return;
	check_str(a, s1.path);
	check_str(a, s1.base);
	if ((!s1.help && !s1.path) || s1.path != s2.path || s1.dump != s2.dump)
		abort();
}

static void fuzz_show(struct args *a)
{
	static struct btf_show_opts s1, s2;
	int r1, r2;

	r1 = btf_show_opts__parse(&s1, a->argc, a->argv);
	args__check(a, false);
	r2 = btf_show_opts__parse(&s2, a->argc, a->argv);
	args__check(a, false);
	if (r1 != r2 || (r1 != 0 && r1 != EXIT_USAGE))
		abort();
	if (r1)
		return;
	check_str(a, s1.path);
	check_str(a, s1.base);
	check_str(a, s1.classes);
	if (s1.path != s2.path || s1.classes != s2.classes || (s1.sizes && s1.nr_members) ||
	    (s1.pahole != 130 && s1.pahole != 132))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const names[] = { "lock", "encode", "pahole", "diff", "stat", "show" };
	struct args a;
	unsigned int k;

	if (size < 1 || size > MAX_ARGS * 4096)
		return 0;
	k = data[0] % 6;
	args__make(&a, names[k], data + 1, size - 1);
	switch (k) {
	case 0: fuzz_lock(&a); break;
	case 1: case 2: fuzz_encode(&a); break;
	case 3: fuzz_diff(&a); break;
	case 4: fuzz_stat(&a); break;
	case 5: fuzz_show(&a); break;
	}
	args__free(&a);
	return 0;
}
