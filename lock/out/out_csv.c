// SPDX-License-Identifier: GPL-2.0
/*
 * -x SEP: CSV with SEP, raw nanoseconds, the accounting as '#' comments.
 * With -I, a first column "time" (seconds since the epoch) and the header
 * line once, at the first interval.
 */
#include <inttypes.h>
#include <string.h>

#include "lock/out/out_int.h"
#include "lock/report/report.h"
#include "lock/request/request.h"

static void header(struct lock_out *out)
{
	const struct lock_report_cfg *rc = out->rc;
	const char *sep = rc->csv_sep;
	FILE *f = out->f;
	size_t i;

	if (out->ri->interval > 1)
		return;
	if (out->ri->interval)
		fprintf(f, "time%s", sep);
	for (i = 0; i < LOCK_NR_COLUMNS; i++)
		if (rc->fields & lock_columns[i].field)
			fprintf(f, "%s%s", lock_columns[i].key, sep);
	if (rc->mode == LOCK_AGGR_ADDR)
		fprintf(f, "address%ssymbol%stype%smember%sobject_type%sobject_offset%sobject\n",
			sep, sep, sep, sep, sep, sep);
	else
		fprintf(f, "%s%s%s\n", lock_name_headers[rc->mode][0], sep,
			lock_name_headers[rc->mode][1]);
}

/*
 * A text field: comms, symbols and cgroup paths may hold the separator,
 * quotes or newlines (a task names itself), so such a field is quoted as
 * RFC 4180 says, its quotes doubled.
 */
static void put_str(FILE *f, const char *s, const char *sep)
{
	if (!strstr(s, sep) && !strpbrk(s, "\"\n\r")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static void row(struct lock_out *out, const struct lock_row *r,
		const struct lock_row_name *rn, size_t idx)
{
	const struct lock_report_cfg *rc = out->rc;
	const char *sep = rc->csv_sep;
	FILE *f = out->f;
	size_t i;

	(void)idx;
	if (out->ri->interval)
		fprintf(f, "%.3f%s", out->ri->time, sep);
	for (i = 0; i < LOCK_NR_COLUMNS; i++) {
		if (!(rc->fields & lock_columns[i].field))
			continue;
		fprintf(f, "%" PRIu64 "%s", lock_row_value(r, lock_columns[i].sort), sep);
	}
	switch (rc->mode) {
	case LOCK_AGGR_TASK:
		fprintf(f, "%s%s", rn->a, sep);
		put_str(f, rn->b, sep);
		break;
	case LOCK_AGGR_ADDR:
		fprintf(f, "%s%s", rn->a, sep);
		put_str(f, rn->sym, sep);
		fprintf(f, "%s%s%s", sep, lock_type_name(r->st.flags), sep);
		/* -l: the member path, its struct, the offset in the object */
		put_str(f, rn->member, sep);
		fputs(sep, f);
		put_str(f, rn->object, sep);
		fputs(sep, f);
		if (rn->offset >= 0)
			fprintf(f, "%" PRId64, rn->offset);
		fputs(sep, f);
		put_str(f, rn->desc, sep);
		break;
	default:
		fprintf(f, "%s%s", lock_type_name(r->st.flags), sep);
		put_str(f, rn->a, sep);
	}
	fputc('\n', f);
}

const struct lock_output lock_output_csv = {
	.header = header,
	.row = row,
	.accounting = lock_out__accounting_text,
};
