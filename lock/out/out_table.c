// SPDX-License-Identifier: GPL-2.0
/*
 * The table: perf lock contention's columns and units; -v adds each row's
 * stack.  With -I, each interval's table under a line with its number,
 * local time and length.
 */
#include <inttypes.h>
#include <time.h>

#include "lock/out/out_int.h"
#include "lock/report/report.h"
#include "lock/request/request.h"

void lock_fmt_time(char *buf, size_t size, uint64_t ns)
{
	if (ns < 1000)
		snprintf(buf, size, "%" PRIu64 " ns", ns);
	else if (ns < 1000000)
		snprintf(buf, size, "%.2f us", ns / 1e3);
	else if (ns < 1000000000)
		snprintf(buf, size, "%.2f ms", ns / 1e6);
	else
		snprintf(buf, size, "%.2f s", ns / 1e9);
}

static void header(struct lock_out *out)
{
	const struct lock_report_cfg *rc = out->rc;
	FILE *f = out->f;
	size_t i;

	if (out->ri->interval && out->format == LOCK_FMT_TABLE) {
		time_t sec = (time_t)out->ri->time;
		char when[32] = "";
		struct tm tm;

		if (localtime_r(&sec, &tm))
			strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
		fprintf(f, "=== interval %u: %s.%03d, %.3f s ===\n\n", out->ri->interval, when,
			(int)((out->ri->time - sec) * 1000), out->ri->seconds);
	}
	for (i = 0; i < LOCK_NR_COLUMNS; i++)
		if (rc->fields & lock_columns[i].field)
			fprintf(f, "%*s ", i ? 12 : 10, rc->hold ? lock_columns[i].hold_header :
				lock_columns[i].header);
	switch (rc->mode) {
	case LOCK_AGGR_TASK:
		fprintf(f, "%10s   %s\n\n", "pid", "comm");
		break;
	case LOCK_AGGR_ADDR:
		fprintf(f, "%16s   %-24s %s\n\n", "address", "symbol", "type");
		break;
	default:
		fprintf(f, "%14s   %s\n\n", lock_name_headers[rc->mode][0],
			lock_name_headers[rc->mode][1]);
	}
}

/*
 * A comm, a lock's name or a cgroup path in the table: control characters
 * (a newline in a comm or a file's name would start a bogus row) as '?',
 * as ps prints them; other bytes as they are (UTF-8 stays UTF-8).  CSV and
 * JSON keep the bytes, quoted.  Returns the characters written, the
 * continuation bytes of UTF-8 not counted, for the padding after it.
 */
static size_t put_text(FILE *f, const char *s)
{
	size_t chars = 0;

	for (; *s; s++) {
		fputc((unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s, f);
		chars += ((unsigned char)*s & 0xc0) != 0x80;
	}
	return chars;
}

static void row(struct lock_out *out, const struct lock_row *r,
		const struct lock_row_name *rn, size_t idx)
{
	const struct lock_report_cfg *rc = out->rc;
	FILE *f = out->f;
	char t[160];
	unsigned int n;
	uint64_t ip;
	size_t i;

	(void)idx;
	for (i = 0; i < LOCK_NR_COLUMNS; i++) {
		if (!(rc->fields & lock_columns[i].field))
			continue;
		if (lock_columns[i].sort == LOCK_SORT_CONTENDED) {
			fprintf(f, "%10u ", r->st.count);
			continue;
		}
		lock_fmt_time(t, sizeof(t), lock_row_value(r, lock_columns[i].sort));
		fprintf(f, "%12s ", t);
	}
	switch (rc->mode) {
	case LOCK_AGGR_TASK:
		fprintf(f, "%10s   ", rn->a);
		put_text(f, rn->b);
		fputc('\n', f);
		break;
	case LOCK_AGGR_ADDR:
		fprintf(f, "%16s   ", rn->a);
		n = put_text(f, rn->b[0] ? rn->b : "-");
		fprintf(f, "%*s %s\n", n < 24 ? 24 - (int)n : 0, "", lock_type_name(r->st.flags));
		break;
	default:
		fprintf(f, "%14s   ", lock_type_name(r->st.flags));
		put_text(f, rn->a);
		fputc('\n', f);
	}
	for (n = 0; rc->verbose_stacks && lock_out__frame(out, r, rn, n, &ip, t, sizeof(t)); n++)
		fprintf(f, "\t\t\t0x%" PRIx64 "  %s\n", ip, t);
}

const struct lock_output lock_output_table = {
	.header = header,
	.row = row,
	.accounting = lock_out__accounting_text,
};

/* The live view's screen (top.c): the rows; the accounting is on its status lines. */
static void no_accounting(struct lock_out *out, const struct lock_accounting *a,
			  const struct lock_acct_line *l, size_t n)
{
	(void)out, (void)a, (void)l, (void)n;
}

const struct lock_output lock_output_top = {
	.header = header,
	.row = row,
	.accounting = no_accounting,
};
