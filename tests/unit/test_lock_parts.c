// SPDX-License-Identifier: GPL-2.0
/*
 * The parts of lock/ that need no kernel: the row table on lib/idxmap,
 * -I's accounting differences, the engines' configurations built from a
 * parsed request, and -U's names of the C library's locking code.
 */
#include <stdint.h>
#include <stdlib.h>

#include "lock/report/report.h"
#include "lock/request/request.h"
#include "lock/rows/rows.h"
#include "lock/user/ulibc_int.h"
#include "tests/test.h"

static struct lock_stat st(uint64_t count, uint64_t total)
{
	struct lock_stat s = { .total_ns = total, .max_ns = total, .min_ns = total,
			       .count = count };

	return s;
}

/* Enough keys to grow the map many times, some empty (defined only). */
static void test_table_many(void)
{
	struct lock_table *t = lock_table__new(0);
	struct lock_row **rows;
	struct lock_stat s = st(1, 10);
	uint64_t k, n = 20000, sum = 0;
	int err = 0;

	TEST_BEGIN("lock: row table: 20000 keys, merged twice, sorted");
	CHECK(t != NULL, "no table");
	for (k = 1; t && k <= n && !err; k++) {
		/* Keys alike in their low bits: a weak mix would pile them up. */
		err = lock_table__add(t, k << 32, &s, NULL, 0) ?:
		      lock_table__add(t, k << 32, &s, NULL, 0);
		if (k % 4 == 0)
			err = err ?: lock_table__define(t, k << 32 | 1, 0, NULL, 0);
	}
	CHECK_EQ(err, 0);
	CHECK_EQ(lock_table__len(t), n);
	CHECK_EQ(lock_table__sum_count(t), 2 * n);
	CHECK(lock_table__has(t, 7ULL << 32), "key 7 missing");
	CHECK(lock_table__has(t, 8ULL << 32 | 1), "defined key missing");
	CHECK(!lock_table__has(t, 7ULL << 32 | 1), "a key never added is there");
	rows = lock_table__sorted(t, LOCK_SORT_CONTENDED);
	CHECK(rows != NULL, "no rows");
	for (k = 0; rows && k < n; k++) {
		sum += rows[k]->st.count;
		/* Ties in count: by key, ascending. */
		if (k && rows[k - 1]->key >= rows[k]->key)
			CHECK(0, "row %llu out of order", (unsigned long long)k);
	}
	CHECK_EQ(sum, 2 * n);
	free(rows);
	lock_table__free(t);
	TEST_END();
}

static void test_acct_delta(void)
{
	struct lock_accounting prev = { 0 }, a = { 0 };

	TEST_BEGIN("lock: -I accounting: counts subtracted, levels kept, ends summed again");
	prev.c[LC_AGGR_HIT] = 10;
	prev.c[LC_FILTERED] = 3;
	prev.merged = 5;
	prev.u_merged = 7;
	prev.u_unwind_s = 1.0;
	prev.u[UL_WAITS] = 4;
	a = prev;
	a.c[LC_AGGR_HIT] = 15;
	a.c[LC_FILTERED] = 2;		/* read order: went down, counts as 0 */
	a.merged = 6;
	a.u_merged = 9;
	a.u_unwind_s = 1.5;
	a.u[UL_WAITS] = 10;
	a.open_waits = 42;
	a.u_open = 3;
	a.stop_unsure = 1;
	lock_accounting__delta(&a, &prev);
	CHECK_EQ(a.c[LC_AGGR_HIT], 5);
	CHECK_EQ(a.c[LC_FILTERED], 0);
	CHECK_EQ(a.merged, 1);
	CHECK_EQ(a.u_merged, 2);
	CHECK_EQ(a.u[UL_WAITS], 6);
	CHECK(a.u_unwind_s > 0.49 && a.u_unwind_s < 0.51, "unwind time %f", a.u_unwind_s);
	CHECK_EQ(a.open_waits, 42);
	CHECK_EQ(a.u_open, 3);
	CHECK_EQ(a.stop_unsure, 1);
	CHECK_EQ(a.c[LC_ENDS], 5);
	TEST_END();
}

static int parse(struct lock_opts *o, const char *const *args, int n, int *idx)
{
	char *argv[16];
	int i;

	for (i = 0; i < n; i++)
		argv[i] = (char *)args[i];
	argv[n] = NULL;
	return lock_opts__parse(o, n, argv, idx);
}

static void test_configs(void)
{
	static const char *const cmd[] = { "lock", "-t", "-E", "3", "-v", "--", "true" };
	static const char *const pid[] = { "lock", "-p", "12,13", "-Y", "mutex" };
	struct lock_opts o, before;
	struct lock_collect_cfg *cc = malloc(sizeof(*cc));
	struct lock_filters f = { .nr_addrs = 1, .addrs = { 0xffff1234 } };
	struct lock_report_cfg rc;
	int idx;

	TEST_BEGIN("lock: configurations from the request, which stays as parsed");
	CHECK(cc != NULL, "no memory");
	if (!cc || parse(&o, cmd, 7, &idx)) {
		CHECK(0, "parse failed");
		free(cc);
		TEST_END();
		return;
	}
	before = o;
	lock_report_cfg__build(&rc, &o, true);
	lock_collect_cfg__build(cc, &o, &f, 4242);
	CHECK(!memcmp(&o, &before, sizeof(o)), "the request was written");
	CHECK_EQ(rc.mode, LOCK_AGGR_TASK);
	CHECK_EQ(rc.entries, 3);
	CHECK(rc.verbose_stacks, "-v lost");
	CHECK(!rc.system_wide, "a followed command is not system-wide");
	CHECK_EQ(cc->nr_targets, 1);
	CHECK_EQ(cc->targets[0], 4242);
	CHECK_EQ(cc->target_mode, LOCK_TARGET_TGID);
	CHECK(cc->follow_forks, "the command's children not followed");
	CHECK(!cc->want_stack, "-t wants no stack");
	CHECK_EQ(cc->f.nr_addrs, 1);
	CHECK_EQ(cc->f.addrs[0], 0xffff1234);

	CHECK_EQ(parse(&o, pid, 5, &idx), 0);
	lock_report_cfg__build(&rc, &o, false);
	lock_collect_cfg__build(cc, &o, NULL, 0);
	CHECK(!rc.system_wide, "-p is not system-wide");
	CHECK_STR(rc.pid_arg, "12,13");
	CHECK_EQ(cc->nr_targets, 2);
	CHECK_EQ(cc->targets[1], 13);
	CHECK(!cc->follow_forks, "-p follows nothing");
	CHECK(cc->type_mask != 0, "-Y lost");
	CHECK(cc->want_stack, "caller mode wants stacks");
	CHECK_EQ(cc->max_stack, o.max_stack);
	free(cc);
	TEST_END();
}

static void test_ulibc(void)
{
	TEST_BEGIN("lock: -U: the C library's locking code by name");
	CHECK(lock_ulibc__lock_func("pthread_mutex_lock"), "pthread_mutex_lock");
	CHECK(lock_ulibc__lock_func("__lll_lock_wait"), "__lll_lock_wait");
	CHECK(!lock_ulibc__lock_func("main"), "main");
	CHECK(lock_ulibc__is_libc("libc.so.6"), "libc.so.6");
	CHECK(lock_ulibc__is_libc("ld-musl-x86_64.so.1"), "musl");
	CHECK(!lock_ulibc__is_libc("libcrypto.so.3"), "libcrypto");
	CHECK(!lock_ulibc__is_libc(NULL), "NULL");
	CHECK_EQ(lock_ulibc__type_of("___pthread_mutex_lock"), LOCK_U_MUTEX);
	CHECK_EQ(lock_ulibc__type_of("pthread_rwlock_rdlock"), LOCK_U_RWLOCK_R);
	CHECK_EQ(lock_ulibc__type_of("__pthread_rwlock_wrlock_full64"), LOCK_U_RWLOCK_W);
	CHECK_EQ(lock_ulibc__type_of("__new_sem_wait_slow64"), LOCK_U_SEM);
	CHECK_EQ(lock_ulibc__type_of("pthread_cond_wait"), LOCK_U_COND);
	CHECK_EQ(lock_ulibc__type_of("__lll_lock_wait"), LOCK_U_NR);
	TEST_END();
}

int main(void)
{
	test_table_many();
	test_acct_delta();
	test_configs();
	test_ulibc();
	TEST_EXIT();
}
