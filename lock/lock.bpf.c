// SPDX-License-Identifier: GPL-2.0
/*
 * frugal lock: time each kernel lock contention (contention_begin ->
 * contention_end) and aggregate it in the kernel by caller stack, task, lock
 * or cgroup.
 *
 * Cost per event is the point, so: no map lookups that a per-CPU array or a
 * task-local slot can replace, one stack walk per contention (taken at the
 * end, where the stack is the same as at the beginning), and the key hashed
 * here so that no separate stack map can collide or fill.  When the table is
 * full we do not retry: the event goes through a ring buffer to user space,
 * which merges it, so nothing is lost unless the ring itself is full - and
 * that is counted.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "lock/lock.h"

#define E2BIG	7
#define EEXIST	17

/* Set by the loader before load; constants for the verifier. */
const volatile __u32 aggr_mode = LOCK_AGGR_CALLER;
const volatile __u32 max_stack = 8;	/* frames kept in a key */
const volatile __u32 stack_skip;	/* frames skipped by the kernel unwinder */
const volatile __u32 tail_size;		/* bytes after struct lock_stat in a row */
const volatile bool want_stack;		/* caller mode or -S */
const volatile bool classify_lock;	/* -l: tell mmap_lock / siglock apart */
const volatile __u32 target_mode;	/* 0 all, 1 by tgid, 2 by tid */
const volatile bool has_cpu;
const volatile __u64 type_mask;		/* bit (flags & 63) set: accepted; 0: all */
const volatile bool has_addr;
const volatile __u32 nr_ranges;		/* -S: sorted [start, end) text ranges */
/*
 * Kernel struct offsets, found by the loader in the kernel's BTF.  Reading
 * through them with bpf_probe_read_kernel keeps this object free of CO-RE
 * relocations, so libbpf never loads vmlinux BTF (see lock/kbtf.h).
 */
const volatile __u32 off_task_tgid;
const volatile __u32 off_task_mm;
const volatile __u32 off_task_sighand;
const volatile __u32 off_mm_mmap_lock;
const volatile __u32 off_sighand_siglock;

struct slot {
	__u64 ts;
	__u64 lock;
	__u32 flags;
	__u32 pad;
};

struct cpu_slots {
	__u32 depth;
	__u32 pad;
	struct slot s[LOCK_CPU_DEPTH];
};

struct task_slots {
	__u32 depth;
	__u32 pad;
	struct slot s[LOCK_TASK_DEPTH];
};

/* Spinning waits: the task cannot move or sleep, so a per-CPU stack works. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct cpu_slots);
} cpu_slots SEC(".maps");

/* Sleeping waits: a slot stack in the task itself, freed with the task. */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct task_slots);
} task_slots SEC(".maps");

/* Where an event is built: the row value plus its key, and the ring event. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct lock_event);
} scratch SEC(".maps");

/* The table; value_size = sizeof(struct lock_stat) + tail_size (loader). */
/* Not preallocated: creating 16K entries up front costs more start-up time
 * than allocating the few hundred rows a run usually has. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, LOCK_DEF_ENTRIES);
	__uint(key_size, sizeof(__u64));
	__uint(value_size, sizeof(struct lock_stat));
} stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 * 1024);
} overflow SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, LC_NR);
	__type(key, __u32);
	__type(value, __u64);
} counters SEC(".maps");

/* Targets: tgid or tid -> 1.  Sized by the loader. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u8);
} targets SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u8);
} cpus SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, __u64);
	__type(value, __u8);
} addrs SEC(".maps");

struct text_range {
	__u64 start;
	__u64 end;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct text_range);
} ranges SEC(".maps");

/* Set when the table first reports full: from then on, no insert attempts. */
bool stats_full;

static __always_inline void count(__u32 which)
{
	__u64 *c = bpf_map_lookup_elem(&counters, &which);

	/* Per-CPU and never re-entered on one CPU by the same program. */
	if (c)
		*c += 1;
}

static __always_inline bool is_target(void)
{
	__u64 id;
	__u32 key;

	if (has_cpu) {
		__u32 cpu = bpf_get_smp_processor_id();
		__u8 *ok = bpf_map_lookup_elem(&cpus, &cpu);

		if (!ok || !*ok)
			return false;
	}
	if (!target_mode)
		return true;
	id = bpf_get_current_pid_tgid();
	key = target_mode == 1 ? id >> 32 : (__u32)id;
	return bpf_map_lookup_elem(&targets, &key) != NULL;
}

static __always_inline bool is_spinning(__u32 flags)
{
	/* An optimistically spinning mutex may go to sleep: a task slot. */
	return (flags & (LCB_F_SPIN | LCB_F_MUTEX)) == LCB_F_SPIN;
}

static __always_inline struct task_slots *task_slots_get(bool create)
{
	struct task_struct *t = bpf_get_current_task_btf();

	return bpf_task_storage_get(&task_slots, t, NULL,
				    create ? BPF_LOCAL_STORAGE_GET_F_CREATE : 0);
}

/*
 * Push (lock, flags) on a slot stack.  A begin for the lock already on top
 * is the same wait going on (a mutex that stops spinning and sleeps): the
 * first timestamp is kept.
 */
#define PUSH(st, depth_max, lock, flags) ({					\
	__u32 __d = (st)->depth;						\
	if (__d > 0 && __d <= (depth_max) && (st)->s[__d - 1].lock == (lock)) {	\
		count(LC_REBEGINS);						\
	} else if (__d >= (depth_max)) {					\
		count(LC_DROP_NEST);						\
	} else {								\
		(st)->s[__d].ts = bpf_ktime_get_ns();				\
		(st)->s[__d].lock = (lock);					\
		(st)->s[__d].flags = (flags);					\
		(st)->depth = __d + 1;						\
	}									\
})

static __always_inline int on_begin(__u64 lock, __u32 flags)
{
	if (!is_target())
		return 0;
	count(LC_BEGINS);
	if (is_spinning(flags)) {
		__u32 zero = 0;
		struct cpu_slots *cs = bpf_map_lookup_elem(&cpu_slots, &zero);

		if (cs)
			PUSH(cs, LOCK_CPU_DEPTH, lock, flags);
	} else {
		struct task_slots *ts = task_slots_get(true);

		if (!ts) {
			count(LC_DROP_TASK);
			return 0;
		}
		PUSH(ts, LOCK_TASK_DEPTH, lock, flags);
	}
	return 0;
}

/*
 * Pop LOCK from a slot stack into *out.  Usually it is on top; if not, a
 * begin whose end we never saw (its program run was skipped) sits above it:
 * unwind those, counting them.  Returns false when LOCK is not there.
 */
#define POP(st, depth_max, lock, out) ({					\
	bool __found = false;							\
	__u32 __d = (st)->depth;						\
	for (int __i = (depth_max) - 1; __i >= 0; __i--) {			\
		if (__i >= __d)							\
			continue;						\
		if ((st)->s[__i].lock != (lock))				\
			continue;						\
		*(out) = (st)->s[__i];						\
		for (__u32 __k = __i + 1; __k < __d && __k < (depth_max); __k++) \
			count(LC_STALE);					\
		(st)->depth = __i;						\
		__found = true;							\
		break;								\
	}									\
	__found;								\
})

static __always_inline bool stack_matches(__u64 *stack)
{
	for (__u32 i = 0; i < LOCK_MAX_STACK && i < max_stack; i++) {
		__u64 ip = stack[i];
		__u32 lo = 0, hi = nr_ranges;

		if (!ip)
			break;
		for (int n = 0; n < 20 && lo < hi; n++) {
			__u32 mid = (lo + hi) / 2;
			struct text_range *r = bpf_map_lookup_elem(&ranges, &mid);

			if (!r)
				return false;
			if (ip < r->start)
				hi = mid;
			else if (ip >= r->end)
				lo = mid + 1;
			else
				return true;
		}
	}
	return false;
}

static __always_inline __u64 hash_stack(__u64 *stack)
{
	__u64 h = 0x9e3779b97f4a7c15ULL;

	for (__u32 i = 0; i < LOCK_MAX_STACK && i < max_stack; i++) {
		if (!stack[i])
			break;
		h = (h ^ stack[i]) * 0x100000001b3ULL;
		h ^= h >> 29;
	}
	return h;
}

static __always_inline __u64 read_ptr(__u64 base, __u32 off)
{
	__u64 v = 0;

	bpf_probe_read_kernel(&v, sizeof(v), (void *)(base + off));
	return v;
}

/* -l: is LOCK the current task's mmap_lock or its signal-handler lock? */
static __always_inline __u32 lock_class(__u64 lock, __u32 flags)
{
	__u64 t = bpf_get_current_task(), p;

	if (flags == LCB_F_READ || flags == LCB_F_WRITE) {
		p = read_ptr(t, off_task_mm);
		if (p && p + off_mm_mmap_lock == lock)
			return LOCK_F_MMAP_LOCK;
	} else if (flags == LCB_F_SPIN) {
		p = read_ptr(t, off_task_sighand);
		if (p && p + off_sighand_siglock == lock)
			return LOCK_F_SIGLOCK;
	}
	return 0;
}

/* Add to the row of ev->key; ev's tail is filled only if the row is new. */
static __always_inline void add_row(struct lock_event *ev, __u64 ns)
{
	struct lock_stat *st = bpf_map_lookup_elem(&stats, &ev->key);
	long err;

	if (st) {
		__sync_fetch_and_add(&st->total_ns, ns);
		__sync_fetch_and_add(&st->count, 1);
		/* Racy max/min on one row across CPUs: a lost update here only
		 * affects an extreme, never a count or a total. */
		if (st->max_ns < ns)
			st->max_ns = ns;
		if (st->min_ns > ns)
			st->min_ns = ns;
		count(LC_AGGR_HIT);
		return;
	}
	if (aggr_mode == LOCK_AGGR_TASK)
		bpf_get_current_comm(ev->tail.comm, sizeof(ev->tail.comm));
	ev->st.total_ns = ns;
	ev->st.max_ns = ns;
	ev->st.min_ns = ns;
	ev->st.count = 1;
	if (!stats_full) {
		err = bpf_map_update_elem(&stats, &ev->key, &ev->st, BPF_NOEXIST);
		if (!err) {
			count(LC_AGGR_NEW);
			return;
		}
		if (err == -EEXIST) {
			/* Another CPU inserted this key just now. */
			st = bpf_map_lookup_elem(&stats, &ev->key);
			if (st) {
				__sync_fetch_and_add(&st->total_ns, ns);
				__sync_fetch_and_add(&st->count, 1);
				count(LC_AGGR_HIT);
				return;
			}
		}
		if (err == -E2BIG)
			stats_full = true;
		else
			count(LC_DATA_FAIL);
	}
	/* Fail fast, keep the data: user space merges ring events. */
	if (bpf_ringbuf_output(&overflow, ev, sizeof(*ev) - sizeof(ev->tail) +
			       tail_size, 0))
		count(LC_LOST_RING);
	else
		count(LC_OVERFLOW);
}

static __always_inline int on_end(void *ctx, __u64 lock)
{
	struct lock_event *ev;
	struct slot s;
	__u32 zero = 0;
	__u64 now, ns;
	struct cpu_slots *cs;
	bool found = false;

	if (!is_target())
		return 0;
	count(LC_ENDS);
	now = bpf_ktime_get_ns();

	/* A spinning wait, if any, is the innermost: try the CPU first. */
	cs = bpf_map_lookup_elem(&cpu_slots, &zero);
	if (cs && cs->depth)
		found = POP(cs, LOCK_CPU_DEPTH, lock, &s);
	if (!found) {
		struct task_slots *ts = task_slots_get(false);

		if (ts && ts->depth)
			found = POP(ts, LOCK_TASK_DEPTH, lock, &s);
	}
	if (!found) {
		count(LC_UNMATCHED);
		return 0;
	}

	if (type_mask && !(type_mask & (1ULL << (s.flags & LCB_F_MASK))))
		goto filtered;
	if (has_addr && !bpf_map_lookup_elem(&addrs, &lock))
		goto filtered;

	ev = bpf_map_lookup_elem(&scratch, &zero);
	if (!ev)
		return 0;
	if (want_stack) {
		long n = bpf_get_stack(ctx, ev->tail.stack, max_stack * sizeof(__u64),
				       stack_skip & BPF_F_SKIP_FIELD_MASK);

		if (n <= 0) {
			count(LC_STACK_FAIL);
			__builtin_memset(ev->tail.stack, 0, sizeof(ev->tail.stack));
		}
		if (nr_ranges && !stack_matches(ev->tail.stack))
			goto filtered;
	}

	ns = now - s.ts;
	if ((__s64)ns < 0) {
		count(LC_TIME_FAIL);
		ns = 0;
	}

	switch (aggr_mode) {
	case LOCK_AGGR_CALLER:
		ev->key = hash_stack(ev->tail.stack);
		break;
	case LOCK_AGGR_TASK:
		ev->key = (__u32)bpf_get_current_pid_tgid();
		break;
	case LOCK_AGGR_ADDR:
		ev->key = lock;
		if (classify_lock)
			s.flags |= lock_class(lock, s.flags);
		break;
	default:
		ev->key = bpf_get_current_cgroup_id();
		break;
	}
	ev->st.flags = s.flags;
	add_row(ev, ns);
	return 0;

filtered:
	count(LC_FILTERED);
	return 0;
}

/*
 * Each program twice: as a raw tracepoint, and in "frugal_tp_btf/" sections
 * that the loader turns into tp_btf programs (BTF-typed tracepoints) with
 * an attach id it finds itself.  The context is the same array of u64
 * arguments either way; loading whole u64s keeps the tp_btf verifier happy.
 */
static __always_inline __u64 arg(__u64 *ctx, int i)
{
	__u64 v = ctx[i];

	barrier_var(v);
	return v;
}

SEC("frugal_tp_btf/contention_begin")
int lock_begin_btf(__u64 *ctx)
{
	return on_begin(arg(ctx, 0), arg(ctx, 1));
}

SEC("frugal_tp_btf/contention_end")
int lock_end_btf(__u64 *ctx)
{
	return on_end(ctx, arg(ctx, 0));
}

SEC("raw_tp/contention_begin")
int lock_begin_raw(__u64 *ctx)
{
	return on_begin(arg(ctx, 0), arg(ctx, 1));
}

SEC("raw_tp/contention_end")
int lock_end_raw(__u64 *ctx)
{
	return on_end(ctx, arg(ctx, 0));
}

/* With a command to run: its new processes become targets too. */
static __always_inline int on_fork(__u64 child)
{
	__u32 ptgid = bpf_get_current_pid_tgid() >> 32, ctgid = 0;
	__u8 one = 1;

	if (!bpf_map_lookup_elem(&targets, &ptgid))
		return 0;
	bpf_probe_read_kernel(&ctgid, sizeof(ctgid), (void *)(child + off_task_tgid));
	if (ctgid && ctgid != ptgid)
		bpf_map_update_elem(&targets, &ctgid, &one, BPF_NOEXIST);
	return 0;
}

SEC("frugal_tp_btf/sched_process_fork")
int lock_fork_btf(__u64 *ctx)
{
	return on_fork(arg(ctx, 1));
}

SEC("raw_tp/sched_process_fork")
int lock_fork_raw(__u64 *ctx)
{
	return on_fork(arg(ctx, 1));
}

char LICENSE[] SEC("license") = "GPL";
