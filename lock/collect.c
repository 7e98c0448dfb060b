// SPDX-License-Identifier: GPL-2.0
/*
 * The collector: open the BPF object, probe the attach path (tp_btf, then
 * raw tracepoints), fill the filter maps, merge ring events while running,
 * and at the end detach before reading anything so the totals are final.
 *
 * Nothing is pinned: every program, link and map lives in a file descriptor
 * of this process and goes away with it, however it ends.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "cli/cli.h"
#include "lock/kbtf.h"
#include "lock/lock_int.h"
#include "lock/lock.skel.h"

struct lock_collect {
	struct lock_bpf *skel;
	struct ring_buffer *rb;
	int links[3];			/* raw tracepoint fds; -1 when closed */
	struct bpf_program *begin, *end;
	const char *path;
	size_t tail_size;
	struct lock_table *table;	/* where ring events go while polling */
	uint64_t merged;
	int merge_err;
	bool stopped;			/* the gate is closed: the maps are final */
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
};
static int kq_done;		/* queries answered so far: a prefix of kq[] */

/*
 * Ask only what this run needs: the attach ids always, the fork hook's
 * id and the tgid offset to follow a command, the rest for -l.
 */
static int kbtf_facts(const struct lock_opts *o)
{
	int want = o->mode == LOCK_AGGR_ADDR ? Q_NR : o->follow_forks ? Q_TGID + 1 : Q_STACK + 1;
	int err;

	if (want <= kq_done)
		return 0;
	err = kbtf__resolve(NULL, kq, want);
	if (!err)
		kq_done = want;
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

static void set_autoload(struct lock_bpf *s, bool btf, bool fork)
{
	bpf_program__set_autoload(s->progs.lock_begin_btf, btf);
	bpf_program__set_autoload(s->progs.lock_end_btf, btf);
	bpf_program__set_autoload(s->progs.lock_fork_btf, btf && fork);
	bpf_program__set_autoload(s->progs.lock_begin_raw, !btf);
	bpf_program__set_autoload(s->progs.lock_end_raw, !btf);
	bpf_program__set_autoload(s->progs.lock_fork_raw, !btf && fork);
}

static size_t tail_size_of(const struct lock_opts *o)
{
	if (o->mode == LOCK_AGGR_CALLER)
		return o->max_stack * sizeof(uint64_t);
	if (o->mode == LOCK_AGGR_TASK)
		return LOCK_COMM_LEN;
	return 0;
}

static int configure(struct lock_collect *c, const struct lock_opts *o, bool btf)
{
	struct lock_bpf *s = c->skel;
	struct lock_bpf__rodata *ro = s->rodata;
	bool want_stack = o->mode == LOCK_AGGR_CALLER || o->callstack_arg;
	int nr_cpus = libbpf_num_possible_cpus();
	int err;

	if (nr_cpus < 0)
		return nr_cpus;
	c->tail_size = tail_size_of(o);
	ro->aggr_mode = o->mode;
	ro->max_stack = o->max_stack;
	ro->stack_skip = o->stack_skip;
	ro->tail_size = c->tail_size;
	ro->want_stack = want_stack;
	ro->target_mode = o->target_mode;
	ro->has_cpu = o->cpu_list != NULL;
	ro->type_mask = o->type_mask;
	ro->has_addr = o->nr_addrs > 0;
	ro->nr_ranges = o->nr_ranges;
	/*
	 * The walker knows x86-64's stacks (16 KB, aligned; kernel text in the
	 * top 2 GB; return addresses pushed by call): elsewhere, unwind.
	 */
	if (want_stack && WALKER_ARCH && kbtf_facts(o) == 0 && kq[Q_STACK].offset > 0 &&
	    !o->no_stack_walk) {
		ro->off_task_stack = kq[Q_STACK].offset;
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
	set_autoload(s, btf, o->follow_forks);

	err = bpf_map__set_max_entries(s->maps.stats, o->map_entries);
	err = err ?: bpf_map__set_value_size(s->maps.stats,
					     sizeof(struct lock_stat) + c->tail_size);
	/* Without the walker, one-entry tables. */
	err = err ?: bpf_map__set_max_entries(s->maps.frame_facts,
					      ro->use_walker ? LOCK_FRAME_FACTS : 1);
	err = err ?: bpf_map__set_max_entries(s->maps.path_facts,
					      ro->use_walker ? LOCK_FRAME_FACTS : 1);
	err = err ?: bpf_map__set_max_entries(s->maps.overflow, o->ring_kb * 1024);
	err = err ?: bpf_map__set_max_entries(s->maps.cpus, nr_cpus);
	/* Targets: with a command, room for its processes to come. */
	err = err ?: bpf_map__set_max_entries(s->maps.targets,
					      o->follow_forks ? 65536 :
					      o->nr_targets ? o->nr_targets : 1);
	err = err ?: bpf_map__set_max_entries(s->maps.addrs,
					      o->nr_addrs ? o->nr_addrs : 1);
	err = err ?: bpf_map__set_max_entries(s->maps.ranges,
					      o->nr_ranges ? o->nr_ranges : 1);
	return err;
}

static int fill_maps(struct lock_collect *c, const struct lock_opts *o,
		     const unsigned char *cpu_set, int nr_cpus)
{
	struct lock_bpf *s = c->skel;
	unsigned char one = 1;
	unsigned int i;
	int err = 0;

	for (i = 0; !err && i < o->nr_targets; i++)
		err = bpf_map__update_elem(s->maps.targets, &o->targets[i],
					   sizeof(uint32_t), &one, 1, BPF_ANY);
	for (i = 0; !err && i < o->nr_addrs; i++)
		err = bpf_map__update_elem(s->maps.addrs, &o->addrs[i],
					   sizeof(uint64_t), &one, 1, BPF_ANY);
	for (i = 0; !err && i < o->nr_ranges; i++)
		err = bpf_map__update_elem(s->maps.ranges, &i, sizeof(i), o->ranges[i],
					   sizeof(o->ranges[i]), BPF_ANY);
	for (i = 0; !err && cpu_set && i < (unsigned int)nr_cpus; i++) {
		unsigned char v = cpu_set[i];

		err = bpf_map__update_elem(s->maps.cpus, &i, sizeof(i), &v, 1, BPF_ANY);
	}
	return err;
}

static int attach_one(struct bpf_program *p, const char *tp, bool btf)
{
	int fd = bpf_raw_tracepoint_open(btf ? NULL : tp, bpf_program__fd(p));

	return fd < 0 ? -errno : fd;
}

static int attach(struct lock_collect *c, bool btf, bool fork)
{
	struct lock_bpf *s = c->skel;
	struct bpf_program *fp;

	c->begin = btf ? s->progs.lock_begin_btf : s->progs.lock_begin_raw;
	c->end = btf ? s->progs.lock_end_btf : s->progs.lock_end_raw;
	fp = btf ? s->progs.lock_fork_btf : s->progs.lock_fork_raw;
	/* The fork hook first: no process of the command can slip past. */
	if (fork && (c->links[2] = attach_one(fp, "sched_process_fork", btf)) < 0)
		return c->links[2];
	if ((c->links[0] = attach_one(c->begin, "contention_begin", btf)) < 0)
		return c->links[0];
	if ((c->links[1] = attach_one(c->end, "contention_end", btf)) < 0)
		return c->links[1];
	return 0;
}

static int on_event(void *ctx, void *data, size_t size)
{
	struct lock_collect *c = ctx;
	const struct lock_event *ev = data;
	size_t head = offsetof(struct lock_event, tail);

	if (size < head + c->tail_size)
		return 0;
	c->merged++;
	if (lock_table__add(c->table, ev->key, &ev->st, c->tail_size ? &ev->tail : NULL,
			    c->tail_size))
		c->merge_err = -ENOMEM;
	return 0;
}

static void destroy_links(struct lock_collect *c)
{
	size_t i;

	for (i = 0; i < 3; i++) {
		if (c->links[i] >= 0)
			close(c->links[i]);
		c->links[i] = -1;
	}
}

/* One attempt at one attach path; on failure everything is released. */
static int try_path(struct lock_collect *c, const struct lock_opts *o, bool btf,
		    const unsigned char *cpu_set, int nr_cpus)
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
	err = err ?: fill_maps(c, o, cpu_set, nr_cpus);
	if (!err)
		cli_log("lock: programs loaded in %.1f ms\n", cli_now() * 1e3 - t);
	t = cli_now() * 1e3;
	err = err ?: attach(c, btf, o->follow_forks);
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

int lock_cpu_list_parse(const char *list, unsigned char *set, int nr_cpus);

struct lock_collect *lock_collect__open(const struct lock_opts *o, int *errp)
{
	struct lock_collect *c = calloc(1, sizeof(*c));
	unsigned char *cpu_set = NULL;
	int nr_cpus = libbpf_num_possible_cpus(), err;

	if (!c) {
		err = -ENOMEM;
		goto fail;
	}
	c->links[0] = c->links[1] = c->links[2] = -1;
	if (o->cpu_list) {
		cpu_set = calloc(nr_cpus > 0 ? nr_cpus : 1, 1);
		err = cpu_set ? lock_cpu_list_parse(o->cpu_list, cpu_set, nr_cpus) : -ENOMEM;
		if (err)
			goto fail;
	}
	err = -ENOENT;
	if (!o->force_raw_tp) {
		err = try_path(c, o, true, cpu_set, nr_cpus);
		if (err)
			cli_log("lock: tp_btf unavailable (%s), trying raw_tp\n",
				strerror(-err));
	}
	if (err)
		err = try_path(c, o, false, cpu_set, nr_cpus);
	if (err)
		goto fail;
	c->rb = ring_buffer__new(bpf_map__fd(c->skel->maps.overflow), on_event, c, NULL);
	if (!c->rb) {
		err = -errno;
		goto fail;
	}
	free(cpu_set);
	return c;
fail:
	free(cpu_set);
	lock_collect__destroy(c);
	*errp = err;
	return NULL;
}

const char *lock_collect__path(const struct lock_collect *c)
{
	return c->path;
}

int lock_collect__poll(struct lock_collect *c, struct lock_table *t, int timeout_ms,
		       int wake_fd)
{
	struct pollfd p[2] = {
		{ .fd = ring_buffer__epoll_fd(c->rb), .events = POLLIN },
		{ .fd = wake_fd, .events = POLLIN },
	};
	int n;

	c->table = t;
	n = poll(p, wake_fd >= 0 ? 2 : 1, timeout_ms);
	if (n < 0)
		return errno == EINTR ? 0 : -errno;
	if (wake_fd >= 0 && p[1].revents) {
		char buf[64];

		while (read(wake_fd, buf, sizeof(buf)) > 0)
			;
	}
	if (p[0].revents) {
		n = ring_buffer__consume(c->rb);
		if (n < 0)
			return n;
	}
	return c->merge_err;
}

static int read_rows(struct lock_collect *c, struct lock_table *t, uint64_t *nrows)
{
	int fd = bpf_map__fd(c->skel->maps.stats);
	size_t vsize = sizeof(struct lock_stat) + c->tail_size;
	uint64_t key, next, *prev = NULL;
	char *val = malloc(vsize);
	int err = 0;

	if (!val)
		return -ENOMEM;
	while (!bpf_map_get_next_key(fd, prev, &next)) {
		if (!bpf_map_lookup_elem(fd, &next, val)) {
			err = lock_table__add(t, next, (struct lock_stat *)val,
					      c->tail_size ? val + sizeof(struct lock_stat) : NULL,
					      c->tail_size);
			if (err)
				break;
			(*nrows)++;
		}
		key = next;
		prev = &key;
	}
	free(val);
	return err;
}

static int read_counters(struct lock_collect *c, struct lock_accounting *a)
{
	int fd = bpf_map__fd(c->skel->maps.counters);
	int nr_cpus = libbpf_num_possible_cpus();
	uint64_t *v;
	uint32_t i;
	int j, err = 0;

	if (nr_cpus < 0)
		return nr_cpus;
	v = calloc(nr_cpus, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (i = 0; i < LC_NR && !err; i++) {
		err = bpf_map_lookup_elem(fd, &i, v) ? -errno : 0;
		for (j = 0; !err && j < nr_cpus; j++)
			a->c[i] += v[j];
	}
	free(v);
	return err;
}

static void read_prog_stats(struct bpf_program *p, uint64_t *runs, uint64_t *ns,
			    uint64_t *misses)
{
	struct bpf_prog_info info;
	__u32 len = sizeof(info);

	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(bpf_program__fd(p), &info, &len))
		return;
	*runs = info.run_cnt;
	*ns = info.run_time_ns;
	*misses += info.recursion_misses;
}

/*
 * Close the gate (lock.bpf.c) and wait until no program run is in flight:
 * from then on the maps are final.  A run lasts microseconds; the wait is
 * bounded all the same, and the links are closed if it ever runs out.
 */
static int stop_programs(struct lock_collect *c)
{
	int fd = bpf_map__fd(c->skel->maps.gates), nr_cpus = libbpf_num_possible_cpus();
	struct { uint64_t in, out; } *g;
	uint32_t zero = 0;
	int i, tries, busy = 1;

	if (nr_cpus < 0)
		return nr_cpus;
	g = calloc(nr_cpus, sizeof(*g));
	if (!g)
		return -ENOMEM;
	c->skel->bss->stopped = true;
	__sync_synchronize();
	for (tries = 0; busy && tries < 20000; tries++) {
		if (tries)
			usleep(50);
		if (bpf_map_lookup_elem(fd, &zero, g)) {
			free(g);
			return -errno;
		}
		for (busy = 0, i = 0; i < nr_cpus; i++)
			busy |= g[i].in != g[i].out;
	}
	free(g);
	if (busy)
		destroy_links(c);
	c->stopped = true;
	return 0;
}

int lock_collect__finish(struct lock_collect *c, struct lock_table *t,
			 struct lock_accounting *a)
{
	int err;

	double t0 = cli_now() * 1e3;

	err = stop_programs(c);
	if (err)
		return err;
	cli_log("lock: stopped in %.1f ms\n", cli_now() * 1e3 - t0);
	c->table = t;
	while ((err = ring_buffer__consume(c->rb)) > 0)
		;
	if (err < 0)
		return err;
	if (c->merge_err)
		return c->merge_err;
	memset(a, 0, sizeof(*a));
	a->merged = c->merged;
	read_prog_stats(c->begin, &a->begin_runs, &a->begin_ns, &a->recursion_misses);
	read_prog_stats(c->end, &a->end_runs, &a->end_ns, &a->recursion_misses);
	a->have_stats = a->begin_ns || a->end_ns;
	err = read_rows(c, t, &a->rows_kernel);
	return err ?: read_counters(c, a);
}

void lock_collect__destroy(struct lock_collect *c)
{
	double t0 = cli_now() * 1e3;

	if (!c)
		return;
	ring_buffer__free(c->rb);
	/* Detaching waits for the kernel to unpatch the tracepoints (~2.5 ms
	 * each here).  Handing the links to a child to release was measured
	 * slower: forking this process costs more than the wait. */
	destroy_links(c);
	if (c->stopped)
		cli_log("lock: detached in %.1f ms\n", cli_now() * 1e3 - t0);
	lock_bpf__destroy(c->skel);
	free(c);
}
