// SPDX-License-Identifier: GPL-2.0
/*
 * The collector's loading: the BPF object opened, configured from the run,
 * its kfunc calls patched in, loaded on the best attach path (tp_btf, then
 * raw tracepoints), its maps filled and its programs attached in the order
 * the nested-run accounting needs; and detached again.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/btf.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "cli/cli.h"
#include "lib/io.h"
#include "lib/ksyms.h"
#include "lock/kernel/collect_int.h"
#include "lock/kernel/kernel.h"
#include "lock/kernel/kernel_int.h"
#include "lock/request/request.h"
#include "lock/kernel/lock.skel.h"

#ifdef __x86_64__
#define WALKER_ARCH	1
#else
#define WALKER_ARCH	0
#endif

#define KQ(f)	lock_facts__get(LOCK_Q_##f)

/* The kernel's BTF facts this run needs (caps.c). */
static int kbtf_facts(const struct lock_collect_cfg *cfg)
{
	return lock_facts__resolve(cfg->mode, cfg->owner || cfg->hold, !cfg->skip_nested,
				   cfg->user);
}

/* The placeholder calls to make kfunc calls (see lock.h), for the programs
 * about to be loaded: -l's slab names, -o -v's owner stacks. */
static bool patch_slab, patch_owner;

static uint32_t kfunc_of(int32_t imm)
{
	if (imm == LOCK_KMEM_CACHE_CALL && patch_slab)
		return KQ(KMEM_CACHE)->id;
	if (imm == LOCK_TASK_FROM_PID_CALL && patch_owner)
		return KQ(TASK_FROM_PID)->id;
	if (imm == LOCK_TASK_RELEASE_CALL && patch_owner)
		return KQ(TASK_RELEASE)->id;
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
	uint32_t id = !strcmp(tp, "contention_begin") ? KQ(BEGIN)->id :
		      !strcmp(tp, "contention_end") ? KQ(END)->id :
		      !strcmp(tp, "contended_release") ? KQ(RELEASE)->id : KQ(FORK)->id;

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

/* SECOND: the programs that take runs nested in the first (lock.bpf.c);
 * RELEASE: the holders' side of -o at release. */
static void set_autoload(struct lock_bpf *s, bool btf, bool fork, bool second, bool release)
{
	bpf_program__set_autoload(s->progs.lock_release_btf, btf && release);
	bpf_program__set_autoload(s->progs.lock_release_raw, !btf && release);
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
static bool owner_stacks(const struct lock_collect_cfg *cfg, bool btf)
{
	return cfg->owner_stacks && btf && kbtf_facts(cfg) == 0 &&
	       KQ(TASK_FROM_PID)->id && KQ(TASK_RELEASE)->id;
}

static size_t tail_size_of(const struct lock_collect_cfg *cfg, bool slab_tail, bool btf)
{
	if (cfg->mode == LOCK_AGGR_CALLER)
		return cfg->max_stack * sizeof(uint64_t);
	if (cfg->mode == LOCK_AGGR_TASK && cfg->owner_stacks && (owner_stacks(cfg, btf) ||
	    (cfg->owner_at != LOCK_OWNER_AT_BEGIN && KQ(RELEASE)->id)))
		return sizeof(((union lock_tail *)0)->owner);
	if (cfg->mode == LOCK_AGGR_TASK)
		return LOCK_COMM_LEN;
	return slab_tail ? sizeof(struct lock_slab_tail) : 0;
}

/* What the run asked, as the programs' constants: a straight translation. */
static void set_rodata(struct lock_bpf__rodata *ro, const struct lock_collect_cfg *cfg)
{
	ro->aggr_mode = cfg->mode;
	ro->max_stack = cfg->max_stack;
	ro->stack_skip = cfg->stack_skip;
	ro->nr_rows = cfg->map_entries;
	ro->do_nothing = cfg->floor;
	ro->as_nested = cfg->as_nested;
	ro->skip_nested = cfg->skip_nested;
	ro->wait_hist = cfg->wait_hist;
	ro->want_stack = cfg->want_stack;
	ro->target_mode = cfg->target_mode;
	ro->has_cpu = cfg->has_cpu;
	ro->type_mask = cfg->type_mask;
	ro->has_addr = cfg->f.nr_addrs > 0;
	ro->has_cgroup = cfg->f.nr_cgroups > 0;
	ro->nr_ranges = cfg->f.nr_ranges;
	ro->shown_frames = cfg->shown_frames;
	ro->nr_machinery = cfg->f.nr_machinery;
	memcpy(ro->machinery, cfg->f.machinery, sizeof(ro->machinery));
}

/*
 * x86-64's direct map and struct page array where memory is not
 * randomized (4-level paging), the guesses the program checks.
 */
#define PAGE_OFFSET_DEFAULT	0xffff888000000000ULL
#define VMEMMAP_DEFAULT		0xffffea0000000000ULL

/*
 * -l: how the program finds a lock's struct page: where the kernel keeps
 * page_offset_base and vmemmap_base (data symbols: in kallsyms only with
 * CONFIG_KALLSYMS_ALL), else the defaults, checked by the program.  One
 * read of kallsyms keeps these two names only.  Says which, for -v.
 */
static const char *set_slab_pages(struct lock_bpf__rodata *ro)
{
	static const char *const names[] = { "page_offset_base", "vmemmap_base" };
	int head = KQ(PAGE_HEAD)->offset >= 0 ? KQ(PAGE_HEAD)->offset : KQ(PAGE_INFO)->offset;
	struct ksyms *ks;
	uint64_t pob = 0, vmb = 0;

	if (!KQ(PAGE)->size || head < 0 || KQ(SLAB_CACHE)->offset < 0)
		return "from the cache's slab orders (no struct page or slab in BTF)";
	ro->page_struct_size = KQ(PAGE)->size;
	ro->off_page_head = head;
	ro->off_slab_cache = KQ(SLAB_CACHE)->offset;
	ks = ksyms__load_addrs(NULL, NULL, 0, names, 2);
	if (ks && !ksyms__find(ks, names[0], &pob) && !ksyms__find(ks, names[1], &vmb) &&
	    pob && vmb) {
		ro->page_offset_at = pob;
		ro->vmemmap_at = vmb;
		ksyms__free(ks);
		return "from the slab's struct page (page_offset_base, vmemmap_base from kallsyms)";
	}
	ksyms__free(ks);
	ro->page_offset_guess = PAGE_OFFSET_DEFAULT;
	ro->vmemmap_guess = VMEMMAP_DEFAULT;
	return "from the slab's struct page (x86-64's default page_offset_base and "
	       "vmemmap_base, checked: kallsyms has neither), else from the cache's slab orders";
}

/* -l: the members of struct kmem_cache that place a lock in its object. */
static const char *set_slab_offsets(struct lock_bpf__rodata *ro, bool slab_names)
{
	ro->slab_offsets = slab_names && KQ(CACHE_SIZE)->offset >= 0 &&
			   KQ(CACHE_OBJSIZE)->offset >= 0 && KQ(CACHE_REDPAD)->offset >= 0 &&
			   KQ(CACHE_OO)->offset >= 0 && KQ(CACHE_MIN)->offset >= 0;
	if (!ro->slab_offsets)
		return NULL;
	ro->off_cache_size = KQ(CACHE_SIZE)->offset;
	ro->off_cache_objsize = KQ(CACHE_OBJSIZE)->offset;
	ro->off_cache_redpad = KQ(CACHE_REDPAD)->offset;
	ro->off_cache_oo = KQ(CACHE_OO)->offset;
	ro->off_cache_min = KQ(CACHE_MIN)->offset;
	return WALKER_ARCH ? set_slab_pages(ro) :
	       "from the cache's slab orders (struct page: x86-64 only)";
}

/*
 * -l's slab names, on the tp_btf path where the kernel has the kfunc
 * (6.13+); and what a row's definition carries (its tail).
 */
static void set_tail(struct lock_collect *c, const struct lock_collect_cfg *cfg, bool btf)
{
	struct lock_bpf__rodata *ro = c->skel->rodata;
	bool slab_names = btf && cfg->mode == LOCK_AGGR_ADDR && kbtf_facts(cfg) == 0 &&
			  KQ(KMEM_CACHE)->id && KQ(CACHE_NAME)->offset >= 0;
	const char *pages;
	int kinds = 0;

	if (cfg->mode == LOCK_AGGR_ADDR && !cfg->no_objects) {
		kinds = lock_obj__setup(lock_facts__path(), ro->obj_probes, &ro->obj_facts);
		if (kinds < 0)
			cli_log("lock: -l: no objects described: cannot read the kernel's BTF (%s)\n",
				strerror(-kinds));
		ro->obj_describe = kinds > 0;
	}
	c->tail_size = tail_size_of(cfg, slab_names || kinds > 0, btf);
	ro->tail_size = c->tail_size;
	ro->slab_names = slab_names;
	ro->off_cache_name = slab_names ? KQ(CACHE_NAME)->offset : 0;
	c->slab_names = patch_slab = slab_names;
	pages = set_slab_offsets(ro, slab_names);
	if (cfg->mode == LOCK_AGGR_ADDR)
		cli_log("lock: slab cache names %s\n", slab_names ? "from bpf_get_kmem_cache" :
			btf ? "unavailable (no bpf_get_kmem_cache: kernel < 6.13?)" :
			"unavailable on raw tracepoints");
	if (slab_names)
		cli_log("lock: offsets in slab objects %s\n", ro->slab_offsets ? pages :
			"unavailable (struct kmem_cache lacks size, object_size, red_left_pad, "
			"oo or min)");
}

/*
 * -o: holders at release where the kernel has lock:contended_release
 * (Linux 7.x) and --owner-at does not say begin; else the owner at begin.
 * --owner-at release on a kernel without the event: -ENOENT.
 */
static int set_owner_at(struct lock_collect *c, const struct lock_collect_cfg *cfg)
{
	c->at_release = cfg->owner && cfg->owner_at != LOCK_OWNER_AT_BEGIN &&
			kbtf_facts(cfg) == 0 && KQ(RELEASE)->id;
	c->skel->rodata->release_mode = c->at_release;
	c->skel->rodata->hold_mode = cfg->hold;
	if (cfg->owner && cfg->owner_at == LOCK_OWNER_AT_RELEASE && !c->at_release)
		return -ENOENT;
	return 0;
}

/* -o: where the owner words are; without them -o cannot say anything true. */
static int set_owner(struct lock_bpf__rodata *ro, const struct lock_collect_cfg *cfg, bool btf)
{
	patch_owner = false;
	if (!cfg->owner)
		return 0;
	if (kbtf_facts(cfg) || KQ(MUTEX_OWNER)->offset < 0 || KQ(RWSEM_OWNER)->offset < 0 ||
	    KQ(PID)->offset <= 0 || KQ(COMM)->offset <= 0)
		return -ENOENT;
	ro->owner_mode = true;
	ro->off_mutex_owner = KQ(MUTEX_OWNER)->offset;
	ro->off_rwsem_owner = KQ(RWSEM_OWNER)->offset;
	/* rt_mutex_base exists with PREEMPT_RT and futex PI: 0 when absent. */
	ro->off_rtmutex_owner = KQ(RTMUTEX_OWNER)->offset > 0 ? KQ(RTMUTEX_OWNER)->offset : 0;
	ro->off_task_pid = KQ(PID)->offset;
	ro->off_task_comm = KQ(COMM)->offset;
	if (ro->release_mode) {
		/* Each holder's stack is its own, taken at its release. */
		ro->owner_stacks = cfg->owner_stacks;
		if (cfg->owner_stacks)
			cli_log("lock: owners' stacks from bpf_get_stack at their release\n");
		return 0;
	}
	ro->owner_stacks = patch_owner = owner_stacks(cfg, btf);
	if (cfg->owner_stacks)
		cli_log("lock: owners' stacks %s\n", patch_owner ?
			"from bpf_task_from_pid and bpf_get_task_stack" :
			"unavailable (no bpf_task_from_pid, or raw tracepoints)");
	return 0;
}

/* The kernel's struct offsets the run needs, from its BTF.  0 or -errno. */
static int set_offsets(struct lock_bpf__rodata *ro, const struct lock_collect_cfg *cfg)
{
	/* The task's stack tells nested waits apart (and the walker needs it). */
	if (kbtf_facts(cfg) == 0 && KQ(STACK)->offset > 0)
		ro->off_task_stack = KQ(STACK)->offset;
	/*
	 * The walker knows x86-64's stacks (16 KB, aligned; kernel text in the
	 * top 2 GB; return addresses pushed by call): elsewhere, unwind.
	 */
	if (cfg->want_stack && WALKER_ARCH && ro->off_task_stack && !cfg->no_stack_walk) {
		ro->use_walker = true;
		ro->stack_check = cfg->stack_check;
	}
	if ((cfg->follow_forks || cfg->mode == LOCK_AGGR_ADDR) && kbtf_facts(cfg) == 0) {
		ro->off_task_tgid = KQ(TGID)->offset;
		ro->off_task_mm = KQ(MM)->offset;
		ro->off_task_sighand = KQ(SIGHAND)->offset;
		ro->off_mm_mmap_lock = KQ(MMAP_LOCK)->offset;
		ro->off_sighand_siglock = KQ(SIGLOCK)->offset;
	}
	/* Without the offsets: no -l classes, and no following of a command. */
	ro->classify_lock = cfg->mode == LOCK_AGGR_ADDR && KQ(MM)->offset > 0 &&
			    KQ(MMAP_LOCK)->offset >= 0 && KQ(SIGHAND)->offset > 0 &&
			    KQ(SIGLOCK)->offset >= 0;
	if (cfg->follow_forks && KQ(TGID)->offset <= 0)
		return -ESRCH;
	if (!cfg->skip_nested && kbtf_facts(cfg) == 0 && KQ(ARRAY_PTRS)->offset > 0 &&
	    KQ(PROG_ACTIVE)->offset > 0) {
		ro->off_array_ptrs = KQ(ARRAY_PTRS)->offset;
		ro->off_prog_active = KQ(PROG_ACTIVE)->offset;
	}
	return 0;
}

/* Every map sized as the run asked (one entry where a map is unused). */
static int size_maps(struct lock_collect *c, const struct lock_collect_cfg *cfg, int nr_cpus)
{
	struct lock_bpf *s = c->skel;
	bool walker = s->rodata->use_walker;
	int err;

	err = bpf_map__set_max_entries(s->maps.rows, cfg->map_entries);
	err = err ?: bpf_map__set_max_entries(s->maps.row_sums, cfg->map_entries);
	err = err ?: bpf_map__set_max_entries(s->maps.row_defs, cfg->map_entries);
	err = err ?: bpf_map__set_value_size(s->maps.row_defs,
					     offsetof(struct lock_rec_def, tail) + c->tail_size);
	err = err ?: bpf_map__set_max_entries(s->maps.row_of, cfg->map_entries);
	err = err ?: bpf_map__set_max_entries(s->maps.frame_facts, walker ? LOCK_FRAME_FACTS : 1);
	err = err ?: bpf_map__set_max_entries(s->maps.path_facts, walker ? LOCK_FRAME_FACTS : 1);
	err = err ?: bpf_map__set_max_entries(s->maps.cpus, nr_cpus);
	/* Targets: with a command, room for its processes to come. */
	err = err ?: bpf_map__set_max_entries(s->maps.targets,
					      cfg->follow_forks ? 65536 :
					      cfg->nr_targets ? cfg->nr_targets : 1);
	err = err ?: bpf_map__set_max_entries(s->maps.addrs,
					      cfg->f.nr_addrs ? cfg->f.nr_addrs : 1);
	err = err ?: bpf_map__set_max_entries(s->maps.cgroups,
					      cfg->f.nr_cgroups ? cfg->f.nr_cgroups : 1);
	err = err ?: bpf_map__set_max_entries(s->maps.ranges,
					      cfg->f.nr_ranges ? cfg->f.nr_ranges : 1);
	err = err ?: bpf_map__set_max_entries(s->maps.releases,
					      c->at_release || cfg->hold ? LOCK_RELEASE_LOCKS : 1);
	err = err ?: bpf_map__set_max_entries(s->maps.wait_hists,
					      cfg->wait_hist ? 2 * LOCK_HIST_TYPES : 1);
	return err;
}

/* The object opened for CFG on the path BTF (tp_btf, else raw_tp), before its load. */
static int configure(struct lock_collect *c, const struct lock_collect_cfg *cfg, bool btf)
{
	struct lock_bpf__rodata *ro = c->skel->rodata;
	int nr_cpus = libbpf_num_possible_cpus(), err;

	if (nr_cpus < 0)
		return nr_cpus;
	set_rodata(ro, cfg);
	set_tail(c, cfg, btf);
	err = set_owner_at(c, cfg);
	if (err)
		return err;
	set_autoload(c->skel, btf, cfg->follow_forks, !cfg->skip_nested, c->at_release || cfg->hold);
	return set_offsets(ro, cfg) ?: set_owner(ro, cfg, btf) ?: size_maps(c, cfg, nr_cpus);
}

static int fill_maps(struct lock_collect *c, const struct lock_collect_cfg *cfg)
{
	struct lock_bpf *s = c->skel;
	unsigned char one = 1;
	unsigned int i;
	int err = 0;

	for (i = 0; !err && i < cfg->nr_targets; i++)
		err = bpf_map__update_elem(s->maps.targets, &cfg->targets[i],
					   sizeof(uint32_t), &one, 1, BPF_ANY);
	for (i = 0; !err && i < cfg->f.nr_cgroups; i++)
		err = bpf_map__update_elem(s->maps.cgroups, &cfg->f.cgroup_ids[i],
					   sizeof(uint64_t), &one, 1, BPF_ANY);
	for (i = 0; !err && i < cfg->f.nr_addrs; i++)
		err = bpf_map__update_elem(s->maps.addrs, &cfg->f.addrs[i],
					   sizeof(uint64_t), &one, 1, BPF_ANY);
	for (i = 0; !err && i < cfg->f.nr_ranges; i++)
		err = bpf_map__update_elem(s->maps.ranges, &i, sizeof(i), cfg->f.ranges[i],
					   sizeof(cfg->f.ranges[i]), BPF_ANY);
	for (i = 0; !err && cfg->has_cpu && i < (unsigned int)cfg->nr_cpus; i++)
		err = bpf_map__update_elem(s->maps.cpus, &i, sizeof(i), &cfg->cpus[i], 1, BPF_ANY);
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
		/* before the begins: a wait they see misses no release */
		[L_RELEASE] = { btf ? s->progs.lock_release_btf : s->progs.lock_release_raw,
				"contended_release" },
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
	c->release = bpf_program__autoload(order[L_RELEASE].p) ? order[L_RELEASE].p : NULL;
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

void lock_collect__detach(struct lock_collect *c)
{
	/*
	 * Each tracepoint's first program (attached last) before its second:
	 * closing the second first took 11-15 ms per tracepoint here (the
	 * kernel waits for a grace period on that transition), this order
	 * ~1.3 ms per link.
	 */
	static const int order[NR_LINKS] = { L_BEGIN, L_END, L_BEGIN2, L_END2, L_RELEASE, L_FORK };
	size_t k;

	for (k = 0; k < NR_LINKS; k++) {
		int i = order[k];

		if (c->links[i] >= 0)
			close(c->links[i]);
		c->links[i] = -1;
	}
}

/* One attempt at one attach path; on failure everything is released. */
static int try_path(struct lock_collect *c, const struct lock_collect_cfg *cfg, bool btf)
{
	double t;
	int err;

	t = cli_now() * 1e3;
	if (btf) {
		err = kbtf_facts(cfg) ?: register_tp_btf();
		if (err)
			return err;
	}
	c->skel = lock_bpf__open();
	if (!c->skel)
		return -errno;
	cli_log("lock: kernel BTF facts and object opened in %.1f ms\n", cli_now() * 1e3 - t);
	err = configure(c, cfg, btf);
	t = cli_now() * 1e3;
	err = err ?: lock_bpf__load(c->skel);
	err = err ?: fill_maps(c, cfg);
	if (!err)
		cli_log("lock: programs loaded in %.1f ms\n", cli_now() * 1e3 - t);
	t = cli_now() * 1e3;
	err = err ?: attach(c, btf, cfg->follow_forks, cfg->user_only);
	if (!err)
		cli_log("lock: attached in %.1f ms\n", cli_now() * 1e3 - t);
	if (err) {
		lock_collect__detach(c);
		lock_bpf__destroy(c->skel);
		c->skel = NULL;
		return err;
	}
	c->path = btf ? "tp_btf" : "raw_tp";
	return 0;
}

int lock_collect__load(struct lock_collect *c, const struct lock_collect_cfg *cfg,
		       uint32_t *off_task_mm)
{
	int err = -ENOENT;

	if (!cfg->force_raw_tp) {
		err = try_path(c, cfg, true);
		if (err)
			cli_log("lock: tp_btf unavailable (%s), trying raw_tp\n",
				strerror(-err));
	}
	if (err)
		err = try_path(c, cfg, false);
	*off_task_mm = KQ(MM)->offset > 0 ? KQ(MM)->offset : 0;
	return err;
}
