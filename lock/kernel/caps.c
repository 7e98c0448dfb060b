// SPDX-License-Identifier: GPL-2.0
/*
 * What the kernel has: the features a run needs, and the facts of its BTF
 * the loader asks for (kernel_int.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <linux/btf.h>

#include <bpf/libbpf.h>

#include "cli/cli.h"
#include "lib/tracefs.h"
#include "lock/kernel/kernel.h"
#include "lock/kernel/kernel_int.h"
#include "lock/request/request.h"

static struct kbtf_query kq[LOCK_Q_NR] = {
	[LOCK_Q_BEGIN]	= { .name = "btf_trace_contention_begin" },
	[LOCK_Q_END]		= { .name = "btf_trace_contention_end" },
	[LOCK_Q_FORK]	= { .name = "btf_trace_sched_process_fork" },
	[LOCK_Q_STACK]	= { .name = "task_struct", .member = "stack" },
	[LOCK_Q_TGID]	= { .name = "task_struct", .member = "tgid" },
	[LOCK_Q_MM]		= { .name = "task_struct", .member = "mm" },
	[LOCK_Q_SIGHAND]	= { .name = "task_struct", .member = "sighand" },
	[LOCK_Q_MMAP_LOCK]	= { .name = "mm_struct", .member = "mmap_lock" },
	[LOCK_Q_SIGLOCK]	= { .name = "sighand_struct", .member = "siglock" },
	[LOCK_Q_KMEM_CACHE]	= { .name = "bpf_get_kmem_cache", .kind = BTF_KIND_FUNC },
	[LOCK_Q_CACHE_NAME]	= { .name = "kmem_cache", .member = "name" },
	[LOCK_Q_CACHE_SIZE]	= { .name = "kmem_cache", .member = "size" },
	[LOCK_Q_CACHE_OBJSIZE]	= { .name = "kmem_cache", .member = "object_size" },
	[LOCK_Q_CACHE_REDPAD]	= { .name = "kmem_cache", .member = "red_left_pad" },
	[LOCK_Q_CACHE_OO]	= { .name = "kmem_cache", .member = "oo" },
	[LOCK_Q_CACHE_MIN]	= { .name = "kmem_cache", .member = "min" },
	[LOCK_Q_PAGE]		= { .name = "page", .kind = BTF_KIND_STRUCT },
	[LOCK_Q_PAGE_HEAD]	= { .name = "page", .member = "compound_head" },
	[LOCK_Q_PAGE_INFO]	= { .name = "page", .member = "compound_info" },	/* 7.x's name */
	[LOCK_Q_SLAB_CACHE]	= { .name = "slab", .member = "slab_cache" },
	[LOCK_Q_TASK_FROM_PID] = { .name = "bpf_task_from_pid", .kind = BTF_KIND_FUNC },
	[LOCK_Q_TASK_RELEASE] = { .name = "bpf_task_release", .kind = BTF_KIND_FUNC },
	[LOCK_Q_MUTEX_OWNER]	= { .name = "mutex", .member = "owner" },
	[LOCK_Q_RWSEM_OWNER]	= { .name = "rw_semaphore", .member = "owner" },
	[LOCK_Q_RTMUTEX_OWNER] = { .name = "rt_mutex_base", .member = "owner" },
	[LOCK_Q_PID]		= { .name = "task_struct", .member = "pid" },
	[LOCK_Q_COMM]	= { .name = "task_struct", .member = "comm" },
	[LOCK_Q_RELEASE]	= { .name = "btf_trace_contended_release" },
	[LOCK_Q_ARRAY_PTRS]	= { .name = "bpf_array", .member = "ptrs" },
	[LOCK_Q_PROG_ACTIVE]	= { .name = "bpf_prog", .member = "active" },
};
static int kq_done;		/* queries answered so far: a prefix of kq[] */
static const char *kq_path;	/* the BTF they are asked of; NULL: the kernel's */

/*
 * Ask only what this run needs: the attach ids, the fork hook's id and
 * the tgid offset always (a command to follow is known only after the
 * probe, and task_struct's members cost no extra pass), the rest for -l,
 * -o and --nested.
 */
int lock_facts__resolve(enum lock_aggr mode, bool owner, bool nested, bool user)
{
	int want = owner || nested ? LOCK_Q_NR : mode == LOCK_AGGR_ADDR ? LOCK_Q_SLAB_CACHE + 1 :
		   user ? LOCK_Q_MM + 1 : LOCK_Q_TGID + 1;
	int err;

	if (want <= kq_done)
		return 0;
	err = kbtf__resolve(kq_path, kq, want);
	if (!err)
		kq_done = want;
	return err;
}

const struct kbtf_query *lock_facts__get(enum lock_fact f)
{
	return &kq[f];
}

const char *lock_facts__path(void)
{
	return kq_path;
}

static int kbtf_facts(const struct lock_opts *o)
{
	return lock_facts__resolve(o->mode, o->owner || o->hold, !o->skip_nested, o->user);
}

/*
 * What the programs need that a kernel may lack, asked of the kernel
 * itself: a tracepoint built into it has a btf_trace_NAME typedef in its
 * BTF; map types and helpers are probed by libbpf loading a tiny map or
 * program.  A probe that cannot tell (an error, not a refusal) counts as
 * present: the load then says what is wrong.
 */
static bool probed(int ret)
{
	return ret != 0;
}

void lock_caps__probe_btf(struct lock_caps *k, const char *btf_path, const struct lock_opts *o)
{
	int err;

	memset(k, 0, sizeof(*k));
	kq_path = btf_path;
	kq_done = 0;
	k->btf_path = btf_path ? btf_path : "/sys/kernel/btf/vmlinux";
	err = kbtf_facts(o);
	k->btf_err = -err;
	k->contention_begin = !err && kq[LOCK_Q_BEGIN].id;
	k->contention_end = !err && kq[LOCK_Q_END].id;
	k->contended_release = !err && (o->owner || o->hold) && kq[LOCK_Q_RELEASE].id;
	k->task_storage = k->loop = k->task_pt_regs = k->futex_events = true;
}

void lock_caps__probe(struct lock_caps *k, const char *btf_path, const struct lock_opts *o)
{
	double t = cli_now() * 1e3;

	lock_caps__probe_btf(k, btf_path, o);
	k->task_storage = probed(libbpf_probe_bpf_map_type(BPF_MAP_TYPE_TASK_STORAGE, NULL));
	k->loop = probed(libbpf_probe_bpf_helper(BPF_PROG_TYPE_RAW_TRACEPOINT, BPF_FUNC_loop,
						 NULL));
	k->task_pt_regs = !o->user ||
			  probed(libbpf_probe_bpf_helper(BPF_PROG_TYPE_TRACEPOINT,
							 BPF_FUNC_task_pt_regs, NULL));
	k->futex_events = !o->user || tracefs__has_event("syscalls", "sys_enter_futex") != 0;
	cli_log("lock: kernel: BTF %s; lock:contention_begin %s, contention_end %s%s (BTF); "
		"task storage maps %s; bpf_loop %s%s%s; probed in %.1f ms\n",
		k->btf_err ? strerror(k->btf_err) : "read", k->contention_begin ? "yes" : "no",
		k->contention_end ? "yes" : "no",
		!o->owner && !o->hold ? "" : k->contended_release ? ", contended_release yes" :
		", contended_release no", k->task_storage ? "yes" : "no",
		k->loop ? "yes" : "no",
		o->user ? (k->task_pt_regs ? "; bpf_task_pt_regs yes" : "; bpf_task_pt_regs no") : "",
		o->user ? (k->futex_events ? ", syscalls:sys_enter_futex yes" :
			   ", syscalls:sys_enter_futex no") : "", cli_now() * 1e3 - t);
}

bool lock_caps__missing(const struct lock_caps *k, const struct lock_opts *o, char *buf,
			size_t size)
{
	if (k->btf_err)
		snprintf(buf, size, "cannot read the kernel's BTF (%s: %s; a kernel built with "
			 "CONFIG_DEBUG_INFO_BTF has it)", k->btf_path, strerror(k->btf_err));
	else if (!o->user_only && (!k->contention_begin || !k->contention_end))
		snprintf(buf, size, "this kernel has no lock:%s event (Linux 5.19 or later has it)",
			 k->contention_begin ? "contention_end" : "contention_begin");
	else if (o->hold && !k->contended_release)
		snprintf(buf, size, "--hold: this kernel has no lock:contended_release event "
			 "(Debian's 7.3 kernel has it)");
	else if (o->owner && o->owner_at == LOCK_OWNER_AT_RELEASE && !k->contended_release)
		snprintf(buf, size, "--owner-at release: this kernel has no lock:contended_release "
			 "event (Debian's 7.3 kernel has it)");
	else if (!k->task_storage)
		snprintf(buf, size, "this kernel has no task storage maps for BPF "
			 "(Linux 5.11 or later has them)");
	else if (!k->loop)
		snprintf(buf, size, "this kernel has no bpf_loop helper (Linux 5.17 or later has it)");
	else if (!k->task_pt_regs)
		snprintf(buf, size, "-U: this kernel has no bpf_task_pt_regs helper "
			 "(Linux 5.15 or later has it)");
	else if (!k->futex_events)
		snprintf(buf, size, "-U: this kernel has no syscalls:sys_enter_futex event "
			 "(it needs CONFIG_FTRACE_SYSCALLS)");
	else
		return false;
	return true;
}
