// SPDX-License-Identifier: GPL-2.0
/*
 * lock/kbtf: typedef ids and member offsets read by streaming raw BTF,
 * checked on a BTF built here with libbpf (anonymous members two levels
 * deep, a record bigger than the read buffer) and, when the kernel has
 * BTF, against libbpf's own answers for the facts frugal lock uses.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include <bpf/btf.h>

#include "lock/kernel/kernel.h"
#include "tests/test.h"

static int write_btf(struct btf *b, char *path)
{
	const void *raw;
	__u32 size;
	FILE *f;
	int fd;

	raw = btf__raw_data(b, &size);
	strcpy(path, "/tmp/test_kbtf.XXXXXX");
	fd = mkstemp(path);
	if (fd < 0 || !raw)
		return -1;
	f = fdopen(fd, "w");
	fwrite(raw, 1, size, f);
	return fclose(f);
}

static void test_synthetic(void)
{
	struct kbtf_query q[] = {
		{ .name = "btf_trace_x" },
		{ .name = "outer", .member = "direct" },
		{ .name = "outer", .member = "deep" },
		{ .name = "outer", .member = "missing" },
		{ .name = "big", .member = "m5999" },
		{ .name = "nothere" },
	};
	struct btf *b = btf__new_empty();
	int i_int, inner2, inner1, outer, big, td, i;
	char path[64], name[16];

	TEST_BEGIN("kbtf: ids and offsets through anonymous members");
	i_int = btf__add_int(b, "int", 4, BTF_INT_SIGNED);
	/* inner2 { int pad; int deep; } at 8 in anonymous inner1, at 16 in outer */
	inner2 = btf__add_struct(b, NULL, 8);
	btf__add_field(b, "pad", i_int, 0, 0);
	btf__add_field(b, "deep", i_int, 32, 0);
	inner1 = btf__add_struct(b, NULL, 16);
	btf__add_field(b, "u", i_int, 0, 0);
	btf__add_field(b, NULL, inner2, 64, 0);
	outer = btf__add_struct(b, "outer", 40);
	btf__add_field(b, "direct", i_int, 32, 0);
	btf__add_field(b, NULL, inner1, 128, 0);
	/* a struct of 6000 members: 72 KB, more than one read */
	big = btf__add_struct(b, "big", 6000 * 4);
	for (i = 0; i < 6000; i++) {
		snprintf(name, sizeof(name), "m%d", i);
		btf__add_field(b, name, i_int, i * 32, 0);
	}
	td = btf__add_typedef(b, "btf_trace_x", outer);
	if (!CHECK(td > 0 && big > 0 && !write_btf(b, path), "building BTF failed"))
		goto out;
	CHECK_EQ(kbtf__resolve(path, q, 6), 0);
	CHECK_EQ(q[0].id, td);
	CHECK_EQ(q[1].offset, 4);
	CHECK_EQ(q[2].offset, 16 + 8 + 4);
	CHECK_EQ(q[3].offset, -1);
	CHECK_EQ(q[4].offset, 5999 * 4);
	CHECK_EQ(q[5].id, 0);
	unlink(path);
	CHECK_EQ(kbtf__resolve("/nonexistent", q, 1), -ENOENT);
	TEST_END();
out:
	btf__free(b);
}

/* libbpf's answer: walk anonymous members recursively. */
static int member_off(const struct btf *b, int id, const char *m, int base)
{
	const struct btf_type *t = btf__type_by_id(b, id);
	const struct btf_member *mm = btf_members(t);
	int i, r;

	for (i = 0; i < btf_vlen(t); i++) {
		const char *n = btf__name_by_offset(b, mm[i].name_off);
		int off = base + btf_member_bit_offset(t, i) / 8;

		if (n && *n && !strcmp(n, m))
			return off;
		if ((!n || !*n) && (r = member_off(b, mm[i].type, m, off)) >= 0)
			return r;
	}
	return -1;
}

static void test_kernel(void)
{
	struct kbtf_query q[] = {
		{ .name = "btf_trace_contention_begin" },
		{ .name = "task_struct", .member = "tgid" },
		{ .name = "mm_struct", .member = "mmap_lock" },
		{ .name = "sighand_struct", .member = "siglock" },
	};
	struct btf *b;

	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		TEST_SKIP("kbtf: the kernel's BTF, as libbpf reads it", "no /sys/kernel/btf/vmlinux");
		return;
	}
	TEST_BEGIN("kbtf: the kernel's BTF, as libbpf reads it");
	b = btf__load_vmlinux_btf();
	if (!CHECK(b, "libbpf cannot load vmlinux BTF"))
		return;
	CHECK_EQ(kbtf__resolve(NULL, q, 4), 0);
	CHECK_EQ(q[0].id, btf__find_by_name_kind(b, q[0].name, BTF_KIND_TYPEDEF));
	CHECK_EQ(q[1].offset, member_off(b, btf__find_by_name_kind(b, "task_struct", BTF_KIND_STRUCT), "tgid", 0));
	CHECK_EQ(q[2].offset, member_off(b, btf__find_by_name_kind(b, "mm_struct", BTF_KIND_STRUCT), "mmap_lock", 0));
	CHECK_EQ(q[3].offset, member_off(b, btf__find_by_name_kind(b, "sighand_struct", BTF_KIND_STRUCT), "siglock", 0));
	CHECK(q[1].offset > 0 && q[2].offset >= 0, "offsets not found");
	btf__free(b);
	TEST_END();
}

int main(void)
{
	test_synthetic();
	test_kernel();
	TEST_EXIT();
}
