// SPDX-License-Identifier: GPL-2.0
/*
 * The text formats from synthetic rows: perf's table (its header, units
 * and column choice, -E), -x CSV (its columns, quoting, the -I time
 * column, the accounting as comments) and --folded (one line a row, the
 * task as root, the weight, rows weighing nothing left out, nothing but
 * the lines on the output).
 */
#include <stdlib.h>
#include <string.h>

#include "lock/out/out.h"
#include "lock/report/report.h"
#include "lock/request/request.h"
#include "lock/rows/rows.h"
#include "tests/test.h"

/* The report's configuration of O, as a run builds it (no command). */
static const struct lock_report_cfg *cfg_of(const struct lock_opts *o)
{
	static struct lock_report_cfg rc;

	lock_report_cfg__build(&rc, o, false);
	return &rc;
}

static struct lock_opts opts(enum lock_format fmt)
{
	struct lock_opts o = { .mode = LOCK_AGGR_TASK, .sort = LOCK_SORT_WAIT_TOTAL,
			       .fields = LOCK_FIELDS_DEFAULT, .map_entries = 8, .csv_sep = ",",
			       .ring_kb = 256, .format = fmt, .entries = 10 };

	return o;
}

static void add(struct lock_table *t, uint64_t pid, const char *name, uint32_t count,
		uint64_t total, uint64_t min, uint64_t max)
{
	struct lock_stat s = { total, max, min, count, LCB_F_WRITE };
	char comm[LOCK_COMM_LEN] = "";

	strncpy(comm, name, sizeof(comm) - 1);
	lock_table__add(t, pid, &s, comm, sizeof(comm));
}

/* The report of three tasks' rows in O's format and shape, in a string. */
static char *report(const struct lock_opts *o, const struct lock_run_info *ri)
{
	struct lock_accounting a = { 0 };
	struct lock_table *t = lock_table__new(0);
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int err;

	add(t, 43, "sh", 1, 5, 5, 5);
	add(t, 42, "a,\"b", 3, 3000, 500, 1500);
	add(t, 44, "idle", 2, 0, 0, 0);
	a.c[LC_ENDS] = 6;
	a.c[LC_AGGR_NEW] = 3;
	a.c[LC_AGGR_HIT] = 3;
	f = open_memstream(&buf, &len);
	err = lock_report(f, o->format, cfg_of(o), t, &a, ri, NULL);
	fclose(f);
	lock_table__free(t);
	if (err) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* Line N (from 0) of S, in BUF. */
static const char *line(const char *s, int n, char *buf, size_t size)
{
	const char *e;

	for (; n > 0 && s; n--)
		s = (s = strchr(s, '\n')) ? s + 1 : NULL;
	if (!s)
		return "(none)";
	e = strchrnul(s, '\n');
	snprintf(buf, size, "%.*s", (int)(e - s), s);
	return buf;
}

static void test_table(void)
{
	struct lock_run_info ri = { .attach = "tp_btf", .seconds = 1.0, .kernel = "6.x" };
	struct lock_opts o = opts(LOCK_FMT_TABLE);
	char b[256], *s;

	TEST_BEGIN("lock formats: perf's table, units, rows by -k, the accounting");
	s = report(&o, &ri);
	if (!CHECK(s, "no report"))
		return;
	CHECK_STR(line(s, 0, b, sizeof(b)),
		  " contended   total wait     max wait     avg wait        pid   comm");
	CHECK_STR(line(s, 1, b, sizeof(b)), "");
	CHECK_STR(line(s, 2, b, sizeof(b)),
		  "         3      3.00 us      1.50 us      1.00 us         42   a,\"b");
	CHECK_STR(line(s, 3, b, sizeof(b)),
		  "         1         5 ns         5 ns         5 ns         43   sh");
	CHECK_STR(line(s, 4, b, sizeof(b)),
		  "         2         0 ns         0 ns         0 ns         44   idle");
	CHECK(strstr(s, "\n=== accounting ===\n"), "no accounting: %s", s);
	CHECK(strstr(s, "contentions completed (ends seen)                               6\n"),
	      "completed line: %s", s);
	free(s);

	o.fields = LOCK_FIELD_CONTENDED | LOCK_FIELD_WAIT_MIN;
	o.sort = LOCK_SORT_CONTENDED;
	o.entries = 1;
	s = report(&o, &ri);
	CHECK_STR(line(s, 0, b, sizeof(b)), " contended     min wait        pid   comm");
	CHECK_STR(line(s, 2, b, sizeof(b)), "         3       500 ns         42   a,\"b");
	CHECK_STR(line(s, 3, b, sizeof(b)), "");
	CHECK(s && strstr(s, "in rows (all of them, printed or not)                         6\n"),
	      "-E 1 still counts every row: %s", s);
	free(s);
	TEST_END();
}

static void test_csv(void)
{
	struct lock_run_info ri = { .attach = "tp_btf", .seconds = 1.0, .kernel = "6.x" };
	struct lock_opts o = opts(LOCK_FMT_CSV);
	char b[256], *s, *p;

	TEST_BEGIN("lock formats: -x CSV, quoting, -I's time column, accounting as comments");
	s = report(&o, &ri);
	if (!CHECK(s, "no report"))
		return;
	CHECK_STR(line(s, 0, b, sizeof(b)), "contended,wait_total,wait_max,avg_wait,pid,comm");
	CHECK_STR(line(s, 1, b, sizeof(b)), "3,3000,1500,1000,42,\"a,\"\"b\"");
	CHECK_STR(line(s, 2, b, sizeof(b)), "1,5,5,5,43,sh");
	CHECK_STR(line(s, 3, b, sizeof(b)), "2,0,0,0,44,idle");
	/* Everything after the rows is a comment. */
	for (p = strchr(strstr(s, "44,idle"), '\n') + 1; *p; p = strchr(p, '\n') + 1)
		if (!CHECK(*p == '#', "a line after the rows is not a comment: %.40s", p))
			break;
	CHECK(strstr(s, "# contentions completed (ends seen)"), "accounting: %s", s);
	free(s);

	o.csv_sep = ";";
	ri.interval = 1;
	ri.time = 1700000000.25;
	s = report(&o, &ri);
	CHECK_STR(line(s, 0, b, sizeof(b)), "time;contended;wait_total;wait_max;avg_wait;pid;comm");
	CHECK_STR(line(s, 1, b, sizeof(b)), "1700000000.250;3;3000;1500;1000;42;\"a,\"\"b\"");
	free(s);
	ri.interval = 2;
	s = report(&o, &ri);
	CHECK_STR(line(s, 0, b, sizeof(b)), "1700000000.250;3;3000;1500;1000;42;\"a,\"\"b\"");
	free(s);
	TEST_END();
}

static void test_folded(void)
{
	struct lock_run_info ri = { .attach = "tp_btf", .seconds = 1.0, .kernel = "6.x" };
	struct lock_opts o = opts(LOCK_FMT_FOLDED);
	char *s;

	TEST_BEGIN("lock formats: --folded lines, task as root, weight, nothing else");
	/* The accounting goes to stderr: the output is the lines alone. */
	if (!CHECK(freopen("/dev/null", "w", stderr), "stderr"))
		return;
	s = report(&o, &ri);
	CHECK_STR(s, "a,\"b-42;[rwsem:W] 3000\nsh-43;[rwsem:W] 5\n");
	free(s);
	o.weight = LOCK_WEIGHT_CONTENDED;
	o.sort = LOCK_SORT_CONTENDED;
	s = report(&o, &ri);
	CHECK_STR(s, "a,\"b-42;[rwsem:W] 3\nidle-44;[rwsem:W] 2\nsh-43;[rwsem:W] 1\n");
	free(s);
	TEST_END();
}

int main(void)
{
	test_table();
	test_csv();
	test_folded();
	TEST_EXIT();
}
