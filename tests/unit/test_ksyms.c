// SPDX-License-Identifier: GPL-2.0
/*
 * ksyms over synthetic kallsyms files: lookups inside, between, before and
 * after symbols, same-address aliases, unsorted input, module names, type
 * filtering, hidden addresses and malformed lines; plus the size budget of
 * 16 bytes per symbol on the real /proc/kallsyms when it is readable.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "lib/ksyms.h"
#include "tests/test.h"

static char path[64];

static void write_file(const char *text)
{
	FILE *f;
	int fd;

	strcpy(path, "/tmp/test_ksyms.XXXXXX");
	fd = mkstemp(path);
	f = fdopen(fd, "w");
	fputs(text, f);
	fclose(f);
}

static const char *resolve(struct ksyms *ks, uint64_t addr, uint64_t *off)
{
	struct ksym s;

	return ksyms__resolve(ks, addr, &s, off) ? NULL : s.name;
}

static void test_lookup(void)
{
	struct ksyms *ks;
	uint64_t off = 0, addr = 0;

	TEST_BEGIN("ksyms: address to sym+off, unsorted input, aliases, modules");
	write_file("ffffffff81000200 T second\n"
		   "ffffffff81000100 T first\n"
		   "ffffffff81000100 t first_alias\n"
		   "ffffffff82000000 D some_lock\n"
		   "ffffffffc0001000 t mod_fn\t[mymod]\n");
	ks = ksyms__load(path, NULL);
	if (!CHECK(ks, "load failed: %s", strerror(errno)))
		goto out;
	CHECK_EQ(ksyms__count(ks), 5);
	CHECK_STR(resolve(ks, 0xffffffff81000100, &off), "first");
	CHECK_EQ(off, 0);
	CHECK_STR(resolve(ks, 0xffffffff810001ff, &off), "first");
	CHECK_EQ(off, 0xff);
	CHECK_STR(resolve(ks, 0xffffffff81000210, &off), "second");
	CHECK_EQ(off, 0x10);
	CHECK_STR(resolve(ks, 0xffffffffc0001004, &off), "mod_fn");
	CHECK_EQ(off, 4);
	CHECK(!resolve(ks, 0xffffffff810000ff, &off), "address before the first symbol resolved");
	CHECK(!resolve(ks, 0xffffffffc0001000 + (2 << 20), &off), "far past the end resolved");
	CHECK(!ksyms__find(ks, "some_lock", &addr) && addr == 0xffffffff82000000,
	      "find some_lock");
	CHECK_EQ(ksyms__find(ks, "missing", &addr), -ENOENT);
	TEST_END();
out:
	ksyms__free(ks);
	unlink(path);
}

static void test_filter(void)
{
	struct ksyms *ks;
	uint64_t off;

	TEST_BEGIN("ksyms: type filter keeps only code");
	write_file("ffffffff81000100 T f\n"
		   "ffffffff81000180 d data_in_between\n"
		   "ffffffff81000200 t g\n");
	ks = ksyms__load(path, "tT");
	if (CHECK(ks, "load failed")) {
		CHECK_EQ(ksyms__count(ks), 2);
		CHECK_STR(resolve(ks, 0xffffffff81000190, &off), "f");
		CHECK_EQ(off, 0x90);
		TEST_END();
	}
	ksyms__free(ks);
	unlink(path);
}

static void test_errors(void)
{
	struct ksyms *ks;

	TEST_BEGIN("ksyms: hidden addresses are -EPERM");
	write_file("0000000000000000 T a\n0000000000000000 T b\n");
	ks = ksyms__load(path, NULL);
	CHECK(!ks && errno == EPERM, "expected EPERM, got %p errno %d", (void *)ks, errno);
	ksyms__free(ks);
	unlink(path);
	TEST_END();

	TEST_BEGIN("ksyms: malformed line is -EINVAL");
	write_file("ffffffff81000100 T ok\nnot a kallsyms line\n");
	ks = ksyms__load(path, NULL);
	CHECK(!ks && errno == EINVAL, "expected EINVAL, got %p errno %d", (void *)ks, errno);
	ksyms__free(ks);
	unlink(path);
	TEST_END();

	TEST_BEGIN("ksyms: missing file is -ENOENT");
	ks = ksyms__load("/nonexistent/kallsyms", NULL);
	CHECK(!ks && errno == ENOENT, "expected ENOENT, got errno %d", errno);
	TEST_END();
}

static void test_addrs(void)
{
	static const char *const names[] = { "__sched_text_start" };
	const uint64_t want[] = { 0xffffffff81000250, 0xffffffff81000100,
				  0xffffffffc0001008, 0xffffffff81000250, 0xffffffff81000110 };
	struct ksyms *ks;
	uint64_t off = 0, addr = 0;

	TEST_BEGIN("ksyms: a small table for known addresses, unsorted input");
	/* modules first, out of order, and decoys between the wanted ones */
	write_file("ffffffffc0001000 t mod_fn\t[mymod]\n"
		   "ffffffff81000200 T second\n"
		   "ffffffff81000100 T first\n"
		   "ffffffff81000300 T third\n"
		   "ffffffff81000240 t second_half\n"
		   "ffffffff81000050 T __sched_text_start\n"
		   "ffffffff810000f0 t before_first\n");
	ks = ksyms__load_addrs(path, want, 5, names, 1);
	if (!CHECK(ks, "load failed: %s", strerror(errno)))
		goto out;
	CHECK_STR(resolve(ks, 0xffffffff81000250, &off), "second_half");
	CHECK_EQ(off, 0x10);
	CHECK_STR(resolve(ks, 0xffffffff81000100, &off), "first");
	CHECK_EQ(off, 0);
	CHECK_STR(resolve(ks, 0xffffffff81000110, &off), "first");
	CHECK_STR(resolve(ks, 0xffffffffc0001008, &off), "mod_fn");
	CHECK(!ksyms__find(ks, "__sched_text_start", &addr) && addr == 0xffffffff81000050,
	      "named symbol kept");
	/* what was not needed was not kept */
	CHECK_EQ(ksyms__find(ks, "third", &addr), -ENOENT);
	CHECK_EQ(ksyms__find(ks, "before_first", &addr), -ENOENT);
	CHECK(ksyms__count(ks) <= 4, "%zu symbols kept", ksyms__count(ks));
	TEST_END();
out:
	ksyms__free(ks);
	unlink(path);
}

static void test_real(void)
{
	struct ksyms *ks = ksyms__load(NULL, NULL);
	size_t names, total;
	uint64_t addr, off;
	struct ksym s;

	if (!ks) {
		TEST_SKIP("ksyms: /proc/kallsyms budget", "kallsyms not readable with addresses");
		return;
	}
	TEST_BEGIN("ksyms: /proc/kallsyms within 16 bytes per symbol plus names");
	total = ksyms__mem_bytes(ks, &names);
	CHECK(ksyms__count(ks) > 1000, "only %zu symbols", ksyms__count(ks));
	CHECK(total - names <= 16 * ksyms__count(ks), "%zu bytes for %zu symbols",
	      total - names, ksyms__count(ks));
	if (CHECK(!ksyms__find(ks, "schedule", &addr), "no 'schedule'")) {
		CHECK(!ksyms__resolve(ks, addr + 1, &s, &off) && off == 1 &&
		      !strcmp(s.name, "schedule"), "schedule+1 resolved to %s+%llu",
		      s.name, (unsigned long long)off);
	}
	TEST_END();
	ksyms__free(ks);
}

int main(void)
{
	test_lookup();
	test_filter();
	test_errors();
	test_addrs();
	test_real();
	TEST_EXIT();
}
