/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A tiny test harness.  Each case prints one line that tests/run counts:
 *   ok - NAME
 *   not ok - NAME: what failed (file:line)
 *   skip - NAME: why
 * A test binary exits non-zero if any case failed.
 */
#ifndef FRUGAL_TEST_H
#define FRUGAL_TEST_H

#include <stdio.h>
#include <string.h>

static int test_failures;
static int test_case_failed;
static const char *test_case_name;

#define TEST_BEGIN(name) do { test_case_name = (name); test_case_failed = 0; } while (0)
#define TEST_END() do {							\
	if (!test_case_failed)						\
		printf("ok - %s\n", test_case_name);			\
	fflush(stdout);							\
} while (0)
#define TEST_SKIP(name, why) do { printf("skip - %s: %s\n", (name), (why)); fflush(stdout); } while (0)

#define CHECK(cond, fmt, ...) ({					\
	int __ok = !!(cond);						\
	if (!__ok) {							\
		if (!test_case_failed)					\
			test_failures++;				\
		test_case_failed = 1;					\
		printf("not ok - %s: " fmt " (%s:%d)\n", test_case_name,	\
		       ##__VA_ARGS__, __FILE__, __LINE__);		\
	}								\
	__ok;								\
})
#define CHECK_EQ(a, b) ({						\
	long long __a = (long long)(a), __b = (long long)(b);		\
	CHECK(__a == __b, "%s == %lld, expected %s == %lld", #a, __a, #b, __b); \
})
#define CHECK_STR(a, b) ({						\
	const char *__a = (a), *__b = (b);				\
	CHECK(__a && __b && !strcmp(__a, __b), "%s is \"%s\", expected \"%s\"", \
	      #a, __a ? __a : "(null)", __b ? __b : "(null)");		\
})

#define TEST_EXIT() return test_failures ? 1 : 0

#endif
