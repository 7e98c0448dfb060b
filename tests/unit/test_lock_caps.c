// SPDX-License-Identifier: GPL-2.0
/*
 * lock_caps: what frugal lock asks of a kernel before loading anything,
 * and the one line that refuses a kernel without it.  The events are
 * probed from BTF built here (a kernel before 5.19 has no
 * btf_trace_contention_* typedefs); the decision from capabilities set by
 * hand, per mode.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include <bpf/btf.h>

#include "lock/kernel/kernel.h"
#include "lock/request/request.h"
#include "tests/test.h"

#define NO_BEGIN "this kernel has no lock:contention_begin event (Linux 5.19 or later has it)"

static struct lock_opts o;

/* O parsed from "lock ARG" (ARG NULL: no option). */
static struct lock_opts *opts(const char *arg)
{
	char *argv[] = { "lock", (char *)arg, NULL };
	int idx;

	if (lock_opts__parse(&o, arg ? 2 : 1, argv, &idx))
		abort();
	return &o;
}

/* A BTF file with the tracepoints' typedefs named in TPS (NULL-ended). */
static int write_btf(const char **tps, char *path)
{
	struct btf *b = btf__new_empty();
	const void *raw;
	__u32 size;
	int i_int, task, fd = -1, i;
	FILE *f;

	i_int = btf__add_int(b, "int", 4, BTF_INT_SIGNED);
	task = btf__add_struct(b, "task_struct", 8);
	btf__add_field(b, "stack", i_int, 0, 0);
	btf__add_field(b, "tgid", i_int, 32, 0);
	for (i = 0; tps[i]; i++)
		btf__add_typedef(b, tps[i], task);
	raw = btf__raw_data(b, &size);
	strcpy(path, "/tmp/test_caps.XXXXXX");
	if (raw)
		fd = mkstemp(path);
	if (fd >= 0) {
		f = fdopen(fd, "w");
		fwrite(raw, 1, size, f);
		fd = fclose(f);
	}
	btf__free(b);
	return fd;
}

/* The probe's answer for O on a kernel whose BTF has the typedefs TPS. */
static bool refused(const char **tps, struct lock_opts *op, char *why, size_t len)
{
	struct lock_caps k;
	char path[64];

	if (!CHECK(!write_btf(tps, path), "cannot write BTF"))
		return false;
	lock_caps__probe_btf(&k, path, op);
	unlink(path);
	CHECK_EQ(k.btf_err, 0);
	return lock_caps__missing(&k, op, why, len);
}

static void test_events(void)
{
	const char *both[] = { "btf_trace_contention_begin", "btf_trace_contention_end", NULL };
	const char *begin[] = { "btf_trace_contention_begin", NULL };
	const char *none[] = { "btf_trace_sched_process_fork", NULL };
	char why[256] = "";

	TEST_BEGIN("caps: a kernel with the contention events is not refused");
	CHECK(!refused(both, opts(NULL), why, sizeof(why)), "refused: %s", why);
	CHECK(!refused(both, opts("-U"), why, sizeof(why)), "refused: %s", why);
	TEST_END();

	TEST_BEGIN("caps: without lock:contention_begin (before 5.19), one line names it");
	CHECK(refused(none, opts(NULL), why, sizeof(why)), "not refused");
	CHECK_STR(why, NO_BEGIN);
	CHECK(refused(none, opts("--raw-tp"), why, sizeof(why)), "--raw-tp not refused");
	CHECK_STR(why, NO_BEGIN);
	CHECK(refused(none, opts("-U"), why, sizeof(why)), "-U not refused");
	CHECK_STR(why, NO_BEGIN);
	TEST_END();

	TEST_BEGIN("caps: an event missing alone is named");
	CHECK(refused(begin, opts(NULL), why, sizeof(why)), "not refused");
	CHECK_STR(why, "this kernel has no lock:contention_end event (Linux 5.19 or later has it)");
	TEST_END();

	TEST_BEGIN("caps: --user-only does not need the contention events");
	CHECK(!refused(none, opts("--user-only"), why, sizeof(why)), "refused: %s", why);
	TEST_END();
}

static void test_needs(void)
{
	struct lock_caps all = { .contention_begin = true, .contention_end = true,
				 .task_storage = true, .loop = true, .task_pt_regs = true,
				 .futex_events = true }, k;
	char why[256] = "";

	TEST_BEGIN("caps: what each mode needs, named when missing");
	k = all;
	k.task_storage = false;
	CHECK(lock_caps__missing(&k, opts("--user-only"), why, sizeof(why)), "not refused");
	CHECK_STR(why, "this kernel has no task storage maps for BPF (Linux 5.11 or later has them)");
	k = all;
	k.loop = false;
	CHECK(lock_caps__missing(&k, opts(NULL), why, sizeof(why)), "not refused");
	CHECK_STR(why, "this kernel has no bpf_loop helper (Linux 5.17 or later has it)");
	k = all;
	k.task_pt_regs = false;
	CHECK(lock_caps__missing(&k, opts("-U"), why, sizeof(why)), "not refused");
	CHECK_STR(why, "-U: this kernel has no bpf_task_pt_regs helper (Linux 5.15 or later has it)");
	k = all;
	k.futex_events = false;
	CHECK(lock_caps__missing(&k, opts("--user-only"), why, sizeof(why)), "not refused");
	CHECK_STR(why, "-U: this kernel has no syscalls:sys_enter_futex event "
		  "(it needs CONFIG_FTRACE_SYSCALLS)");
	/* the first of several is named: the events, newest of all */
	k.contention_begin = k.task_storage = k.loop = false;
	CHECK(lock_caps__missing(&k, opts(NULL), why, sizeof(why)), "not refused");
	CHECK_STR(why, NO_BEGIN);
	TEST_END();

	TEST_BEGIN("caps: a kernel without BTF is refused with the file and the reason");
	lock_caps__probe_btf(&k, "/nonexistent", opts(NULL));
	CHECK_EQ(k.btf_err, ENOENT);
	CHECK(lock_caps__missing(&k, opts(NULL), why, sizeof(why)), "not refused");
	CHECK_STR(why, "cannot read the kernel's BTF (/nonexistent: No such file or directory; "
		  "a kernel built with CONFIG_DEBUG_INFO_BTF has it)");
	TEST_END();
}

int main(void)
{
	test_events();
	test_needs();
	TEST_EXIT();
}
