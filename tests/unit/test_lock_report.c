// SPDX-License-Identifier: GPL-2.0
/*
 * frugal lock's user-space logic: -Y parsing, perf's time units, merging
 * kernel rows with overflow events (counts add, extremes kept) and sorting
 * by every -k key, and the JSON report parsed back for its totals.
 */
#include <errno.h>
#include <stdlib.h>

#include "lock/out/out.h"
#include "lock/out/out_int.h"
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

static void test_types(void)
{
	uint64_t m;

	TEST_BEGIN("lock: -Y type names");
	CHECK(!lock_type_parse("rwsem", &m) &&
	      m == ((1ULL << LCB_F_READ) | (1ULL << LCB_F_WRITE)), "rwsem mask %llx",
	      (unsigned long long)m);
	CHECK(!lock_type_parse("rwsem:W", &m) && m == 1ULL << LCB_F_WRITE, "rwsem:W");
	CHECK(!lock_type_parse("mutex", &m) &&
	      m == ((1ULL << LCB_F_MUTEX) | (1ULL << (LCB_F_MUTEX | LCB_F_SPIN))), "mutex");
	CHECK(!lock_type_parse("spinlock,rwlock:R", &m) &&
	      m == ((1ULL << LCB_F_SPIN) | (1ULL << (LCB_F_SPIN | LCB_F_READ))), "list");
	CHECK(!lock_type_parse("percpu-rwsem:R", &m) &&
	      m == 1ULL << (LCB_F_PERCPU | LCB_F_READ), "percpu-rwsem:R");
	CHECK_EQ(lock_type_parse("bogus", &m), -EINVAL);
	CHECK_EQ(lock_type_parse("", &m), -EINVAL);
	CHECK_STR(lock_type_name(LCB_F_WRITE), "rwsem:W");
	CHECK_STR(lock_type_name(LCB_F_MUTEX | LCB_F_SPIN), "mutex");
	CHECK_STR(lock_type_name(LCB_F_SPIN | LOCK_F_SIGLOCK), "spinlock");
	TEST_END();
}

static void test_units(void)
{
	char b[32];

	TEST_BEGIN("lock: time units as perf prints them");
	lock_fmt_time(b, sizeof(b), 999);
	CHECK_STR(b, "999 ns");
	lock_fmt_time(b, sizeof(b), 1500);
	CHECK_STR(b, "1.50 us");
	lock_fmt_time(b, sizeof(b), 2500000);
	CHECK_STR(b, "2.50 ms");
	lock_fmt_time(b, sizeof(b), 3000000000ULL);
	CHECK_STR(b, "3.00 s");
	TEST_END();
}

static struct lock_stat st(uint32_t count, uint64_t total, uint64_t min, uint64_t max)
{
	struct lock_stat s = { total, max, min, count, LCB_F_WRITE };

	return s;
}

static void test_merge_sort(void)
{
	struct lock_table *t = lock_table__new(0);
	struct lock_row **rows;
	struct lock_stat s;
	char comm[LOCK_COMM_LEN] = "worker";
	int i;

	TEST_BEGIN("lock: rows merge and sort by each key");
	if (!CHECK(t, "no table"))
		return;
	/* key 1: kernel row + two overflow events */
	s = st(10, 1000, 50, 300);
	CHECK_EQ(lock_table__add(t, 1, &s, comm, sizeof(comm)), 0);
	s = st(1, 400, 400, 400);
	lock_table__add(t, 1, &s, comm, sizeof(comm));
	s = st(1, 10, 10, 10);
	lock_table__add(t, 1, &s, comm, sizeof(comm));
	/* key 2: fewer, longer waits; key 3: many short */
	s = st(2, 5000, 2000, 3000);
	lock_table__add(t, 2, &s, NULL, 0);
	s = st(100, 900, 1, 20);
	lock_table__add(t, 3, &s, NULL, 0);
	/* 500 more keys force the table to grow */
	for (i = 0; i < 500; i++) {
		s = st(1, 1, 1, 1);
		lock_table__add(t, 1000 + i, &s, NULL, 0);
	}
	CHECK_EQ(lock_table__len(t), 503);
	CHECK_EQ(lock_table__sum_count(t), 12 + 2 + 100 + 500);

	rows = lock_table__sorted(t, LOCK_SORT_WAIT_TOTAL);
	CHECK_EQ(rows[0]->key, 2);
	CHECK_EQ(rows[1]->key, 1);
	CHECK_EQ(rows[1]->st.count, 12);
	CHECK_EQ(rows[1]->st.total_ns, 1410);
	CHECK_EQ(rows[1]->st.max_ns, 400);
	CHECK_EQ(rows[1]->st.min_ns, 10);
	CHECK_STR(rows[1]->comm, "worker");
	free(rows);
	rows = lock_table__sorted(t, LOCK_SORT_CONTENDED);
	CHECK_EQ(rows[0]->key, 3);
	free(rows);
	rows = lock_table__sorted(t, LOCK_SORT_WAIT_MIN);
	CHECK_EQ(rows[0]->key, 2);
	free(rows);
	rows = lock_table__sorted(t, LOCK_SORT_AVG_WAIT);
	CHECK_EQ(rows[0]->key, 2);
	CHECK_EQ(lock_row_value(rows[0], LOCK_SORT_AVG_WAIT), 2500);
	free(rows);
	rows = lock_table__sorted(t, LOCK_SORT_WAIT_MAX);
	CHECK_EQ(rows[0]->key, 2);
	CHECK_EQ(rows[1]->key, 1);
	free(rows);
	lock_table__free(t);
	TEST_END();
}

static void test_report_json(void)
{
	struct lock_opts o = { .mode = LOCK_AGGR_TASK, .sort = LOCK_SORT_CONTENDED,
			       .fields = LOCK_FIELDS_DEFAULT, .map_entries = 8,
			       .ring_kb = 256, .format = LOCK_FMT_JSON, .entries = 1 };
	struct lock_accounting a = { 0 };
	struct lock_run_info ri = { .attach = "tp_btf", .seconds = 1.0, .kernel = "6.x" };
	struct lock_table *t = lock_table__new(0);
	char comm[LOCK_COMM_LEN] = "a\"b";
	struct lock_stat s = st(3, 30, 10, 10);
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	TEST_BEGIN("lock: JSON report escapes names and honours -E");
	lock_table__add(t, 42, &s, comm, sizeof(comm));
	s = st(1, 5, 5, 5);
	lock_table__add(t, 43, &s, comm, sizeof(comm));
	a.c[LC_ENDS] = 4;
	a.c[LC_AGGR_NEW] = 2;
	a.c[LC_AGGR_HIT] = 2;
	f = open_memstream(&buf, &len);
	CHECK_EQ(lock_report(f, o.format, cfg_of(&o), t, &a, &ri, NULL), 0);
	fclose(f);
	CHECK(strstr(buf, "\"comm\":\"a\\\"b\""), "comm not escaped: %s", buf);
	CHECK(strstr(buf, "\"pid\":42"), "row 42 missing");
	CHECK(!strstr(buf, "\"pid\":43"), "-E 1 printed a second row");
	CHECK(strstr(buf, "\"completed\":4"), "accounting missing");
	CHECK(strstr(buf, "\"in_rows\":4"), "in_rows counts all rows, not just printed");
	free(buf);
	lock_table__free(t);
	TEST_END();
}

int main(void)
{
	test_types();
	test_units();
	test_merge_sort();
	test_report_json();
	TEST_EXIT();
}
