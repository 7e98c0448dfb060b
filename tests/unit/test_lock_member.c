// SPDX-License-Identifier: GPL-2.0
/*
 * lock/member: a slab lock's member path, on a BTF built here with libbpf
 * (members nested, unions, arrays, a lock inside another lock, no match)
 * and, when the kernel has BTF, on two paths whose truth is known.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/btf.h>

#include "lock/lock.h"
#include "lock/report/member_int.h"
#include "tests/test.h"

struct fixture {
	struct btf *b;		/* built with libbpf */
	struct lock_btf *lb;	/* as member.c reads it */
	int outer, file;
};

/* B written to a file and read back by member.c's reader. */
static struct lock_btf *reread(struct btf *b)
{
	char path[] = "/tmp/test_member.XXXXXX";
	struct lock_btf *lb = NULL;
	const void *raw;
	__u32 size;
	int fd;

	raw = btf__raw_data(b, &size);
	fd = mkstemp(path);
	if (fd < 0 || !raw)
		return NULL;
	if (write(fd, raw, size) == (ssize_t)size)
		lb = lock_btf__open(path);
	close(fd);
	unlink(path);
	return lb;
}

/*
 * struct raw_spinlock { int v; };  typedef struct raw_spinlock raw_spinlock_t;
 * struct mutex { long owner; raw_spinlock_t wait_lock; };		 16 bytes
 * struct rw_semaphore { long count; raw_spinlock_t wait_lock; };	 16 bytes
 * struct inner { int a; int b; struct mutex m; };			 24 bytes
 * struct outer {
 *	int x;							 0
 *	union { int other; struct mutex um; };			 8
 *	struct inner in;					24 (in.m at 32)
 *	raw_spinlock_t locks[3];				48
 *	struct rw_semaphore sem;				64
 *	int bits:3;						80
 * };
 * struct file { struct outer o; }: the cache filp's type, by the table.
 */
static int build(struct fixture *f)
{
	struct btf *b = btf__new_empty();
	int i, l, sl, raw, mutex, rwsem, inner, un, arr, u32;

	f->b = b;
	i = btf__add_int(b, "int", 4, BTF_INT_SIGNED);
	l = btf__add_int(b, "long", 8, BTF_INT_SIGNED);
	u32 = btf__add_int(b, "unsigned int", 4, 0);
	raw = btf__add_struct(b, "raw_spinlock", 4);
	btf__add_field(b, "v", i, 0, 0);
	sl = btf__add_typedef(b, "raw_spinlock_t", raw);
	mutex = btf__add_struct(b, "mutex", 16);
	btf__add_field(b, "owner", l, 0, 0);
	btf__add_field(b, "wait_lock", sl, 64, 0);
	rwsem = btf__add_struct(b, "rw_semaphore", 16);
	btf__add_field(b, "count", l, 0, 0);
	btf__add_field(b, "wait_lock", sl, 64, 0);
	inner = btf__add_struct(b, "inner", 24);
	btf__add_field(b, "a", i, 0, 0);
	btf__add_field(b, "b", i, 32, 0);
	btf__add_field(b, "m", mutex, 64, 0);
	un = btf__add_union(b, NULL, 16);
	btf__add_field(b, "other", i, 0, 0);
	btf__add_field(b, "um", mutex, 0, 0);
	arr = btf__add_array(b, i, sl, 3);
	f->outer = btf__add_struct(b, "outer", 88);
	btf__add_field(b, "x", i, 0, 0);
	btf__add_field(b, NULL, un, 64, 0);
	btf__add_field(b, "in", inner, 192, 0);
	btf__add_field(b, "locks", arr, 384, 0);
	btf__add_field(b, "sem", rwsem, 512, 0);
	btf__add_field(b, "bits", u32, 640, 3);
	f->file = btf__add_struct(b, "file", 88);
	btf__add_field(b, "o", f->outer, 0, 0);
	if (f->outer <= 0 || f->file <= 0 || i <= 0)
		return -1;
	f->lb = reread(b);
	return f->lb ? 0 : -1;
}

#define PATH(id, off, flags) ({							\
	int _e = lock_member__path(f.lb, (id), (off), (flags), buf, sizeof(buf));	\
	_e ? (_e == -ENOENT ? "(none)" : "(error)") : buf;			\
})

static void test_synthetic(void)
{
	struct fixture f = { 0 };
	char buf[64], small[4];

	TEST_BEGIN("member: paths through structs, unions, arrays; none that does not fit");
	if (!CHECK(!build(&f), "building BTF failed"))
		goto out;
	CHECK_STR(PATH(f.outer, 8, LCB_F_MUTEX), "um");
	CHECK_STR(PATH(f.outer, 32, LCB_F_MUTEX), "in.m");
	CHECK_STR(PATH(f.outer, 16, LCB_F_SPIN), "um.wait_lock");
	CHECK_STR(PATH(f.outer, 56, LCB_F_SPIN), "locks[2]");
	CHECK_STR(PATH(f.outer, 64, LCB_F_WRITE), "sem");
	CHECK_STR(PATH(f.outer, 72, LCB_F_SPIN), "sem.wait_lock");
	CHECK_STR(PATH(f.file, 32, LCB_F_MUTEX), "o.in.m");
	/* the right offset, the wrong kind; no lock there; past the end */
	CHECK_STR(PATH(f.outer, 64, LCB_F_MUTEX), "(none)");
	CHECK_STR(PATH(f.outer, 0, LCB_F_MUTEX), "(none)");
	CHECK_STR(PATH(f.outer, 60, LCB_F_SPIN), "(none)");
	CHECK_STR(PATH(f.outer, 80, LCB_F_SPIN), "(none)");
	CHECK_STR(PATH(f.outer, 4096, LCB_F_SPIN), "(none)");
	CHECK_EQ(lock_member__path(f.lb, f.outer, 32, LCB_F_MUTEX, small, sizeof(small)),
		 -ENAMETOOLONG);
	CHECK_EQ(lock_member__cache_type(f.lb, "outer"), (uint32_t)f.outer);
	CHECK_EQ(lock_member__cache_type(f.lb, "filp"), (uint32_t)f.file);
	CHECK_EQ(lock_member__cache_type(f.lb, "kmalloc-64"), 0);
	CHECK_EQ(lock_member__cache_type(f.lb, ""), 0);
	CHECK_STR(lock_btf__name(f.lb, f.file), "file");
	CHECK_STR(lock_btf__name(f.lb, 9999), "");
	CHECK(!lock_btf__open("/nonexistent") && errno == ENOENT, "a missing file opened");
	TEST_END();
out:
	lock_btf__free(f.lb);
	btf__free(f.b);
}

static void test_kernel(void)
{
	struct fixture f = { 0 };
	char buf[64];
	int file, mm;

	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		TEST_SKIP("member: struct file and mm_struct in the kernel's BTF",
			  "no /sys/kernel/btf/vmlinux");
		return;
	}
	TEST_BEGIN("member: struct file and mm_struct in the kernel's BTF");
	f.b = btf__load_vmlinux_btf();
	f.lb = lock_btf__open(NULL);
	if (!CHECK(f.b && f.lb, "cannot read vmlinux BTF"))
		goto out;
	file = lock_member__cache_type(f.lb, "filp");
	mm = lock_member__cache_type(f.lb, "mm_struct");
	CHECK_EQ(file, btf__find_by_name_kind(f.b, "file", BTF_KIND_STRUCT));
	CHECK_EQ(mm, btf__find_by_name_kind(f.b, "mm_struct", BTF_KIND_STRUCT));
	CHECK(file > 0 && mm > 0, "no struct file or mm_struct");
	/* member.c's reader against libbpf's, every type of the kernel's BTF */
	for (__u32 id = 1, n = btf__type_cnt(f.b); id < n; id++) {
		const char *want = btf__name_by_offset(f.b, btf__type_by_id(f.b, id)->name_off);

		if (!CHECK(!strcmp(lock_btf__name(f.lb, id), want ? want : ""),
			   "type %u: '%s', libbpf says '%s'", id, lock_btf__name(f.lb, id), want))
			break;
	}
	CHECK_STR(lock_btf__name(f.lb, btf__type_cnt(f.b)), "");
	/* f_pos_lock is struct file's mutex, mmap_lock mm_struct's rwsem */
	for (int off = 0; file > 0 && off < 256; off += 8)
		if (!lock_member__path(f.lb, file, off, LCB_F_MUTEX, buf, sizeof(buf)))
			break;
	CHECK_STR(buf, "f_pos_lock");
	for (int off = 0; mm > 0 && off < 4096; off += 8)
		if (!lock_member__path(f.lb, mm, off, LCB_F_READ, buf, sizeof(buf)))
			break;
	CHECK_STR(buf, "mmap_lock");
	TEST_END();
out:
	lock_btf__free(f.lb);
	btf__free(f.b);
}

int main(void)
{
	test_synthetic();
	test_kernel();
	TEST_EXIT();
}
