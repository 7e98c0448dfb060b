// SPDX-License-Identifier: GPL-2.0
/*
 * lock/serve/series: cumulative sums per label set that only grow, the
 * bound on series of their own (first seen first), the fold into one
 * "other" series and its counts, values kept as bytes (invalid UTF-8
 * too), and the iteration a scrape makes.  tests/run runs it under ASan
 * and valgrind as well.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lock/serve/series_int.h"
#include "tests/test.h"

static const char *const names[] = { "type", "caller" };

#define ADD(s, t, c, n, w) lock_series__add((s), (const char *const[]){ (t), (c) }, (n), (w))

static void test_sums(void)
{
	struct lock_series *s = lock_series__new(names, 2, 10);
	const struct lock_series_row *r;
	struct lock_series_fold f;
	uint64_t prev = 0;
	char buf[32];
	size_t i;

	TEST_BEGIN("series: sums per label set, cumulative, in first-seen order");
	if (!CHECK(s, "new: errno %d", errno))
		goto out;
	CHECK_EQ(lock_series__nlabels(s), 2);
	CHECK_STR(lock_series__label_names(s)[1], "caller");
	CHECK(lock_series__label_names(s)[2] == NULL, "the names end in NULL");
	CHECK_EQ(ADD(s, "spinlock", "do_a", 3, 300), 0);
	CHECK_EQ(ADD(s, "mutex", "do_b", 1, 50), 0);
	CHECK_EQ(ADD(s, "spinlock", "do_a", 2, 20), 0);
	/* the values are copied: the caller's buffer may change after */
	snprintf(buf, sizeof(buf), "do_%c", 'c');
	CHECK_EQ(ADD(s, "spinlock", buf, 1, 1), 0);
	strcpy(buf, "changed");
	/* ("spin", "lockdo_a") is not ("spinlock", "do_a") */
	CHECK_EQ(ADD(s, "spin", "lockdo_a", 1, 1), 0);
	CHECK_EQ(lock_series__nr(s), 4);
	r = lock_series__row(s, 0);
	CHECK(r && !strcmp(r->values[0], "spinlock") && !strcmp(r->values[1], "do_a") &&
	      r->contentions == 5 && r->wait_ns == 320, "row 0: the first seen, summed");
	r = lock_series__row(s, 1);
	CHECK(r && !strcmp(r->values[1], "do_b") && r->contentions == 1 && r->wait_ns == 50,
	      "row 1");
	r = lock_series__row(s, 2);
	CHECK(r && !strcmp(r->values[1], "do_c"), "row 2: its own copy of the value");
	CHECK(lock_series__row(s, 4) == NULL, "past the last row: NULL");
	CHECK(lock_series__other(s) == NULL, "nothing folded: no other series");
	lock_series__folded(s, &f);
	CHECK(!f.adds && !f.contentions && !f.wait_ns && !f.sets && !f.sets_capped, "no fold");
	/* monotonic: a thousand intervals later, each read is at least the last */
	for (i = 0; i < 1000; i++) {
		ADD(s, "spinlock", "do_a", i % 3, i);
		r = lock_series__row(s, 0);
		CHECK(r->wait_ns >= prev, "interval %zu: %llu < %llu", i,
		      (unsigned long long)r->wait_ns, (unsigned long long)prev);
		prev = r->wait_ns;
	}
	CHECK_EQ(lock_series__row(s, 0)->contentions, 5 + 999);
	CHECK_EQ(lock_series__row(s, 0)->wait_ns, 320 + 999 * 1000 / 2);
out:
	lock_series__free(s);
	lock_series__free(NULL);
	TEST_END();
}

static void test_fold(void)
{
	struct lock_series *s = lock_series__new(names, 2, 3);
	const struct lock_series_row *r, *o;
	struct lock_series_fold f;
	uint64_t total = 0, seen = 0;
	char c[32];
	size_t i;

	TEST_BEGIN("series: the bound, then one other series; what folded is counted");
	if (!CHECK(s, "new: errno %d", errno))
		goto out;
	for (i = 0; i < 10; i++) {
		snprintf(c, sizeof(c), "f%zu", i);
		CHECK_EQ(ADD(s, "mutex", c, i + 1, 10 * (i + 1)), 0);
		total += i + 1;
	}
	/* again: the first three add to their own, the rest fold again */
	for (i = 0; i < 10; i++) {
		snprintf(c, sizeof(c), "f%zu", i);
		CHECK_EQ(ADD(s, "mutex", c, 1, 1), 0);
		total++;
	}
	CHECK_EQ(lock_series__nr(s), 3);
	CHECK(!strcmp(lock_series__row(s, 2)->values[1], "f2") &&
	      lock_series__row(s, 2)->contentions == 4, "the first three seen keep their own");
	o = lock_series__other(s);
	if (CHECK(o, "an other series")) {
		CHECK(!strcmp(o->values[0], "other") && !strcmp(o->values[1], "other"),
		      "every value of it is \"other\"");
		CHECK_EQ(o->contentions, (4 + 5 + 6 + 7 + 8 + 9 + 10) + 7);
		CHECK_EQ(o->wait_ns, 10 * (4 + 5 + 6 + 7 + 8 + 9 + 10) + 7);
	}
	lock_series__folded(s, &f);
	CHECK_EQ(f.adds, 14);
	CHECK_EQ(f.contentions, 49 + 7);
	CHECK_EQ(f.wait_ns, 490 + 7);
	CHECK_EQ(f.sets, 7);
	CHECK(!f.sets_capped, "not capped");
	/* a label set that is "other" throughout is the other series, not a fold */
	CHECK_EQ(ADD(s, "other", "other", 2, 2), 0);
	CHECK_EQ(lock_series__other(s)->contentions, 56 + 2);
	lock_series__folded(s, &f);
	CHECK_EQ(f.adds, 14);
	/* the iteration a scrape makes: own rows, then other; nothing lost */
	i = 0;
	lock_series__for_each(s, i, r)
		seen += r->contentions;
	CHECK_EQ(i, 4);
	CHECK_EQ(seen, total + 2);
	/* past LOCK_SERIES_FOLD_SETS distinct folded sets: a lower bound, said so */
	for (i = 0; i < LOCK_SERIES_FOLD_SETS + 10; i++) {
		snprintf(c, sizeof(c), "g%zu", i);
		ADD(s, "rwsem:W", c, 1, 0);
	}
	lock_series__folded(s, &f);
	CHECK_EQ(f.sets, LOCK_SERIES_FOLD_SETS);
	CHECK(f.sets_capped, "capped");
	CHECK_EQ(f.adds, 14 + LOCK_SERIES_FOLD_SETS + 10);
	CHECK_EQ(lock_series__nr(s), 3);
out:
	lock_series__free(s);
	TEST_END();
}

static void test_values(void)
{
	static const char *const one[] = { "lock" };
	struct lock_series *s = lock_series__new(one, 1, 100), *z = lock_series__new(one, 1, 0);
	const char *bad = "caf\xc3\xa9\xff\xc3(\"\\\n";
	const struct lock_series_row *r;
	size_t i;

	TEST_BEGIN("series: values kept as bytes; no room at all; bad families refused");
	if (!CHECK(s && z, "new"))
		goto out;
	CHECK_EQ(lock_series__add(s, (const char *const[]){ bad }, 1, 1), 0);
	CHECK_EQ(lock_series__add(s, (const char *const[]){ "" }, 1, 1), 0);
	CHECK_EQ(lock_series__add(s, (const char *const[]){ bad }, 1, 1), 0);
	r = lock_series__row(s, 0);
	CHECK(r && !strcmp(r->values[0], bad) && r->contentions == 2, "invalid UTF-8 kept as is");
	CHECK(lock_series__row(s, 1) && !strcmp(lock_series__row(s, 1)->values[0], ""),
	      "an empty value is a label set");
	/* MAX_SERIES 0: everything is other */
	for (i = 0; i < 5; i++)
		lock_series__add(z, (const char *const[]){ "x" }, 1, 1);
	CHECK(lock_series__nr(z) == 0 && lock_series__other(z) &&
	      lock_series__other(z)->contentions == 5, "max 0: all folded");
	CHECK(!lock_series__new(names, 0, 1) && errno == EINVAL, "no labels: EINVAL");
	CHECK(!lock_series__new(names, LOCK_SERIES_MAX_LABELS + 1, 1) && errno == EINVAL,
	      "too many labels: EINVAL");
	CHECK(!lock_series__new((const char *const[]){ "a", NULL }, 2, 1) && errno == EINVAL,
	      "a NULL name: EINVAL");
out:
	lock_series__free(s);
	lock_series__free(z);
	TEST_END();
}

/* Many label sets: the table grows with the rows, every sum where it belongs. */
static void test_many(void)
{
	struct lock_series *s = lock_series__new(names, 2, 20000);
	char c[32];
	size_t i, k;
	int bad = 0;

	TEST_BEGIN("series: 20000 label sets, each added to three times");
	if (!CHECK(s, "new"))
		goto out;
	for (k = 0; k < 3; k++)
		for (i = 0; i < 20000; i++) {
			snprintf(c, sizeof(c), "fn_%zu", i);
			if (ADD(s, i % 2 ? "mutex" : "spinlock", c, 1, i))
				bad++;
		}
	CHECK_EQ(bad, 0);
	CHECK_EQ(lock_series__nr(s), 20000);
	CHECK(lock_series__other(s) == NULL, "nothing folded");
	for (i = 0; i < 20000; i++) {
		const struct lock_series_row *r = lock_series__row(s, i);

		snprintf(c, sizeof(c), "fn_%zu", i);
		if (strcmp(r->values[1], c) || r->contentions != 3 || r->wait_ns != 3 * i)
			bad++;
	}
	CHECK_EQ(bad, 0);
out:
	lock_series__free(s);
	TEST_END();
}

int main(void)
{
	test_sums();
	test_fold();
	test_values();
	test_many();
	TEST_EXIT();
}
