// SPDX-License-Identifier: GPL-2.0
/*
 * lock/kernel/objdesc.c's report half: each kind of object's name from what the
 * program read (paths whole, cut and of no tree; sockets of each family;
 * pipes with and without a holder; cgroups' paths), and an object the
 * table does not know.
 */
#include <arpa/inet.h>
#include <sys/socket.h>

#include "lock/kernel/kernel.h"
#include "tests/test.h"

/* An object of KIND found by the probe whose member is MEMBER. */
static struct lock_obj obj_of(unsigned int kind, const char *member)
{
	struct lock_obj o = { .kind = (__u8)kind };
	unsigned int i;

	for (i = 0; i < LOCK_OBJ_PROBES; i++) {
		o.probe = (__u8)i;
		if (!strcmp(lock_obj__member(&o), member))
			return o;
	}
	o.probe = 0xff;
	return o;
}

static const char *name_of(const struct lock_obj *o)
{
	static char buf[512];

	lock_obj__name(o, buf, sizeof(buf));
	return buf;
}

/* Components leaf first, as the program stores them. */
static void parts(struct lock_obj *o, const char *const *p, int n)
{
	int i;

	for (i = 0; i < n; i++)
		strncpy(o->part[i], p[i], LOCK_OBJ_PART);
	o->parts = (__u8)n;
}

static void test_file(void)
{
	static const char *const p[] = { "data", "t41", "tmp" };
	static const char *const deep[] = { "8", "7", "6", "5", "4", "3", "2", "1" };
	char longname[LOCK_OBJ_PART + 8];
	struct lock_obj o;

	TEST_BEGIN("objdesc: a file's path, whole, cut, and of no tree");
	o = obj_of(LOCK_OBJ_FILE, "f_pos_lock");
	CHECK_STR(lock_obj__type(&o), "file");
	parts(&o, p, 3);
	o.flags = LOCK_OBJ_F_ROOT;
	CHECK_STR(name_of(&o), "/tmp/t41/data");
	o.flags = 0;	/* the walk stopped short of the root */
	CHECK_STR(name_of(&o), ".../tmp/t41/data");
	parts(&o, deep, 8);
	o.flags = LOCK_OBJ_F_MORE;
	CHECK_STR(name_of(&o), ".../1/2/3/4/5/6/7/8");
	/* a component the program cut at LOCK_OBJ_PART bytes, unterminated */
	memset(longname, 'x', sizeof(longname));
	o = obj_of(LOCK_OBJ_FILE, "f_pos_lock");
	memcpy(o.part[0], longname, LOCK_OBJ_PART);
	o.parts = 1;
	o.flags = LOCK_OBJ_F_ROOT;
	CHECK_EQ(strlen(name_of(&o)), LOCK_OBJ_PART + 1);
	/* longer than that: the program marks it cut */
	o.cut = 1;
	CHECK_EQ(strlen(name_of(&o)), LOCK_OBJ_PART + 4);
	CHECK_STR(name_of(&o) + LOCK_OBJ_PART + 1, "...");
	o.cut = 0;
	/* a name with a newline and an escape: shown as '?' */
	strcpy(o.part[0], "a\nb\033[2J");
	CHECK_STR(name_of(&o), "/a?b?[2J");
	/* of no tree: its own name, or as /proc names a pipe's */
	o = obj_of(LOCK_OBJ_FILE, "f_pos_lock");
	strcpy(o.part[0], "memfd:frugal");
	o.parts = 1;
	o.flags = LOCK_OBJ_F_ROOT | LOCK_OBJ_F_PSEUDO;
	strcpy(o.name, "tmpfs");
	CHECK_STR(name_of(&o), "memfd:frugal");
	o.part[0][0] = '\0';
	strcpy(o.name, "pipefs");
	o.num = 4242;
	CHECK_STR(name_of(&o), "pipe:[4242]");
	strcpy(o.name, "anon_inodefs");
	CHECK_STR(name_of(&o), "anon_inodefs:[4242]");
	TEST_END();
}

static void test_inode(void)
{
	static const char *const p[] = { "wal", "db" };
	struct lock_obj o = obj_of(LOCK_OBJ_INODE, "i_rwsem");

	TEST_BEGIN("objdesc: an inode, named and not");
	parts(&o, p, 2);
	o.flags = LOCK_OBJ_F_ROOT;
	o.num = 1234;
	strcpy(o.name, "ext4");
	strcpy(o.dev, "vda1");
	CHECK_STR(name_of(&o), "/db/wal on vda1 (ext4, inode 1234)");
	o.parts = 0;
	CHECK_STR(name_of(&o), "inode 1234 on vda1 (ext4)");
	CHECK_STR(lock_obj__member(&o), "i_rwsem");
	TEST_END();
}

static void test_tasks(void)
{
	struct lock_obj o = obj_of(LOCK_OBJ_MM, "mmap_lock");

	TEST_BEGIN("objdesc: an mm's process, a task");
	o.id = 1234;
	strcpy(o.name, "postgres");
	CHECK_STR(name_of(&o), "postgres (pid 1234)");
	CHECK_STR(lock_obj__type(&o), "mm_struct");
	o = obj_of(LOCK_OBJ_TASK, "pi_lock");
	o.id = 10;
	strcpy(o.name, "make");
	CHECK_STR(name_of(&o), "thread make (tid 10)");
	TEST_END();
}

static void test_sock(void)
{
	struct lock_obj o = obj_of(LOCK_OBJ_SOCK, "sk_lock.slock");

	TEST_BEGIN("objdesc: sockets of each family");
	o.id = AF_INET;
	o.num = (__u64)IPPROTO_TCP << 16 | SOCK_STREAM;
	inet_pton(AF_INET, "127.0.0.1", &o.addr[0]);
	inet_pton(AF_INET, "127.0.0.2", &o.addr[4]);
	o.port[0] = 5432;		/* host order, as skc_num */
	o.port[1] = htons(40000);	/* network order, as skc_dport */
	CHECK_STR(name_of(&o), "tcp 127.0.0.1:5432 -> 127.0.0.2:40000");
	o.port[1] = 0;			/* listening: no peer */
	CHECK_STR(name_of(&o), "tcp 127.0.0.1:5432");
	o.id = AF_INET6;
	o.num = (__u64)IPPROTO_UDP << 16 | SOCK_DGRAM;
	memset(o.addr, 0, sizeof(o.addr));
	inet_pton(AF_INET6, "::1", &o.addr[0]);
	o.port[0] = 53;
	CHECK_STR(name_of(&o), "udp6 [::1]:53");
	o.id = AF_UNIX;
	o.num = SOCK_STREAM;
	CHECK_STR(name_of(&o), "unix stream");
	o.id = AF_NETLINK;
	o.num = 9ULL << 16;
	CHECK_STR(name_of(&o), "socket (family 16, protocol 9)");
	TEST_END();
}

static void test_others(void)
{
	struct lock_obj o = obj_of(LOCK_OBJ_RQ, "__lock");

	TEST_BEGIN("objdesc: run queue, zone, pipe, super block");
	o.id = 3;
	CHECK_STR(name_of(&o), "CPU 3's run queue");
	o = obj_of(LOCK_OBJ_ZONE, "lock");
	strcpy(o.name, "Normal");
	CHECK_STR(name_of(&o), "zone Normal, node 0");
	o = obj_of(LOCK_OBJ_PIPE, "mutex");
	o.num = 77;
	o.id = 10;
	strcpy(o.name, "make");
	o.addr[1] = 2;
	CHECK_STR(name_of(&o), "pipe:[77] written by make (pid 10)");
	o.addr[0] = 11;
	strcpy(o.dev, "cc1");
	o.addr[1] = 1;
	CHECK_STR(name_of(&o), "pipe:[77] read by make (pid 10) and cc1 (pid 11)");
	o = obj_of(LOCK_OBJ_SB, "s_umount");
	strcpy(o.name, "ext4");
	strcpy(o.dev, "vda1");
	CHECK_STR(name_of(&o), "ext4 on vda1");
	TEST_END();
}

static void test_cgroups(void)
{
	static const char *const p[] = { "db.service", "system.slice" };
	struct lock_obj o = obj_of(LOCK_OBJ_CGROUP, "pidlist_mutex");

	TEST_BEGIN("objdesc: cgroups, and memory cgroups' LRU lists by node");
	CHECK_STR(lock_obj__type(&o), "cgroup");
	o.flags = LOCK_OBJ_F_ROOT;
	CHECK_STR(name_of(&o), "cgroup /");
	parts(&o, p, 2);
	CHECK_STR(name_of(&o), "cgroup /system.slice/db.service");
	o.cut = 2;		/* the parent's name was cut */
	CHECK_STR(name_of(&o), "cgroup /system.slice.../db.service");
	o = obj_of(LOCK_OBJ_MEMCG_NODE, "lruvec.lru_lock");
	CHECK_STR(lock_obj__type(&o), "mem_cgroup_per_node");
	o.flags = LOCK_OBJ_F_ROOT;
	o.id = 1;
	CHECK_STR(name_of(&o), "memory cgroup /, node 1");
	parts(&o, p, 2);
	o.flags = 0;	/* deeper than the components kept */
	CHECK_STR(name_of(&o), "memory cgroup .../system.slice/db.service, node 1");
	TEST_END();
}

static void test_dentry_files(void)
{
	static const char *const p[] = { "cgroup.procs", "db" };
	struct lock_obj o = obj_of(LOCK_OBJ_DENTRY, "d_lockref.lock");

	TEST_BEGIN("objdesc: dentries by path in their filesystem, descriptor tables by process");
	CHECK_STR(lock_obj__type(&o), "dentry");
	strcpy(o.name, "cgroup");
	strcpy(o.dev, "cgroup");
	parts(&o, p, 2);
	o.flags = LOCK_OBJ_F_ROOT;
	CHECK_STR(name_of(&o), "/db/cgroup.procs on cgroup (cgroup)");
	/* a filesystem's root: the one name of a dentry of no parent */
	parts(&o, (const char *const[]){ "/" }, 1);
	o.flags = LOCK_OBJ_F_ROOT | LOCK_OBJ_F_PSEUDO;
	CHECK_STR(name_of(&o), "/ on cgroup (cgroup)");
	o = obj_of(LOCK_OBJ_FILES, "file_lock");
	CHECK_STR(lock_obj__type(&o), "files_struct");
	strcpy(o.name, "postgres");
	o.id = 1234;
	CHECK_STR(name_of(&o), "fd table of postgres (pid 1234)");
	TEST_END();
}

static void test_unknown(void)
{
	struct lock_obj o = obj_of(LOCK_OBJ_FILE, "f_pos_lock");
	char buf[8];

	TEST_BEGIN("objdesc: an object the probe table does not know is not named");
	o.kind = LOCK_OBJ_ZONE;		/* not the probe's kind */
	CHECK_EQ(lock_obj__name(&o, buf, sizeof(buf)), 0);
	CHECK_STR(buf, "");
	CHECK_STR(lock_obj__member(&o), "");
	CHECK_EQ(lock_obj__offset(&o), -1);
	o.kind = LOCK_OBJ_NR;
	CHECK_EQ(lock_obj__name(&o, buf, sizeof(buf)), 0);
	o.kind = LOCK_OBJ_NONE;
	CHECK_EQ(lock_obj__name(&o, buf, sizeof(buf)), 0);
	/* a small buffer: cut, terminated */
	o = obj_of(LOCK_OBJ_RQ, "__lock");
	o.id = 12345;
	lock_obj__name(&o, buf, sizeof(buf));
	CHECK_EQ(strlen(buf), sizeof(buf) - 1);
	TEST_END();
}

static void test_classes(void)
{
	TEST_BEGIN("objdesc: lock classes of the contention flags");
	CHECK_EQ(lock_class_of(LCB_F_MUTEX), LOCK_CLASS_MUTEX);
	CHECK_EQ(lock_class_of(LCB_F_MUTEX | LCB_F_SPIN), LOCK_CLASS_MUTEX);
	CHECK_EQ(lock_class_of(LCB_F_SPIN), LOCK_CLASS_SPIN);
	CHECK_EQ(lock_class_of(LCB_F_SPIN | LCB_F_WRITE), LOCK_CLASS_RWLOCK);
	CHECK_EQ(lock_class_of(LCB_F_READ), LOCK_CLASS_RWSEM);
	CHECK_EQ(lock_class_of(LCB_F_WRITE), LOCK_CLASS_RWSEM);
	CHECK_EQ(lock_class_of(0), 0);			/* a semaphore */
	CHECK_EQ(lock_class_of(LCB_F_PERCPU | LCB_F_READ), 0);
	CHECK_EQ(lock_class_of(LCB_F_RT), 0);
	TEST_END();
}

int main(void)
{
	test_file();
	test_inode();
	test_tasks();
	test_sock();
	test_others();
	test_cgroups();
	test_dentry_files();
	test_unknown();
	test_classes();
	TEST_EXIT();
}
