// SPDX-License-Identifier: GPL-2.0
/*
 * The collector: open the BPF object, probe the attach path (tp_btf, then
 * raw tracepoints), fill the filter maps, merge the overflow records while running,
 * and at the end stop the programs and wait out their runs in flight
 * before reading anything, so the totals are final.
 *
 * Nothing is pinned: every program, link and map lives in a file descriptor
 * of this process and goes away with it, however it ends.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/btf.h>
#include <linux/perf_event.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "cli/cli.h"
#include "lib/array.h"
#include "lib/cpus.h"
#include "lib/tracefs.h"
#include "lock/kbtf.h"
#include "lock/lock_int.h"
#include "lock/lock.skel.h"

/* The programs in the order they are attached: each tracepoint's second
 * program (the one for nested runs) before its first, see lock.bpf.c. */
enum { L_FORK, L_BEGIN2, L_BEGIN, L_END2, L_END, NR_LINKS };

struct lock_collect {
	struct lock_bpf *skel;
	struct perf_buffer *pb;		/* the overflow channel, one buffer a CPU */
	int links[NR_LINKS];		/* raw tracepoint fds; -1 when closed */
	uint64_t lost_records;		/* lost as the kernel reports it */
	struct bpf_program *begin, *begin2, *end, *end2;
	const char *path;
	size_t tail_size;
	struct lock_table *table;	/* where ring events go while polling */
	uint64_t merged;
	/* -I: what the last interval read, subtracted from what is read next */
	struct lock_row_sum *row_prev;	/* per row index, summed over the CPUs */
	size_t row_prev_cap;
	struct lock_accounting acct_prev;
	bool interval;
	bool slab_names;		/* -l: rows carry their slab cache's name */
	int merge_err;
	bool stopped;			/* the programs are stopped: the maps are final */
	struct lock_ucollect *user;	/* -U: the futex programs */
};

#ifdef __x86_64__
#define WALKER_ARCH	1
#else
#define WALKER_ARCH	0
#endif

/* What the loader needs from the kernel's BTF. */
enum {
	Q_BEGIN, Q_END, Q_FORK,			/* btf_trace_* typedef ids */
	Q_STACK,				/* the unwind cache */
	Q_TGID, Q_MM, Q_SIGHAND, Q_MMAP_LOCK, Q_SIGLOCK,
	Q_KMEM_CACHE, Q_CACHE_NAME,		/* -l */
	Q_TASK_FROM_PID, Q_TASK_RELEASE,	/* -o -v */
	Q_MUTEX_OWNER, Q_RWSEM_OWNER, Q_RTMUTEX_OWNER, Q_PID, Q_COMM,	/* -o */
	Q_ARRAY_PTRS, Q_PROG_ACTIVE,		/* --nested */
	Q_NR,
};

static struct kbtf_query kq[Q_NR] = {
	[Q_BEGIN]	= { .name = "btf_trace_contention_begin" },
	[Q_END]		= { .name = "btf_trace_contention_end" },
	[Q_FORK]	= { .name = "btf_trace_sched_process_fork" },
	[Q_STACK]	= { .name = "task_struct", .member = "stack" },
	[Q_TGID]	= { .name = "task_struct", .member = "tgid" },
	[Q_MM]		= { .name = "task_struct", .member = "mm" },
	[Q_SIGHAND]	= { .name = "task_struct", .member = "sighand" },
	[Q_MMAP_LOCK]	= { .name = "mm_struct", .member = "mmap_lock" },
	[Q_SIGLOCK]	= { .name = "sighand_struct", .member = "siglock" },
	[Q_KMEM_CACHE]	= { .name = "bpf_get_kmem_cache", .kind = BTF_KIND_FUNC },
	[Q_CACHE_NAME]	= { .name = "kmem_cache", .member = "name" },
	[Q_TASK_FROM_PID] = { .name = "bpf_task_from_pid", .kind = BTF_KIND_FUNC },
	[Q_TASK_RELEASE] = { .name = "bpf_task_release", .kind = BTF_KIND_FUNC },
	[Q_MUTEX_OWNER]	= { .name = "mutex", .member = "owner" },
	[Q_RWSEM_OWNER]	= { .name = "rw_semaphore", .member = "owner" },
	[Q_RTMUTEX_OWNER] = { .name = "rt_mutex_base", .member = "owner" },
	[Q_PID]		= { .name = "task_struct", .member = "pid" },
	[Q_COMM]	= { .name = "task_struct", .member = "comm" },
	[Q_ARRAY_PTRS]	= { .name = "bpf_array", .member = "ptrs" },
	[Q_PROG_ACTIVE]	= { .name = "bpf_prog", .member = "active" },
};
static int kq_done;		/* queries answered so far: a prefix of kq[] */
static const char *kq_path;	/* the BTF they are asked of; NULL: the kernel's */

/*
 * Ask only what this run needs: the attach ids, the fork hook's id and
 * the tgid offset always (a command to follow is known only after the
 * probe, and task_struct's members cost no extra pass), the rest for -l,
 * -o and --nested.
 */
static int kbtf_facts(const struct lock_opts *o)
{
	int want = o->owner || !o->skip_nested ? Q_NR : o->mode == LOCK_AGGR_ADDR ? Q_CACHE_NAME + 1 :
		   o->user ? Q_MM + 1 : Q_TGID + 1;
	int err;

	if (want <= kq_done)
		return 0;
	err = kbtf__resolve(kq_path, kq, want);
	if (!err)
		kq_done = want;
	return err;
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
	k->contention_begin = !err && kq[Q_BEGIN].id;
	k->contention_end = !err && kq[Q_END].id;
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
	cli_log("lock: kernel: BTF %s; lock:contention_begin %s, contention_end %s (BTF); "
		"task storage maps %s; bpf_loop %s%s%s; probed in %.1f ms\n",
		k->btf_err ? strerror(k->btf_err) : "read", k->contention_begin ? "yes" : "no",
		k->contention_end ? "yes" : "no", k->task_storage ? "yes" : "no",
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

/* The placeholder calls to make kfunc calls (see lock.h), for the programs
 * about to be loaded: -l's slab names, -o -v's owner stacks. */
static bool patch_slab, patch_owner;

static uint32_t kfunc_of(int32_t imm)
{
	if (imm == LOCK_KMEM_CACHE_CALL && patch_slab)
		return kq[Q_KMEM_CACHE].id;
	if (imm == LOCK_TASK_FROM_PID_CALL && patch_owner)
		return kq[Q_TASK_FROM_PID].id;
	if (imm == LOCK_TASK_RELEASE_CALL && patch_owner)
		return kq[Q_TASK_RELEASE].id;
	return 0;
}

/*
 * Make each placeholder helper call a call of its kernel function (a kfunc
 * of vmlinux: off 0).  The instructions are final here, just before the
 * kernel sees them.  0 or -errno.
 */
static int patch_kfuncs(struct bpf_program *prog)
{
	const struct bpf_insn *in = bpf_program__insns(prog);
	size_t i, n = bpf_program__insn_cnt(prog);
	struct bpf_insn *out;
	int err;

	out = malloc(n * sizeof(*out));
	if (!out)
		return -ENOMEM;
	memcpy(out, in, n * sizeof(*out));
	for (i = 0; i < n; i++) {
		uint32_t id;

		if (out[i].code != (BPF_JMP | BPF_CALL) || out[i].src_reg != 0 ||
		    !(id = kfunc_of(out[i].imm)))
			continue;
		out[i].src_reg = BPF_PSEUDO_KFUNC_CALL;
		out[i].off = 0;
		out[i].imm = id;
	}
	err = bpf_program__set_insns(prog, out, n);
	free(out);
	return err;
}

/*
 * "frugal_tp_btf/NAME" programs are opened as raw tracepoints (so libbpf
 * does not load vmlinux BTF for them) and become tp_btf programs here, just
 * before the kernel sees them, with the attach id kbtf found.
 */
static int prep_tp_btf(struct bpf_program *prog, struct bpf_prog_load_opts *opts,
		       long cookie)
{
	const char *tp = strchr(bpf_program__section_name(prog), '/') + 1;
	uint32_t id = !strcmp(tp, "contention_begin") ? kq[Q_BEGIN].id :
		      !strcmp(tp, "contention_end") ? kq[Q_END].id : kq[Q_FORK].id;

	(void)cookie;
	if (!id)
		return -ESRCH;
	opts->expected_attach_type = BPF_TRACE_RAW_TP;
	opts->attach_btf_id = id;
	if (patch_slab || patch_owner) {
		int err = patch_kfuncs(prog);

		if (err)
			return err;
	}
	return bpf_program__set_type(prog, BPF_PROG_TYPE_TRACING);
}

static int register_tp_btf(void)
{
	static int handler;
	LIBBPF_OPTS(libbpf_prog_handler_opts, ho, .prog_prepare_load_fn = prep_tp_btf);

	if (!handler)
		handler = libbpf_register_prog_handler("frugal_tp_btf/",
						       BPF_PROG_TYPE_RAW_TRACEPOINT, 0, &ho);
	return handler < 0 ? handler : 0;
}

/* SECOND: the programs that take runs nested in the first (lock.bpf.c). */
static void set_autoload(struct lock_bpf *s, bool btf, bool fork, bool second)
{
	bpf_program__set_autoload(s->progs.lock_begin_btf, btf);
	bpf_program__set_autoload(s->progs.lock_begin2_btf, btf && second);
	bpf_program__set_autoload(s->progs.lock_end_btf, btf);
	bpf_program__set_autoload(s->progs.lock_end2_btf, btf && second);
	bpf_program__set_autoload(s->progs.lock_fork_btf, btf && fork);
	bpf_program__set_autoload(s->progs.lock_begin_raw, !btf);
	bpf_program__set_autoload(s->progs.lock_begin2_raw, !btf && second);
	bpf_program__set_autoload(s->progs.lock_end_raw, !btf);
	bpf_program__set_autoload(s->progs.lock_end2_raw, !btf && second);
	bpf_program__set_autoload(s->progs.lock_fork_raw, !btf && fork);
}

/* -o -v on the tp_btf path, where the kernel has the two kfuncs. */
static bool owner_stacks(const struct lock_opts *o, bool btf)
{
	return o->owner && o->verbose_stacks && btf && kbtf_facts(o) == 0 &&
	       kq[Q_TASK_FROM_PID].id && kq[Q_TASK_RELEASE].id;
}

static size_t tail_size_of(const struct lock_opts *o, bool slab_names, bool btf)
{
	if (o->mode == LOCK_AGGR_CALLER)
		return o->max_stack * sizeof(uint64_t);
	if (o->mode == LOCK_AGGR_TASK && owner_stacks(o, btf))
		return sizeof(((union lock_tail *)0)->owner);
	if (o->mode == LOCK_AGGR_TASK)
		return LOCK_COMM_LEN;
	return slab_names ? LOCK_SLAB_LEN : 0;
}

static int configure(struct lock_collect *c, const struct lock_opts *o, bool btf)
{
	struct lock_bpf *s = c->skel;
	struct lock_bpf__rodata *ro = s->rodata;
	bool want_stack = o->mode == LOCK_AGGR_CALLER || o->callstack_arg;
	int nr_cpus = libbpf_num_possible_cpus();
	bool slab_names;
	int err;

	if (nr_cpus < 0)
		return nr_cpus;
	/* Slab names: -l on the tp_btf path, where the kernel has the kfunc (6.13+). */
	slab_names = btf && o->mode == LOCK_AGGR_ADDR && kbtf_facts(o) == 0 &&
		     kq[Q_KMEM_CACHE].id && kq[Q_CACHE_NAME].offset >= 0;
	c->tail_size = tail_size_of(o, slab_names, btf);
	ro->slab_names = slab_names;
	ro->off_cache_name = slab_names ? kq[Q_CACHE_NAME].offset : 0;
	c->slab_names = patch_slab = slab_names;
	if (o->mode == LOCK_AGGR_ADDR)
		cli_log("lock: slab cache names %s\n", slab_names ? "from bpf_get_kmem_cache" :
			btf ? "unavailable (no bpf_get_kmem_cache: kernel < 6.13?)" :
			"unavailable on raw tracepoints");
	ro->aggr_mode = o->mode;
	ro->max_stack = o->max_stack;
	ro->stack_skip = o->stack_skip;
	ro->tail_size = c->tail_size;
	ro->nr_rows = o->map_entries;
	ro->do_nothing = o->floor;
	ro->as_nested = o->as_nested;
	ro->skip_nested = o->skip_nested;
	ro->want_stack = want_stack;
	ro->target_mode = o->target_mode;
	ro->has_cpu = o->cpu_list != NULL;
	ro->type_mask = o->type_mask;
	ro->has_addr = o->nr_addrs > 0;
	ro->has_cgroup = o->nr_cgroups > 0;
	ro->nr_ranges = o->nr_ranges;
	ro->shown_frames = o->user_max_stack;
	ro->nr_machinery = o->nr_machinery;
	memcpy(ro->machinery, o->machinery, sizeof(ro->machinery));
	/*
	 * The walker knows x86-64's stacks (16 KB, aligned; kernel text in the
	 * top 2 GB; return addresses pushed by call): elsewhere, unwind.
	 */
	/* The task's stack tells nested waits apart (and the walker needs it). */
	if (kbtf_facts(o) == 0 && kq[Q_STACK].offset > 0)
		ro->off_task_stack = kq[Q_STACK].offset;
	if (want_stack && WALKER_ARCH && ro->off_task_stack && !o->no_stack_walk) {
		ro->use_walker = true;
		ro->stack_check = o->stack_check;
	}
	if ((o->follow_forks || o->mode == LOCK_AGGR_ADDR) && kbtf_facts(o) == 0) {
		ro->off_task_tgid = kq[Q_TGID].offset;
		ro->off_task_mm = kq[Q_MM].offset;
		ro->off_task_sighand = kq[Q_SIGHAND].offset;
		ro->off_mm_mmap_lock = kq[Q_MMAP_LOCK].offset;
		ro->off_sighand_siglock = kq[Q_SIGLOCK].offset;
	}
	/* Without the offsets: no -l classes, and no following of a command. */
	ro->classify_lock = o->mode == LOCK_AGGR_ADDR && kq[Q_MM].offset > 0 &&
			    kq[Q_MMAP_LOCK].offset >= 0 && kq[Q_SIGHAND].offset > 0 &&
			    kq[Q_SIGLOCK].offset >= 0;
	if (o->follow_forks && kq[Q_TGID].offset <= 0)
		return -ESRCH;
	if (o->owner) {
		/* Without where the owner words are, -o cannot say anything true. */
		if (kbtf_facts(o) || kq[Q_MUTEX_OWNER].offset < 0 || kq[Q_RWSEM_OWNER].offset < 0 ||
		    kq[Q_PID].offset <= 0 || kq[Q_COMM].offset <= 0)
			return -ENOENT;
		ro->owner_mode = true;
		ro->off_mutex_owner = kq[Q_MUTEX_OWNER].offset;
		ro->off_rwsem_owner = kq[Q_RWSEM_OWNER].offset;
		/* rt_mutex_base exists with PREEMPT_RT and futex PI: 0 when absent. */
		ro->off_rtmutex_owner = kq[Q_RTMUTEX_OWNER].offset > 0 ?
					kq[Q_RTMUTEX_OWNER].offset : 0;
		ro->off_task_pid = kq[Q_PID].offset;
		ro->off_task_comm = kq[Q_COMM].offset;
		ro->owner_stacks = patch_owner = owner_stacks(o, btf);
		if (o->verbose_stacks)
			cli_log("lock: owners' stacks %s\n", patch_owner ?
				"from bpf_task_from_pid and bpf_get_task_stack" :
				"unavailable (no bpf_task_from_pid, or raw tracepoints)");
	} else {
		patch_owner = false;
	}
	if (!o->skip_nested && kbtf_facts(o) == 0 && kq[Q_ARRAY_PTRS].offset > 0 &&
	    kq[Q_PROG_ACTIVE].offset > 0) {
		ro->off_array_ptrs = kq[Q_ARRAY_PTRS].offset;
		ro->off_prog_active = kq[Q_PROG_ACTIVE].offset;
	}
	set_autoload(s, btf, o->follow_forks, !o->skip_nested);

	err = bpf_map__set_max_entries(s->maps.rows, o->map_entries);
	err = err ?: bpf_map__set_max_entries(s->maps.row_sums, o->map_entries);
	err = err ?: bpf_map__set_max_entries(s->maps.row_defs, o->map_entries);
	err = err ?: bpf_map__set_value_size(s->maps.row_defs,
					     offsetof(struct lock_rec_def, tail) + c->tail_size);
	err = err ?: bpf_map__set_max_entries(s->maps.row_of, o->map_entries);
	/* Without the walker, one-entry tables. */
	err = err ?: bpf_map__set_max_entries(s->maps.frame_facts,
					      ro->use_walker ? LOCK_FRAME_FACTS : 1);
	err = err ?: bpf_map__set_max_entries(s->maps.path_facts,
					      ro->use_walker ? LOCK_FRAME_FACTS : 1);
	err = err ?: bpf_map__set_max_entries(s->maps.cpus, nr_cpus);
	/* Targets: with a command, room for its processes to come. */
	err = err ?: bpf_map__set_max_entries(s->maps.targets,
					      o->follow_forks ? 65536 :
					      o->nr_targets ? o->nr_targets : 1);
	err = err ?: bpf_map__set_max_entries(s->maps.addrs,
					      o->nr_addrs ? o->nr_addrs : 1);
	err = err ?: bpf_map__set_max_entries(s->maps.cgroups,
					      o->nr_cgroups ? o->nr_cgroups : 1);
	err = err ?: bpf_map__set_max_entries(s->maps.ranges,
					      o->nr_ranges ? o->nr_ranges : 1);
	return err;
}

static int fill_maps(struct lock_collect *c, const struct lock_opts *o)
{
	struct lock_bpf *s = c->skel;
	unsigned char one = 1;
	unsigned int i;
	int err = 0;

	for (i = 0; !err && i < o->nr_targets; i++)
		err = bpf_map__update_elem(s->maps.targets, &o->targets[i],
					   sizeof(uint32_t), &one, 1, BPF_ANY);
	for (i = 0; !err && i < o->nr_cgroups; i++)
		err = bpf_map__update_elem(s->maps.cgroups, &o->cgroup_ids[i],
					   sizeof(uint64_t), &one, 1, BPF_ANY);
	for (i = 0; !err && i < o->nr_addrs; i++)
		err = bpf_map__update_elem(s->maps.addrs, &o->addrs[i],
					   sizeof(uint64_t), &one, 1, BPF_ANY);
	for (i = 0; !err && i < o->nr_ranges; i++)
		err = bpf_map__update_elem(s->maps.ranges, &i, sizeof(i), o->ranges[i],
					   sizeof(o->ranges[i]), BPF_ANY);
	for (i = 0; !err && o->cpu_list && i < (unsigned int)o->nr_cpus; i++)
		err = bpf_map__update_elem(s->maps.cpus, &i, sizeof(i), &o->cpus[i], 1, BPF_ANY);
	return err;
}

static int attach_one(struct bpf_program *p, const char *tp, bool btf)
{
	int fd = bpf_raw_tracepoint_open(btf ? NULL : tp, bpf_program__fd(p));

	return fd < 0 ? -errno : fd;
}

/*
 * --nested: the second programs learn when the first is running on their
 * CPU from its recursion counter, which they reach through these one-slot
 * program arrays (lock.bpf.c, first_active()).  Without it (the kernel
 * refused, or its BTF lacks the offsets) they fall back on the first
 * program's mark, which misses the runs nested in the kernel's dispatch
 * around it.
 */
static void first_programs(struct lock_collect *c)
{
	struct lock_bpf *s = c->skel;
	uint32_t zero = 0;
	int fd[2] = { bpf_program__fd(c->begin), bpf_program__fd(c->end) };
	int err = -ENOENT;

	if (s->rodata->off_prog_active) {
		err = bpf_map__update_elem(s->maps.first_begin, &zero, sizeof(zero),
					   &fd[0], sizeof(fd[0]), BPF_ANY);
		err = err ?: bpf_map__update_elem(s->maps.first_end, &zero, sizeof(zero),
						  &fd[1], sizeof(fd[1]), BPF_ANY);
	}
	s->bss->counters_known = !err;
	if (err)
		cli_log("lock: nested runs found by the first programs' marks (%s)\n",
			s->rodata->off_prog_active ? strerror(-err) :
			"no bpf_prog.active or bpf_array.ptrs in the kernel's BTF");
	else
		cli_log("lock: nested runs found by the first programs' recursion counters\n");
}

/*
 * The fork hook first: no process of the command can slip past.  Then, on
 * each tracepoint, the second program before the first: the kernel calls a
 * tracepoint's programs in the order they were attached, and the accounting
 * of nested runs relies on the second being called first (lock.bpf.c).
 * Without --nested the second programs were not loaded: one per
 * tracepoint, which the kernel calls directly rather than in a loop.
 */
static int attach(struct lock_collect *c, bool btf, bool fork, bool user_only)
{
	struct lock_bpf *s = c->skel;
	struct {
		struct bpf_program *p;
		const char *tp;
	} order[NR_LINKS] = {
		[L_FORK]   = { btf ? s->progs.lock_fork_btf : s->progs.lock_fork_raw,
			       "sched_process_fork" },
		[L_BEGIN2] = { btf ? s->progs.lock_begin2_btf : s->progs.lock_begin2_raw,
			       "contention_begin" },
		[L_BEGIN]  = { btf ? s->progs.lock_begin_btf : s->progs.lock_begin_raw,
			       "contention_begin" },
		[L_END2]   = { btf ? s->progs.lock_end2_btf : s->progs.lock_end2_raw,
			       "contention_end" },
		[L_END]    = { btf ? s->progs.lock_end_btf : s->progs.lock_end_raw,
			       "contention_end" },
	};
	int i;

	c->begin = order[L_BEGIN].p;
	c->begin2 = order[L_BEGIN2].p;
	c->end = order[L_END].p;
	c->end2 = order[L_END2].p;
	if (bpf_program__autoload(c->begin2))
		first_programs(c);
	/* --user-only: the maps and the fork hook serve the futex programs. */
	for (i = fork ? 0 : 1; i < (user_only ? L_FORK + 1 : NR_LINKS); i++) {
		if (!bpf_program__autoload(order[i].p))
			continue;
		c->links[i] = attach_one(order[i].p, order[i].tp, btf);
		if (c->links[i] < 0)
			return c->links[i];
	}
	return 0;
}

/* A record: a key's definition, or a wait to add to its row. */
static void on_record(struct lock_collect *c, const void *data, size_t size)
{
	const struct lock_rec_wait *w = data;
	const struct lock_rec_def *d = data;
	int err = 0;

	if (size >= sizeof(*w) && w->kind == LOCK_REC_WAIT) {
		struct lock_stat st = { w->ns, w->ns, w->ns, 1, w->flags };

		c->merged++;
		err = lock_table__add(c->table, w->key, &st, NULL, 0);
	} else if (size >= offsetof(struct lock_rec_def, tail) + c->tail_size &&
		   d->kind == LOCK_REC_DEF) {
		err = lock_table__define(c->table, d->key, d->flags,
					 c->tail_size ? &d->tail : NULL, c->tail_size);
	}
	if (err)
		c->merge_err = err;
}

/* What the perf buffer holds: samples with our record as raw data, and
 * the kernel's count of records it could not store. */
static enum bpf_perf_event_ret on_perf_event(void *ctx, int cpu, struct perf_event_header *h)
{
	struct lock_collect *c = ctx;
	struct { struct perf_event_header h; uint32_t size; char data[]; } *raw = (void *)h;
	struct { struct perf_event_header h; uint64_t id, lost; } *lost = (void *)h;
	union { struct lock_rec_wait w; struct lock_rec_def d; } rec;

	(void)cpu;
	/* The raw data sits 4 bytes into an 8-byte aligned record: copied to
	 * aligned storage before its 64-bit fields are read. */
	if (h->type == PERF_RECORD_SAMPLE && h->size >= sizeof(*raw) &&
	    raw->size <= h->size - sizeof(*raw) && raw->size <= sizeof(rec)) {
		memcpy(&rec, raw->data, raw->size);
		on_record(c, &rec, raw->size);
	} else if (h->type == PERF_RECORD_LOST && h->size >= sizeof(*lost))
		c->lost_records += lost->lost;
	return LIBBPF_PERF_EVENT_CONT;
}

/*
 * One perf buffer a CPU.  The reader is woken when a buffer is half full,
 * not at each record (which would be an interrupt per overflowing end); it
 * also drains at every poll timeout.
 */
void lock_collect__output_attr(struct perf_event_attr *attr, size_t wake_bytes)
{
	*attr = (struct perf_event_attr){
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_BPF_OUTPUT,
		.sample_type = PERF_SAMPLE_RAW,
		.sample_period = 1,
	};
	if (wake_bytes) {
		attr->watermark = 1;
		attr->wakeup_watermark = wake_bytes;
	} else {
		attr->wakeup_events = 1;
	}
}

struct bpf_link *lock_collect__attach_tp(struct bpf_program *prog)
{
	const char *sec = bpf_program__section_name(prog), *name;
	char category[64];
	struct bpf_link *link;
	int fd, err;

	/* "tracepoint/CATEGORY/NAME" */
	sec = strchr(sec, '/');
	name = sec ? strchr(sec + 1, '/') : NULL;
	if (!name || (size_t)(name - sec) > sizeof(category)) {
		errno = EINVAL;
		return NULL;
	}
	snprintf(category, sizeof(category), "%.*s", (int)(name - sec - 1), sec + 1);
	fd = tracefs__open_event(category, name + 1);
	if (fd < 0) {
		errno = -fd;
		return NULL;
	}
	link = bpf_program__attach_perf_event(prog, fd);
	if (!link) {
		err = errno;
		close(fd);	/* the link owns it only once made */
		errno = err;
	}
	return link;
}

static int open_buffers(struct lock_collect *c, const struct lock_opts *o)
{
	struct perf_event_attr attr;

	lock_collect__output_attr(&attr, o->ring_kb * 1024 / 2);
	c->pb = perf_buffer__new_raw(bpf_map__fd(c->skel->maps.bufs), o->ring_kb / 4, &attr,
				     on_perf_event, c, NULL);
	return c->pb ? 0 : -errno;
}

static void destroy_links(struct lock_collect *c)
{
	/*
	 * Each tracepoint's first program (attached last) before its second:
	 * closing the second first took 11-15 ms per tracepoint here (the
	 * kernel waits for a grace period on that transition), this order
	 * ~1.3 ms per link.
	 */
	static const int order[NR_LINKS] = { L_BEGIN, L_END, L_BEGIN2, L_END2, L_FORK };
	size_t k;

	for (k = 0; k < NR_LINKS; k++) {
		int i = order[k];

		if (c->links[i] >= 0)
			close(c->links[i]);
		c->links[i] = -1;
	}
}

/* One attempt at one attach path; on failure everything is released. */
static int try_path(struct lock_collect *c, const struct lock_opts *o, bool btf)
{
	double t;
	int err;

	t = cli_now() * 1e3;
	if (btf) {
		err = kbtf_facts(o) ?: register_tp_btf();
		if (err)
			return err;
	}
	c->skel = lock_bpf__open();
	if (!c->skel)
		return -errno;
	cli_log("lock: kernel BTF facts and object opened in %.1f ms\n", cli_now() * 1e3 - t);
	err = configure(c, o, btf);
	t = cli_now() * 1e3;
	err = err ?: lock_bpf__load(c->skel);
	err = err ?: fill_maps(c, o);
	if (!err)
		cli_log("lock: programs loaded in %.1f ms\n", cli_now() * 1e3 - t);
	t = cli_now() * 1e3;
	err = err ?: attach(c, btf, o->follow_forks, o->user_only);
	if (!err)
		cli_log("lock: attached in %.1f ms\n", cli_now() * 1e3 - t);
	if (err) {
		destroy_links(c);
		lock_bpf__destroy(c->skel);
		c->skel = NULL;
		return err;
	}
	c->path = btf ? "tp_btf" : "raw_tp";
	return 0;
}

struct lock_collect *lock_collect__open(const struct lock_opts *o)
{
	struct lock_collect *c = calloc(1, sizeof(*c));
	int err;

	if (!c)
		return NULL;
	for (int i = 0; i < NR_LINKS; i++)
		c->links[i] = -1;
	c->interval = o->interval > 0;
	err = -ENOENT;
	if (!o->force_raw_tp) {
		err = try_path(c, o, true);
		if (err)
			cli_log("lock: tp_btf unavailable (%s), trying raw_tp\n",
				strerror(-err));
	}
	if (err)
		err = try_path(c, o, false);
	err = err ?: open_buffers(c, o);
	if (!err && o->user) {
		c->user = lock_ucollect__open(o, c->skel->maps.targets, c->skel->maps.cpus,
					      c->skel->maps.cgroups,
					      kq[Q_MM].offset > 0 ? kq[Q_MM].offset : 0);
		if (!c->user)
			err = -errno;
	}
	if (err) {
		lock_collect__destroy(c);
		errno = -err;
		return NULL;
	}
	return c;
}

const char *lock_collect__path(const struct lock_collect *c)
{
	return c->path;
}

const struct lock_ustacks *lock_collect__ustacks(const struct lock_collect *c)
{
	return lock_ucollect__stacks(c->user);
}

int lock_collect__poll(struct lock_collect *c, struct lock_table *t, int timeout_ms,
		       const int *fds, int nfds)
{
	struct pollfd p[2 + LOCK_POLL_FDS] = {
		{ .fd = perf_buffer__epoll_fd(c->pb), .events = POLLIN },
		{ .fd = c->user ? lock_ucollect__fd(c->user) : -1, .events = POLLIN },
	};
	int i, n, ready = 0;

	c->table = t;
	for (i = 0; i < nfds && i < LOCK_POLL_FDS; i++)
		p[2 + i] = (struct pollfd){ .fd = fds[i], .events = POLLIN };
	n = poll(p, 2 + i, timeout_ms);
	if (n < 0)
		return errno == EINTR ? 0 : -errno;
	for (i = 0; i < nfds && i < LOCK_POLL_FDS; i++)
		if (p[2 + i].revents)
			ready |= 1 << i;
	if (p[0].revents) {
		n = perf_buffer__consume(c->pb);
		if (n < 0)
			return n;
	}
	/* The user buffers at every wake-up: a begin is unwound while its
	 * process is surely alive. */
	if (c->user && (n = lock_ucollect__consume(c->user, t)) < 0)
		return n;
	return c->merge_err ?: ready;
}

/*
 * The kernel's rows: the indexes handed out, each row's statistics and
 * definition.  A row still at count 0 (its waits never ended, or an insert
 * race left it unused, or every wait of it ended nested in one of our runs
 * and came through the buffers) is not a row of the report, but its
 * definition goes to the buffered waits of its key if there are any.  With
 * DELTA (-I), each row adds what came since the last read, and its max and
 * min start over: an end that writes one between our read and our reset
 * loses that extreme for the interval (never its count or its time).
 */
static int read_rows(struct lock_collect *c, struct lock_table *t, struct lock_accounting *a,
		     bool delta)
{
	int pfd = bpf_map__fd(c->skel->maps.row_sums), sfd = bpf_map__fd(c->skel->maps.rows);
	int dfd = bpf_map__fd(c->skel->maps.row_defs), nr_cpus = libbpf_num_possible_cpus();
	uint32_t i, n = c->skel->bss->next_row;
	struct lock_row_sum *sums, cur;
	struct lock_rec_def d;
	struct lock_stat st, fresh;
	int err = 0, j;

	if (nr_cpus < 0)
		return nr_cpus;
	if (n > bpf_map__max_entries(c->skel->maps.rows))
		n = bpf_map__max_entries(c->skel->maps.rows);
	if (delta && array__grow_zero(&c->row_prev, &c->row_prev_cap, n, sizeof(*c->row_prev)))
		return -ENOMEM;
	sums = calloc(nr_cpus, sizeof(*sums));
	if (!sums)
		return -ENOMEM;
	for (i = 0; i < n && !err; i++) {
		if (bpf_map_lookup_elem(pfd, &i, sums) || bpf_map_lookup_elem(sfd, &i, &st) ||
		    bpf_map_lookup_elem(dfd, &i, &d)) {
			err = -errno;
			break;
		}
		cur.total_ns = cur.count = 0;
		for (j = 0; j < nr_cpus; j++) {
			cur.total_ns += sums[j].total_ns;
			cur.count += sums[j].count;
		}
		a->c[LC_AGGR_HIT] += cur.count;
		st.total_ns = cur.total_ns;
		st.count = cur.count;
		if (delta) {
			st.total_ns -= c->row_prev[i].total_ns;
			st.count -= c->row_prev[i].count;
			c->row_prev[i] = cur;
			fresh = st;
			fresh.max_ns = 0;
			fresh.min_ns = ~0ULL;
			if (st.count && bpf_map_update_elem(sfd, &i, &fresh, BPF_EXIST))
				err = -errno;
		}
		if (!st.count) {
			if (c->tail_size && lock_table__has(t, d.key))
				err = err ?: lock_table__define(t, d.key, d.flags, &d.tail,
								c->tail_size);
			continue;
		}
		err = err ?: lock_table__add(t, d.key, &st, c->tail_size ? &d.tail : NULL,
					     c->tail_size);
		a->rows_kernel++;
	}
	free(sums);
	return err;
}

int lock_counters__read(int fd, uint32_t nr, uint64_t *sums)
{
	int nr_cpus = libbpf_num_possible_cpus(), j, err = 0;
	uint64_t *v;
	uint32_t i;

	if (nr_cpus < 0)
		return nr_cpus;
	v = calloc(nr_cpus, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (i = 0; i < nr && !err; i++) {
		sums[i] = 0;
		err = bpf_map_lookup_elem(fd, &i, v) ? -errno : 0;
		for (j = 0; !err && j < nr_cpus; j++)
			sums[i] += v[j];
	}
	free(v);
	return err;
}

static int read_counters(struct lock_collect *c, struct lock_accounting *a)
{
	uint64_t v[LC_NR];
	int err = lock_counters__read(bpf_map__fd(c->skel->maps.counters), LC_NR, v);

	/* AGGR_HIT and ENDS are computed here, never counted by the programs. */
	for (uint32_t i = 0; !err && i < LC_NR; i++)
		if (i != LC_AGGR_HIT && i != LC_ENDS)
			a->c[i] += v[i];
	/* Every end lands in exactly one of these (lock.h); AGGR_HIT is the sum
	 * of the kernel rows' counts, from read_rows(). */
	a->c[LC_ENDS] = a->c[LC_AGGR_HIT] + a->c[LC_OVERFLOW] + a->c[LC_LOST_RING] +
			a->c[LC_FILTERED] + a->c[LC_UNMATCHED];
	return err;
}

static void read_prog_stats(struct bpf_program *p, uint64_t *runs, uint64_t *ns,
			    uint64_t *misses)
{
	struct bpf_prog_info info;
	__u32 len = sizeof(info);

	memset(&info, 0, sizeof(info));
	if (bpf_program__fd(p) < 0 || bpf_obj_get_info_by_fd(bpf_program__fd(p), &info, &len))
		return;
	*runs += info.run_cnt;
	*ns += info.run_time_ns;
	*misses += info.recursion_misses;
}

/*
 * Stop the programs (lock.bpf.c) and wait until no run is in flight: from
 * then on the maps are final.  Should that wait fail, the links are closed
 * first, and the report says so.
 */
static int stop_programs(struct lock_collect *c)
{
	int err;

	c->skel->bss->stopped = true;
	err = cpus__quiesce();
	if (err) {
		cli_err("stop", "cannot wait for the programs' runs in flight (%s): "
			"the last events may be missing", strerror(-err));
		destroy_links(c);
	}
	c->stopped = true;
	return 0;
}

/* A - B, field by field; a count that went down (read order) as 0. */
static uint64_t sub(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

static void acct_delta(struct lock_accounting *a, const struct lock_accounting *prev)
{
	struct lock_accounting cur = *a;
	int i;

	for (i = 0; i < LC_NR; i++)
		a->c[i] = sub(cur.c[i], prev->c[i]);
	a->merged = sub(cur.merged, prev->merged);
	a->misses_begin = sub(cur.misses_begin, prev->misses_begin);
	a->misses_end = sub(cur.misses_end, prev->misses_end);
	a->misses_second = sub(cur.misses_second, prev->misses_second);
	a->skipped_begin = sub(cur.skipped_begin, prev->skipped_begin);
	a->skipped_end = sub(cur.skipped_end, prev->skipped_end);
	a->begin_runs = sub(cur.begin_runs, prev->begin_runs);
	a->begin2_runs = sub(cur.begin2_runs, prev->begin2_runs);
	a->begin_ns = sub(cur.begin_ns, prev->begin_ns);
	a->end_runs = sub(cur.end_runs, prev->end_runs);
	a->end2_runs = sub(cur.end2_runs, prev->end2_runs);
	a->end_ns = sub(cur.end_ns, prev->end_ns);
	/* The completed count of the interval, from its own parts (lock.h). */
	a->c[LC_ENDS] = a->c[LC_AGGR_HIT] + a->c[LC_OVERFLOW] + a->c[LC_LOST_RING] +
			a->c[LC_FILTERED] + a->c[LC_UNMATCHED];
}

/* Waits begun and not ended, from the counters since the start. */
static uint64_t open_waits(const struct lock_accounting *a)
{
	const uint64_t *c = a->c;
	uint64_t recorded = c[LC_BEGINS] - c[LC_REBEGINS] - c[LC_DROP_TASK] - c[LC_DROP_NEST];
	uint64_t closed = c[LC_ENDS] - c[LC_UNMATCHED] + c[LC_STALE];

	return recorded > closed ? recorded - closed : 0;
}

/*
 * Everything since the start (or, with -I, since the last read): the
 * overflow records waiting in the buffers, the programs' statistics, the
 * rows, the counters.
 */
static int read_all(struct lock_collect *c, struct lock_table *t, struct lock_accounting *a)
{
	int err;

	c->table = t;
	err = perf_buffer__consume(c->pb);
	if (err < 0)
		return err;
	if (c->merge_err)
		return c->merge_err;
	memset(a, 0, sizeof(*a));
	a->merged = c->merged;
	/*
	 * The misses before the counters: a nested run's NESTED count is made
	 * before the kernel counts the first program's miss (lock.bpf.c).
	 * The runs and time of both programs of a pair are the pair's cost.
	 */
	read_prog_stats(c->begin, &a->begin_runs, &a->begin_ns, &a->misses_begin);
	read_prog_stats(c->end, &a->end_runs, &a->end_ns, &a->misses_end);
	read_prog_stats(c->begin2, &a->begin2_runs, &a->begin_ns, &a->misses_second);
	read_prog_stats(c->end2, &a->end2_runs, &a->end_ns, &a->misses_second);
	a->have_stats = a->begin_ns || a->end_ns;
	err = read_rows(c, t, a, c->interval);
	err = err ?: read_counters(c, a);
	if (err)
		return err;
	a->skipped_begin = sub(a->misses_begin, a->c[LC_NESTED_BEGIN]);
	a->skipped_end = sub(a->misses_end, a->c[LC_NESTED_END]);
	a->open_waits = open_waits(a);
	if (c->interval) {
		struct lock_accounting cur = *a;

		acct_delta(a, &c->acct_prev);
		c->acct_prev = cur;
	}
	if (c->user)
		return c->stopped ? lock_ucollect__finish(c->user, t, a) :
				    lock_ucollect__read(c->user, t, a);
	return 0;
}

int lock_collect__interval(struct lock_collect *c, struct lock_table *t,
			   struct lock_accounting *a)
{
	return read_all(c, t, a);
}

int lock_collect__finish(struct lock_collect *c, struct lock_table *t,
			 struct lock_accounting *a)
{
	double t0 = cli_now() * 1e3;
	int err;

	err = stop_programs(c);
	if (err)
		return err;
	cli_log("lock: stopped in %.1f ms\n", cli_now() * 1e3 - t0);
	err = read_all(c, t, a);
	if (err)
		return err;
	if (c->lost_records)
		cli_log("lock: the perf buffers lost %llu records (counted in lost_ringbuf)\n",
			(unsigned long long)c->lost_records);
	if (c->skel->bss->mismatch_saved) {
		cli_log("lock: first walked stack that differed, walked / unwound:\n");
		for (int i = 0; i < LOCK_MISMATCH_FRAMES; i++)
			cli_log("lock:   %#018llx %#018llx\n",
				(unsigned long long)c->skel->bss->mismatch_walked[i],
				(unsigned long long)c->skel->bss->mismatch_unwound[i]);
	}
	return 0;
}

void lock_collect__destroy(struct lock_collect *c)
{
	double t0 = cli_now() * 1e3;

	if (!c)
		return;
	lock_ucollect__destroy(c->user);
	perf_buffer__free(c->pb);
	/* Detaching waits for the kernel to unpatch the tracepoints (~2.5 ms
	 * each here).  Handing the links to a child to release was measured
	 * slower: forking this process costs more than the wait. */
	destroy_links(c);
	if (c->stopped)
		cli_log("lock: detached in %.1f ms\n", cli_now() * 1e3 - t0);
	lock_bpf__destroy(c->skel);
	free(c->row_prev);
	free(c);
}
