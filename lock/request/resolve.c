// SPDX-License-Identifier: GPL-2.0
/* -p, -L and -S against the running system: processes, kernel symbols, text ranges. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "lib/array.h"
#include "lib/ksyms.h"
#include "lock/request/request.h"

/* -L: addresses or symbols. */
static int resolve_locks(struct lock_filters *f, const struct lock_opts *o, struct ksyms *ks)
{
	char buf[4096], *tok, *save = NULL, *end;
	uint64_t addr;

	if (strlen(o->lock_arg) >= sizeof(buf))
		return cli_usage_err("-L: list too long");
	strcpy(buf, o->lock_arg);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (f->nr_addrs >= LOCK_MAX_ADDRS)
			return cli_usage_err("-L: more than %d locks", LOCK_MAX_ADDRS);
		errno = 0;
		addr = strtoull(tok, &end, 0);
		if (end == tok || *end || errno) {
			if (!ks || ksyms__find(ks, tok, &addr))
				return cli_usage_err("-L: '%s' is neither an address nor a kernel symbol", tok);
		}
		f->addrs[f->nr_addrs++] = addr;
	}
	return f->nr_addrs ? 0 : cli_usage_err("-L: empty list");
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

/*
 * The tracing frames that can sit on top of a contention's stack, of those
 * the report drops by name (report.c, is_machinery()): the run helper, and
 * the tracepoint's iterator and its probe stub, each frame seen or not
 * depending on how many probes the tracepoint has.
 */
static bool is_machinery_name(const char *name)
{
	static const char *const names[] = {
		"bpf_trace_run2", "__traceiter_contention_begin", "__bpf_trace_contention_begin",
		"__traceiter_contention_end", "__bpf_trace_contention_end",
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(name, names[i]))
			return true;
	return false;
}

/*
 * -S: the text ranges of every symbol whose name contains one of the
 * words; and, when the report drops the tracing frames, theirs, so the
 * kernel's filter looks only at the frames shown.
 */
static int resolve_callstack(struct lock_filters *f, const struct lock_opts *o,
			     struct ksyms *ks)
{
	size_t i, n = ksyms__count(ks), cap = 0;
	struct ksym s;
	uint64_t end;

	for (i = 0; i < n; i++) {
		if (ksyms__at(ks, i, &s, &end))
			continue;
		if (o->strip_machinery && f->nr_machinery < LOCK_MACHINERY_RANGES &&
		    is_machinery_name(s.name)) {
			f->machinery[f->nr_machinery][0] = s.addr;
			f->machinery[f->nr_machinery][1] = end;
			f->nr_machinery++;
		}
		if (!name_matches(s.name, o->callstack_arg))
			continue;
		if (f->nr_ranges && f->ranges[f->nr_ranges - 1][1] == s.addr) {
			f->ranges[f->nr_ranges - 1][1] = end;
			continue;
		}
		if (array__grow(&f->ranges, &cap, f->nr_ranges + 1, sizeof(*f->ranges), 64))
			return cli_err(NULL, "out of memory");
		f->ranges[f->nr_ranges][0] = s.addr;
		f->ranges[f->nr_ranges][1] = end;
		f->nr_ranges++;
	}
	if (!f->nr_ranges)
		return cli_usage_err("-S: no kernel function matches '%s'", o->callstack_arg);
	return 0;
}

/* -G: each path, from the cgroup v2 root, to its id. */
static int resolve_cgroups(struct lock_filters *f, const struct lock_opts *o)
{
	char buf[4096], *tok, *save = NULL;
	int err;

	if (strlen(o->cgroup_arg) >= sizeof(buf))
		return cli_usage_err("-G: list too long");
	strcpy(buf, o->cgroup_arg);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (f->nr_cgroups >= LOCK_MAX_CGROUPS)
			return cli_usage_err("-G: more than %d cgroups", LOCK_MAX_CGROUPS);
		err = lock_cgroup_id(tok, &f->cgroup_ids[f->nr_cgroups]);
		if (err)
			return cli_err("-G", "%s: %s", tok, err == -ENOTDIR ?
				       "not a cgroup of the v2 hierarchy" : strerror(-err));
		f->nr_cgroups++;
	}
	return f->nr_cgroups ? 0 : cli_usage_err("-G: empty list");
}

int lock_filters__resolve(struct lock_filters *f, const struct lock_opts *o)
{
	struct ksyms *ks = NULL;
	unsigned int i;
	int err = 0;

	memset(f, 0, sizeof(*f));
	for (i = 0; o->pid_arg && i < o->nr_targets; i++)
		if (kill(o->targets[i], 0) && errno == ESRCH)
			return cli_err("-p", "no process %u", o->targets[i]);

	if (o->lock_arg || o->callstack_arg) {
		ks = ksyms__load(NULL, o->callstack_arg && !o->lock_arg ? "tTwW" : NULL);
		if (!ks && o->callstack_arg)
			return cli_err("/proc/kallsyms", "%s", strerror(errno));
	}
	if (o->lock_arg)
		err = resolve_locks(f, o, ks);
	if (!err && o->callstack_arg)
		err = resolve_callstack(f, o, ks);
	if (!err && o->cgroup_arg)
		err = resolve_cgroups(f, o);
	/* The filters hold addresses now; the report loads what it names. */
	ksyms__free(ks);
	return err;
}

void lock_filters__free(struct lock_filters *f)
{
	free(f->ranges);
	f->ranges = NULL;
	f->nr_ranges = 0;
}
