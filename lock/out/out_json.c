// SPDX-License-Identifier: GPL-2.0
/*
 * --json: one object with the run's metadata, the rows, the accounting and
 * BPF's run statistics.  With -I, one object a line (JSON Lines), each
 * with its interval's number and time.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json.h"
#include "lock/out/out_int.h"
#include "lock/report/report.h"
#include "lock/request/request.h"
#include "lock/rows/rows.h"

/* Between members: a newline, but none inside a line of JSON Lines (-I). */
static void nl(const struct lock_out *out, struct json_writer *w)
{
	if (!out->ri->interval)
		json__nl(w);
}

static const char *const mode_names[] = {
	[LOCK_AGGR_CALLER] = "caller",
	[LOCK_AGGR_TASK] = "task",
	[LOCK_AGGR_ADDR] = "addr",
	[LOCK_AGGR_CGROUP] = "cgroup",
};

static void header(struct lock_out *out)
{
	const struct lock_run_info *ri = out->ri;
	const struct lock_report_cfg *rc = out->rc;
	struct json_writer *w = malloc(sizeof(*w));

	out->priv = w;
	if (!w) {
		out->err = -ENOMEM;
		return;
	}
	json__init(w, out->f);
	json__obj_begin(w);
	json__str_field(w, "tool", "frugal lock");
	json__str_field(w, "mode", mode_names[rc->mode]);
	/* --hold: each row's count and times are holds, not waits */
	json__str_field(w, "measure", rc->hold ? "hold" : "wait");
	if (rc->owner) {	/* -o: the task rows are the locks' owners */
		json__bool_field(w, "owner", true);
		json__str_field(w, "owner_at", ri->owner_at ? ri->owner_at : "");
		json__str_field(w, "owner_why", ri->owner_why ? ri->owner_why : "");
	}
	/* true: runs nested in ours were counted, not taken (no --nested) */
	json__bool_field(w, "skip_nested", rc->skip_nested);
	if (ri->interval) {
		json__u64_field(w, "interval", ri->interval);
		json__fixed_field(w, "time", ri->time, 3);
	}
	json__str_field(w, "attach", ri->attach ? ri->attach : "");
	json__str_field(w, "kernel", ri->kernel ? ri->kernel : "");
	json__fixed_field(w, "duration_s", ri->seconds, 3);
	json__key(w, "targets");
	json__obj_begin(w);
	json__bool_field(w, "system_wide", rc->system_wide);
	if (rc->pid_arg)
		json__str_field(w, "pid", rc->pid_arg);
	if (rc->tid_arg)
		json__str_field(w, "tid", rc->tid_arg);
	if (rc->cpu_list)
		json__str_field(w, "cpu", rc->cpu_list);
	if (ri->command) {
		json__str_field(w, "command", ri->command);
		json__i64_field(w, "exit_status", ri->exit_status);
	}
	json__obj_end(w);
	json__u64_field(w, "map_entries", rc->map_entries);
	json__u64_field(w, "ring_bytes", rc->ring_kb * 1024);
	json__u64_field(w, "max_stack", rc->shown_frames ? rc->shown_frames : rc->max_stack);
	json__key(w, "rows");
	json__arr_begin(w);
}

/* R's shown stack as an array of "sym+0xoff" */
static void stack(struct lock_out *out, struct json_writer *w, const struct lock_row *r,
		  const struct lock_row_name *rn, const char *name)
{
	char buf[160];
	unsigned int n;
	uint64_t ip;

	json__key(w, name);
	json__arr_begin(w);
	for (n = 0; lock_out__frame(out, r, rn, n, &ip, buf, sizeof(buf)); n++)
		json__str(w, buf);
	json__arr_end(w);
}

static void row(struct lock_out *out, const struct lock_row *r,
		const struct lock_row_name *rn, size_t idx)
{
	struct json_writer *w = out->priv;
	char buf[32];

	(void)idx;
	if (!w)
		return;
	nl(out, w);
	json__obj_begin(w);
	json__u64_field(w, "contended", r->st.count);
	json__u64_field(w, "wait_total_ns", r->st.total_ns);
	json__u64_field(w, "wait_max_ns", r->st.max_ns);
	json__u64_field(w, "wait_min_ns", r->st.min_ns);
	json__u64_field(w, "avg_wait_ns", lock_row_value(r, LOCK_SORT_AVG_WAIT));
	json__str_field(w, "type", lock_type_name(r->st.flags));
	if (r->st.flags & LOCK_F_USER)
		json__bool_field(w, "user", true);
	switch (out->rc->mode) {
	case LOCK_AGGR_CALLER:
		json__str_field(w, "caller", rn->a);
		stack(out, w, r, rn, "stack");
		break;
	case LOCK_AGGR_TASK:
		json__u64_field(w, "pid", r->key & ~LOCK_KEY_USER);
		json__str_field(w, "comm", rn->b);
		if (r->stack)	/* -o -v: where the owner was at the row's first wait */
			stack(out, w, r, rn, "owner_stack");
		break;
	case LOCK_AGGR_ADDR:
		snprintf(buf, sizeof(buf), "0x%" PRIx64, r->st.flags & LOCK_F_USER ?
			 r->key & LOCK_KEY_UADDR : r->key);
		json__str_field(w, "address", buf);
		json__str_field(w, "symbol", rn->sym);
		if (r->st.flags & LOCK_F_USER)
			break;
		/* -l: the name as the table prints it, and its parts */
		json__str_field(w, "name", rn->b);
		json__str_field(w, "member", rn->member);
		json__str_field(w, "object_type", rn->object);
		if (rn->offset >= 0)
			json__i64_field(w, "object_offset", rn->offset);
		json__str_field(w, "object", rn->desc);
		break;
	case LOCK_AGGR_CGROUP:
		json__u64_field(w, "cgroup_id", r->key & ~LOCK_KEY_USER);
		json__str_field(w, "cgroup", rn->a);
		break;
	}
	json__obj_end(w);
}

/*
 * --histogram: by lock type as the rows name it (the flags that share a
 * name summed), the waits' count, total and buckets: each bucket that
 * holds any, with its upper bound in ns (null: past the last bound).
 */
static void wait_hist(struct json_writer *w, const struct lock_hist *h)
{
	uint32_t t, u;
	int b;

	json__key(w, "wait_histogram");
	json__obj_begin(w);
	for (t = 0; t < LOCK_HIST_TYPES; t++) {
		const char *name = lock_type_name(t);
		struct lock_hist sum = { 0 };
		uint64_t count = 0;

		for (u = 0; u < t && strcmp(lock_type_name(u), name); u++)
			;
		if (u < t)
			continue;	/* summed under its name already */
		for (u = t; u < LOCK_HIST_TYPES; u++) {
			if (strcmp(lock_type_name(u), name))
				continue;
			sum.sum_ns += h[u].sum_ns;
			for (b = 0; b < LOCK_HIST_BUCKETS; b++)
				sum.count[b] += h[u].count[b];
		}
		for (b = 0; b < LOCK_HIST_BUCKETS; b++)
			count += sum.count[b];
		if (!count)
			continue;
		json__key(w, name);
		json__obj_begin(w);
		json__u64_field(w, "count", count);
		json__u64_field(w, "sum_ns", sum.sum_ns);
		json__key(w, "buckets");
		json__arr_begin(w);
		for (b = 0; b < LOCK_HIST_BUCKETS; b++) {
			if (!sum.count[b])
				continue;
			json__obj_begin(w);
			json__key(w, "le_ns");
			if (b < LOCK_HIST_BUCKETS - 1)
				json__u64(w, 1ULL << b);
			else
				json__null(w);
			json__u64_field(w, "count", sum.count[b]);
			json__obj_end(w);
		}
		json__arr_end(w);
		json__obj_end(w);
	}
	json__obj_end(w);
}

static void accounting(struct lock_out *out, const struct lock_accounting *a,
		       const struct lock_acct_line *l, size_t n)
{
	struct json_writer *w = out->priv;
	size_t i;

	if (!w)
		return;
	json__arr_end(w);
	nl(out, w);
	json__key(w, "accounting");
	json__obj_begin(w);
	for (i = 0; i < n; i++)
		json__u64_field(w, l[i].json, l[i].v);
	json__obj_end(w);
	nl(out, w);
	json__key(w, "bpf_stats");
	if (a->have_stats) {
		json__obj_begin(w);
		json__u64_field(w, "begin_run_cnt", a->begin_runs);
		json__u64_field(w, "begin_run_time_ns", a->begin_ns);
		json__u64_field(w, "end_run_cnt", a->end_runs);
		json__u64_field(w, "end_run_time_ns", a->end_ns);
		json__u64_field(w, "begin2_run_cnt", a->begin2_runs);
		json__u64_field(w, "end2_run_cnt", a->end2_runs);
		json__u64_field(w, "release_run_cnt", a->release_runs);
		json__u64_field(w, "release_run_time_ns", a->release_ns);
		json__u64_field(w, "release_recursion_misses", a->release_misses);
		json__obj_end(w);
	} else {
		json__null(w);
	}
	if (a->user && (a->u_begin_ns || a->u_end_ns)) {
		json__key(w, "user_bpf_stats");
		json__obj_begin(w);
		json__u64_field(w, "entry_run_cnt", a->u_begin_runs);
		json__u64_field(w, "entry_run_time_ns", a->u_begin_ns);
		json__u64_field(w, "return_run_cnt", a->u_end_runs);
		json__u64_field(w, "return_run_time_ns", a->u_end_ns);
		json__fixed_field(w, "unwind_cpu_ns", a->u_unwind_s * 1e9, 0);
		json__obj_end(w);
	}
	if (a->user)
		json__fixed_field(w, "user_unwind_cpu_ns", a->u_unwind_s * 1e9, 0);
	if (out->ri->wait_hist)
		wait_hist(w, out->ri->wait_hist);
}

static void footer(struct lock_out *out)
{
	struct json_writer *w = out->priv;

	if (!w)
		return;
	json__obj_end(w);
	fputc('\n', out->f);
	free(w);
	out->priv = NULL;
}

const struct lock_output lock_output_json = {
	.header = header,
	.row = row,
	.accounting = accounting,
	.footer = footer,
};
