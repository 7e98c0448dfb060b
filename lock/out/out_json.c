// SPDX-License-Identifier: GPL-2.0
/*
 * --json: one object with the run's metadata, the rows, the accounting and
 * BPF's run statistics.  With -I, one object a line (JSON Lines), each
 * with its interval's number and time.
 */
#include <inttypes.h>

#include "lock/out/out_int.h"
#include "lock/report/report.h"
#include "lock/request/request.h"
#include "lock/rows/rows.h"

static void put_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char ch = *s;

		if (ch == '"' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else if (ch < 0x20 || ch >= 0x7f)
			fprintf(f, "\\u%04x", ch);
		else
			fputc(ch, f);
	}
	fputc('"', f);
}

/* A string member: ,"NAME":"VALUE" */
static void put_member(FILE *f, const char *name, const char *value)
{
	fprintf(f, ",\"%s\":", name);
	put_str(f, value);
}

/* Between members: a newline, but none inside a line of JSON Lines (-I). */
static const char *nl(const struct lock_out *out)
{
	return out->ri->interval ? "" : "\n";
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
	FILE *f = out->f;

	fprintf(f, "{\"tool\":\"frugal lock\",\"mode\":\"%s\"", mode_names[rc->mode]);
	/* --hold: each row's count and times are holds, not waits */
	fprintf(f, ",\"measure\":\"%s\"", rc->hold ? "hold" : "wait");
	if (rc->owner) {	/* -o: the task rows are the locks' owners */
		fprintf(f, ",\"owner\":true");
		put_member(f, "owner_at", ri->owner_at ? ri->owner_at : "");
		put_member(f, "owner_why", ri->owner_why ? ri->owner_why : "");
	}
	/* true: runs nested in ours were counted, not taken (no --nested) */
	fprintf(f, ",\"skip_nested\":%s", rc->skip_nested ? "true" : "false");
	if (ri->interval)
		fprintf(f, ",\"interval\":%u,\"time\":%.3f", ri->interval, ri->time);
	put_member(f, "attach", ri->attach ? ri->attach : "");
	put_member(f, "kernel", ri->kernel ? ri->kernel : "");
	fprintf(f, ",\"duration_s\":%.3f,\"targets\":{\"system_wide\":%s",
		ri->seconds, rc->system_wide ? "true" : "false");
	if (rc->pid_arg)
		put_member(f, "pid", rc->pid_arg);
	if (rc->tid_arg)
		put_member(f, "tid", rc->tid_arg);
	if (rc->cpu_list)
		put_member(f, "cpu", rc->cpu_list);
	if (ri->command) {
		put_member(f, "command", ri->command);
		fprintf(f, ",\"exit_status\":%d", ri->exit_status);
	}
	fprintf(f, "},\"map_entries\":%u,\"ring_bytes\":%u,\"max_stack\":%u,",
		rc->map_entries, rc->ring_kb * 1024,
		rc->shown_frames ? rc->shown_frames : rc->max_stack);
	fprintf(f, "\"rows\":[");
}

static void row(struct lock_out *out, const struct lock_row *r,
		const struct lock_row_name *rn, size_t idx)
{
	FILE *f = out->f;
	char buf[160];
	unsigned int n;
	uint64_t ip;

	fprintf(f, "%s%s{\"contended\":%u,\"wait_total_ns\":%" PRIu64
		",\"wait_max_ns\":%" PRIu64 ",\"wait_min_ns\":%" PRIu64
		",\"avg_wait_ns\":%" PRIu64 ",\"type\":", idx ? "," : "", nl(out),
		r->st.count, (uint64_t)r->st.total_ns, (uint64_t)r->st.max_ns, (uint64_t)r->st.min_ns,
		lock_row_value(r, LOCK_SORT_AVG_WAIT));
	put_str(f, lock_type_name(r->st.flags));
	if (r->st.flags & LOCK_F_USER)
		fprintf(f, ",\"user\":true");
	switch (out->rc->mode) {
	case LOCK_AGGR_CALLER:
		put_member(f, "caller", rn->a);
		fprintf(f, ",\"stack\":[");
		for (n = 0; lock_out__frame(out, r, rn, n, &ip, buf, sizeof(buf)); n++) {
			fprintf(f, "%s", n ? "," : "");
			put_str(f, buf);
		}
		fprintf(f, "]");
		break;
	case LOCK_AGGR_TASK:
		fprintf(f, ",\"pid\":%s", rn->a);
		put_member(f, "comm", rn->b);
		if (!r->stack)
			break;
		/* -o -v: where the owner was at the row's first wait */
		fprintf(f, ",\"owner_stack\":[");
		for (n = 0; lock_out__frame(out, r, rn, n, &ip, buf, sizeof(buf)); n++) {
			fprintf(f, "%s", n ? "," : "");
			put_str(f, buf);
		}
		fprintf(f, "]");
		break;
	case LOCK_AGGR_ADDR:
		fprintf(f, ",\"address\":\"0x%" PRIx64 "\"", r->st.flags & LOCK_F_USER ?
			r->key & LOCK_KEY_UADDR : r->key);
		put_member(f, "symbol", rn->sym);
		if (r->st.flags & LOCK_F_USER)
			break;
		/* -l: the name as the table prints it, and its parts */
		put_member(f, "name", rn->b);
		put_member(f, "member", rn->member);
		put_member(f, "object_type", rn->object);
		if (rn->offset >= 0)
			fprintf(f, ",\"object_offset\":%" PRId64, rn->offset);
		put_member(f, "object", rn->desc);
		break;
	case LOCK_AGGR_CGROUP:
		fprintf(f, ",\"cgroup_id\":%" PRIu64, r->key & ~LOCK_KEY_USER);
		put_member(f, "cgroup", rn->a);
		break;
	}
	fputc('}', f);
}

static void accounting(struct lock_out *out, const struct lock_accounting *a,
		       const struct lock_acct_line *l, size_t n)
{
	FILE *f = out->f;
	size_t i;

	fprintf(f, "],%s\"accounting\":{", nl(out));
	for (i = 0; i < n; i++)
		fprintf(f, "%s\"%s\":%" PRIu64, i ? "," : "", l[i].json, l[i].v);
	fprintf(f, "},%s\"bpf_stats\":", nl(out));
	if (a->have_stats)
		fprintf(f, "{\"begin_run_cnt\":%" PRIu64 ",\"begin_run_time_ns\":%" PRIu64
			",\"end_run_cnt\":%" PRIu64 ",\"end_run_time_ns\":%" PRIu64
			",\"begin2_run_cnt\":%" PRIu64 ",\"end2_run_cnt\":%" PRIu64
			",\"release_run_cnt\":%" PRIu64 ",\"release_run_time_ns\":%" PRIu64
			",\"release_recursion_misses\":%" PRIu64 "}",
			a->begin_runs, a->begin_ns, a->end_runs, a->end_ns, a->begin2_runs,
			a->end2_runs, a->release_runs, a->release_ns, a->release_misses);
	else
		fprintf(f, "null");
	if (a->user && (a->u_begin_ns || a->u_end_ns))
		fprintf(f, ",\"user_bpf_stats\":{\"entry_run_cnt\":%" PRIu64
			",\"entry_run_time_ns\":%" PRIu64 ",\"return_run_cnt\":%" PRIu64
			",\"return_run_time_ns\":%" PRIu64 ",\"unwind_cpu_ns\":%.0f}",
			a->u_begin_runs, a->u_begin_ns, a->u_end_runs, a->u_end_ns,
			a->u_unwind_s * 1e9);
	if (a->user)
		fprintf(f, ",\"user_unwind_cpu_ns\":%.0f", a->u_unwind_s * 1e9);
}

static void footer(struct lock_out *out)
{
	fprintf(out->f, "}\n");
}

const struct lock_output lock_output_json = {
	.header = header,
	.row = row,
	.accounting = accounting,
	.footer = footer,
};
