// SPDX-License-Identifier: GPL-2.0
/*
 * frugal lock: time each kernel lock contention (contention_begin ->
 * contention_end) and aggregate it in the kernel by caller stack, task, lock
 * or cgroup.
 *
 * Where the cost lands is the point.  contention_end fires once the lock is
 * taken, so whatever the end program does is added to the critical section
 * and makes every other waiter wait longer.  So everything that can be known
 * at the begin is done there, while the task is about to wait anyway: the
 * stack walk, the key, the filters, the row (created with count 0, and its
 * lines read so that they are near).  The end only finds its slot, reads the
 * clock and adds to a row it already knows by index.
 *
 * Nothing is lost: when the table is full there is no retry; the key goes
 * through per-CPU perf buffers (no lock at all, so the overflow path cannot
 * contend with itself) and user space merges it.  The kernel skips a
 * program's run on a CPU where that program is already running (a
 * contention in an interrupt that arrives during our run): those runs are
 * counted, and with --nested a second copy of each program, attached to the
 * same tracepoint, takes most of them (see "Nesting" below).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "lock/lock.h"
#include "lock/target.bpf.h"

#define E2BIG	7
#define EEXIST	17

/* Set by the loader before load; constants for the verifier. */
const volatile enum lock_aggr aggr_mode = LOCK_AGGR_CALLER;
const volatile __u32 max_stack = 8;	/* frames kept in a key */
const volatile __u32 stack_skip;	/* frames skipped by the kernel unwinder */
const volatile __u32 tail_size;		/* bytes of union lock_tail in use */
const volatile __u32 nr_rows = 1;	/* entries of `rows` */
const volatile bool want_stack;		/* caller mode or -S */
const volatile bool classify_lock;	/* -l: tell mmap_lock / siglock apart */
const volatile __u64 type_mask;		/* bit (flags & 63) set: accepted; 0: all */
const volatile bool has_addr;
const volatile __u32 nr_ranges;		/* -S: sorted [start, end) text ranges */
/* -S looks at the frames the report shows: past the tracing frames on top
 * (these text ranges), at most shown_frames. */
const volatile __u32 shown_frames = LOCK_MAX_STACK;
const volatile __u32 nr_machinery;
const volatile __u64 machinery[LOCK_MACHINERY_RANGES][2];
/*
 * Kernel struct offsets, found by the loader in the kernel's BTF.  Reading
 * through them with bpf_probe_read_kernel keeps this object free of CO-RE
 * relocations, so libbpf never loads vmlinux BTF (see lock/kernel/kernel.h).
 */
const volatile __u32 off_task_tgid;
const volatile __u32 off_task_mm;
const volatile __u32 off_task_sighand;
const volatile __u32 off_mm_mmap_lock;
const volatile __u32 off_sighand_siglock;
const volatile __u32 off_task_stack;
/* --nested: struct bpf_array's ptrs[] (pptrs[] of a per-CPU array) and
 * struct bpf_prog's per-CPU recursion counter; 0: use the marks. */
const volatile __u32 off_array_ptrs, off_prog_active;
/* Stacks walked with learned frame sizes (needs off_task_stack); and, for
 * --stack-check, unwound every time anyway, counting walks that differ. */
const volatile bool use_walker;
const volatile bool stack_check;
/*
 * -o -t: rows keyed by the lock's owner when the wait began, for the locks
 * whose owner the kernel records: a mutex's owner word, a writer-owned
 * rwsem's, an rt_mutex's (their low bits are flags).  0: not known.
 */
const volatile bool owner_mode;
const volatile __u32 off_mutex_owner;
const volatile __u32 off_rwsem_owner;
const volatile __u32 off_rtmutex_owner;
const volatile __u32 off_task_pid;
const volatile __u32 off_task_comm;
/* -l: slab cache names (the loader made the call below a kfunc call). */
const volatile bool slab_names;
const volatile __u32 off_cache_name;
/* -l: where in its object a slab lock lies, from struct kmem_cache's
 * size, object_size, red_left_pad, oo and min (slab_where()). */
const volatile bool slab_offsets;
const volatile __u32 off_cache_size, off_cache_objsize, off_cache_redpad;
const volatile __u32 off_cache_oo, off_cache_min;
/*
 * -l: a slab lock's struct page, found as the kernel finds it
 * (virt_to_page(), then the head page).  page_offset_base and
 * vmemmap_base are read where kallsyms says they are; else the loader
 * passes the defaults, which hold when memory is not randomized, and a
 * page is taken only if its slab_cache is the lock's cache.
 */
const volatile __u64 page_offset_at, vmemmap_at;
const volatile __u64 page_offset_guess, vmemmap_guess;
const volatile __u32 page_struct_size, off_page_head, off_slab_cache;
static void *(*kmem_cache_of)(__u64 addr) = (void *)LOCK_KMEM_CACHE_CALL;
/* -o -v: the owner's stack (the loader made these two calls kfunc calls). */
const volatile bool owner_stacks;
/* -o where the kernel has lock:contended_release: holders at release. */
const volatile bool release_mode;
/* --hold: rows are the hold times of contended locks (lock:contended_release). */
const volatile bool hold_mode;
static struct task_struct *(*task_from_pid)(__s32 pid) = (void *)LOCK_TASK_FROM_PID_CALL;
static void (*task_release)(struct task_struct *t) = (void *)LOCK_TASK_RELEASE_CALL;
/* --floor: every program returns at once (what attaching alone costs). */
const volatile bool do_nothing;
/* --as-nested: the first programs do what the second ones do when nested
 * (the path an interrupt's contention takes, which no test can force). */
const volatile bool as_nested;
/* Without --nested the second programs are not loaded: no mark is set. */
const volatile bool skip_nested;
/* The wait-time histogram per lock type (lock.h, struct lock_hist): off,
 * the verifier drops its branch and the end is as it was. */
const volatile bool wait_hist;

struct task_slots {
	__u32 depth;
	__u32 pad;
	struct lock_slot s[LOCK_TASK_DEPTH];
};

/* Set by user space once both arrays below hold their program: without
 * it, the marks, and no look at the arrays in every run. */
bool counters_known;

/* --nested: each tracepoint's first program, for the second to find its
 * recursion counter (first_active()).  One array per tracepoint: the kernel
 * lets an array hold only programs of one attach point. */
struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} first_begin SEC(".maps"), first_end SEC(".maps");

/* Spinning waits cannot sleep or migrate: their slots are per CPU, in the
 * CPU's state with the marks (one lookup a run). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct lock_cpu_state);
} cpu_state SEC(".maps");

/* Sleeping waits: a slot stack in the task itself, freed with the task. */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct task_slots);
} task_slots SEC(".maps");

/*
 * Where a begin builds a key's definition and its stack: one per CPU for
 * the first program and one for the second, which can interrupt the first;
 * a third for the release program (-o at release), which can interrupt both.
 */
#define SCRATCH_RELEASE	2
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 3);
	__type(key, __u32);
	__type(value, struct lock_rec_def);
} scratch SEC(".maps");

/*
 * The table: each row's statistics and definition by index, and the index
 * of each key.  The begin finds (or makes) the row and leaves its index in
 * the slot, so the end reaches it by an array lookup, without hashing while
 * the lock is held.  The count and total are per CPU: adding to a line that
 * another CPU wrote last costs a cache miss inside the critical section
 * (measured: ~130 ns of a 260 ns end program, shared rows with atomics).
 * The max and min stay shared: read every time, written only when beaten.
 * Rows cost 16 bytes per CPU each, plus 32 bytes and a definition shared.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct lock_row_sum);
} row_sums SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct lock_stat);
} rows SEC(".maps");

/* value_size: the head of struct lock_rec_def plus tail_size (the loader). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(struct lock_rec_def));
} row_defs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 1);
	__type(key, __u64);
	__type(value, __u32);
} row_of SEC(".maps");

/*
 * -o at release: each lock a traced task waits on, with its last contended
 * releases (struct lock_releases).  Made by the waits' begins, written by
 * the holders' releases, read by the waits' ends.  Least recently used
 * first out: a lock dropped while a wait on it is open is seen by that
 * wait's end (the entry is gone, or born after the wait began), which then
 * charges the owner at its begin and counts it (LC_REL_LOST).
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1);
	__type(key, __u64);
	__type(value, struct lock_releases);
} releases SEC(".maps");

/* What a new entry of `releases` starts as (never written). */
struct lock_releases no_releases;

/* Rows handed out so far (some may be unused after an insert race). */
__u32 next_row;
/* Set when the table is first found full: from then on, no insert attempts. */
bool rows_full;

/*
 * The overflow channel: per-CPU perf buffers.  Sending takes no lock, so it
 * never contends - contending would fire contention_begin inside our own
 * program (a BPF ring buffer shared by the CPUs has a spinlock), and the
 * nested end would be skipped.  Per-CPU BPF ring buffers would need an
 * array of maps, whose every update from user space waits for an RCU grace
 * period (~15 ms a CPU here).
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} bufs SEC(".maps");

/* Keys whose definition this CPU has sent: direct-mapped, 256 entries. */
#define DEF_CACHE	256
struct def_cache {
	__u64 key[DEF_CACHE];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct def_cache);
} defs_sent SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, LC_NR);
	__type(key, __u32);
	__type(value, __u64);
} counters SEC(".maps");

/* wait_hist: 2 * LOCK_HIST_TYPES entries (one when off: the loader). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct lock_hist);
} wait_hists SEC(".maps");


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

static __always_inline void count(__u32 which)
{
	__u64 *c = bpf_map_lookup_elem(&counters, &which);

	/* Per-CPU; a run of the second program that interrupts one of the
	 * first can touch the same counter, so the add is atomic. */
	if (c)
		__sync_fetch_and_add(c, 1);
}

static __always_inline bool is_spinning(__u32 flags)
{
	/* An optimistically spinning mutex may go to sleep, and may also be
	 * scheduled out inside its spin (need_resched) and resume elsewhere
	 * before it begins again: a task slot. */
	return (flags & (LCB_F_SPIN | LCB_F_MUTEX)) == LCB_F_SPIN;
}

static __always_inline struct task_slots *task_slots_get(bool create)
{
	struct task_struct *t = bpf_get_current_task_btf();

	return bpf_task_storage_get(&task_slots, t, NULL,
				    create ? BPF_LOCAL_STORAGE_GET_F_CREATE : 0);
}

static __always_inline bool is_machinery(__u64 ip)
{
	for (__u32 i = 0; i < LOCK_MACHINERY_RANGES && i < nr_machinery; i++)
		if (ip >= machinery[i][0] && ip < machinery[i][1])
			return true;
	return false;
}

/*
 * -S: does a frame the report will show lie in one of the ranges?  The
 * report drops up to LOCK_MACHINERY_FRAMES tracing frames from the top and
 * shows --max-stack frames after them; a frame kept beyond those (one
 * tracing frame instead of two leaves one more) must not let a row in.
 */
static __always_inline bool stack_matches(__u64 *stack)
{
	__u32 top = 0, shown = 0;

	for (__u32 i = 0; i < LOCK_MAX_STACK && i < max_stack; i++) {
		__u64 ip = stack[i];
		__u32 lo = 0, hi = nr_ranges;

		if (!ip)
			break;
		if (i == top && i < LOCK_MACHINERY_FRAMES && is_machinery(ip)) {
			top++;
			continue;
		}
		if (shown++ >= shown_frames)
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

/* The numeric address of a pointer the verifier will not let us do sums on. */
static __always_inline __u64 address_of(void *p)
{
	__u64 v = 0;

	bpf_probe_read_kernel(&v, sizeof(v), &p);
	return v;
}

/* -l: what holds a lock (describe()). */
#include "lock/kernel/objdesc.bpf.h"
/* The stack walker: frame sizes learned from the kernel's unwinds (get_stack()). */
#include "lock/kernel/walker.bpf.h"

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


/* ---- Matching each end with its own begin ---- */

/*
 * A begin whose end never came (the kernel skipped the run, or anything
 * else) must never be matched later: a stale timestamp would make a wait of
 * seconds out of one of microseconds.  Where an event happens tells which
 * recorded waits can still be going on.  The address of the tracepoint's
 * arguments (ctx) is on the stack of the code that waits, and a begin and
 * its end are called from the same function, at the same depth: an end
 * matches only the slot of its lock recorded at its own address.  An
 * interrupt runs deeper on the same stack, or on another stack (the IRQ
 * stack, an exception stack); so, seen from a begin at X, a slot recorded
 * at S is over when S and X are on the same stack and S <= X (that frame
 * has returned, or is ours), or when S is off the current task's stack and
 * X on it (the interrupt that recorded it has returned, or S was another
 * task's).  Slots on two stacks that are both not the task's are kept: an
 * exception can interrupt an interrupt.
 *
 * "The same depth" is within FRAME_SLACK bytes: a tracepoint with one probe
 * calls it directly, with more it calls them from its iterator, whose frame
 * (32 bytes on x86-64) then lies between the waiting code and ours.  Another
 * tracer that attaches to one of the two tracepoints, or to both between a
 * begin and its end, moves one of the two addresses by that frame (seen:
 * `perf stat -e lock:contention_end` beside us made every end miss its
 * begin).  A wait nested in another on the same stack runs in an interrupt
 * or exception, whose saved registers alone (168 bytes) put it deeper than
 * that, but for one: an rwlock's queue lock, one call deeper (PRUNE()).
 */
#define FRAME_SLACK	128

static __always_inline bool same_frame(__u64 s, __u64 x)
{
	return s - x + FRAME_SLACK <= 2 * FRAME_SLACK;
}

static __always_inline bool on_task_stack(__u64 a, __u64 stk)
{
	return stk && a - stk < LOCK_THREAD_SIZE;
}

static __always_inline bool slot_over(__u64 s, const struct where *w)
{
	bool s_task = on_task_stack(s, w->stk), x_task = on_task_stack(w->sp, w->stk);

	if (s_task != x_task)
		return x_task;
	if (!s_task && s - w->sp + LOCK_THREAD_SIZE >= 2 * LOCK_THREAD_SIZE)
		return false;
	return s <= w->sp + FRAME_SLACK;
}

/*
 * One wait nests in another without an interrupt, one call deeper: an
 * rwlock's (qrwlock's) slow path begins its wait, then takes the rwlock's
 * own queue spinlock (wait_lock, 4 bytes in, after the count) inline,
 * whose wait begins too, well within FRAME_SLACK.  Is the wait of S such
 * an rwlock's, and LOCK its wait_lock?
 */
#define QRWLOCK_WAIT_LOCK	4

static __always_inline bool rwlock_queue_of(const struct lock_slot *s, __u64 lock)
{
	return (s->flags & LCB_F_SPIN) && (s->flags & (LCB_F_READ | LCB_F_WRITE)) &&
	       lock == s->lock + QRWLOCK_WAIT_LOCK;
}

/* Drop the slots on top of a stack that are over, seen from W, a begin
 * of LOCK (0: none nests without an interrupt on this stack). */
#define PRUNE(st, depth_max, w, lock) ({					\
	__u32 __d = (st)->depth;						\
	for (int __i = 0; __i < (depth_max); __i++) {				\
		if (__d == 0 || __d > (depth_max))				\
			break;							\
		if (!slot_over((st)->s[(__d - 1) & ((depth_max) - 1)].sp, (w)) ||	\
		    ((lock) && rwlock_queue_of(&(st)->s[(__d - 1) & ((depth_max) - 1)], (lock)))) \
			break;							\
		__d--;								\
		count(LC_STALE);						\
	}									\
	(st)->depth = __d;							\
})

/*
 * Take the slot of LOCK recorded at SP (same_frame(); SP is the context
 * pointer, compared, never computed with) into *out.  Slots above it were
 * pushed after it and never ended (a nested wait ends before the one it is
 * nested in): they are stale, and counted.  False when there is none.
 */
#define POP(st, depth_max, lock, sp, out) ({					\
	bool __found = false;							\
	__u32 __d = (st)->depth;						\
	for (int __i = (depth_max) - 1; __i >= 0; __i--) {			\
		if (__i >= __d)							\
			continue;						\
		if ((st)->s[__i].lock != (lock) ||				\
		    (st)->s[__i].sp + FRAME_SLACK < (sp) ||			\
		    (st)->s[__i].sp - FRAME_SLACK > (sp))			\
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

/* Push *SLOT; the depth is read once and written once, after the slot, so an
 * interrupt in between that pushes and pops its own wait changes nothing. */
#define PUSH(st, depth_max, slot) ({						\
	__u32 __d = (st)->depth;						\
	if (__d >= (depth_max)) {						\
		count(LC_DROP_NEST);						\
	} else {								\
		(st)->s[__d & ((depth_max) - 1)] = *(slot);			\
		(st)->depth = __d + 1;						\
	}									\
})

/* ---- The begin: everything that can be known before the wait ---- */

/* The key's definition to user space, once per CPU while it stays cached. */
static __always_inline void send_def(void *ctx, struct lock_rec_def *d, struct lock_slot *s)
{
	__u32 zero = 0, h;
	struct def_cache *dc = bpf_map_lookup_elem(&defs_sent, &zero);

	if (!dc) {
		s->flags |= LOCK_SLOT_LOST;
		return;
	}
	h = (s->key * 0x9e3779b97f4a7c15ULL) >> 56;
	if (dc->key[h & (DEF_CACHE - 1)] == s->key)
		return;
	d->kind = LOCK_REC_DEF;
	if (bpf_perf_event_output(ctx, &bufs, BPF_F_CURRENT_CPU, d,
				  offsetof(struct lock_rec_def, tail) + tail_size)) {
		s->flags |= LOCK_SLOT_LOST;
		return;
	}
	dc->key[h & (DEF_CACHE - 1)] = s->key;
	count(LC_DEFS);
}

/*
 * -l: the start of the object holding LOCK if its slab is of order and
 * object count OO (struct kmem_cache_order_objects: order in the high
 * bits), 0 if no object there could hold it.  A slab is a compound page
 * from the buddy allocator, aligned in physical memory to its size, and
 * the direct map is aligned to 1 GB: so the slab starts at LOCK rounded
 * down to its size.  The object's index is then the kernel's own
 * (nearest_obj(): the distance over the stride SIZE, red zone PAD after).
 */
static __always_inline __u64 object_start(__u64 lock, __u32 oo, __u32 size, __u32 pad)
{
	__u64 bytes = 4096ULL << ((oo >> 16) & 15), base = lock & ~(bytes - 1), i;

	if (!size)
		return 0;
	i = (lock - base) / size;
	return i < (oo & 0xffff) ? base + i * size + pad : 0;
}

/*
 * -l: the address of the first object of LOCK's slab (the slab of CACHE),
 * from its struct page; 0 if that page is not found.  A tail page's
 * compound_head is its head page's address + 1 (7.x's compound_info: that,
 * or a mask that keeps the head's address of the tail's); the head page is
 * the struct slab, whose slab_cache confirms it.
 */
static __always_inline __u64 slab_start(__u64 lock, __u64 cache)
{
	__u64 pob = page_offset_guess, vmb = vmemmap_guess, page, head;

	if (!page_struct_size ||
	    (page_offset_at && bpf_probe_read_kernel(&pob, sizeof(pob), (void *)page_offset_at)) ||
	    (vmemmap_at && bpf_probe_read_kernel(&vmb, sizeof(vmb), (void *)vmemmap_at)) ||
	    !pob || !vmb || lock < pob)
		return 0;
	page = vmb + ((lock - pob) >> 12) * page_struct_size;
	head = read_ptr(page, off_page_head);
	if (head & 1) {
		if (head - 1 >= vmb && read_ptr(head - 1, off_slab_cache) == cache)
			page = head - 1;
		else
			page &= head;
	}
	if (page < vmb || read_ptr(page, off_slab_cache) != cache)
		return 0;
	return pob + (((page - vmb) / page_struct_size) << 12);
}

/*
 * -l: where in its object a slab lock lies: from its slab's first object
 * (slab_start()) and the cache's stride, as nearest_obj() does.  Where
 * the page is not found (randomized memory, and the bases not in
 * kallsyms, which lists data symbols only with CONFIG_KALLSYMS_ALL): the
 * slab's order is the cache's preferred one (oo) or, when that allocation
 * failed, its minimum (min); where both could hold an object here they
 * must agree, and where one cannot (LOCK past its last object) the other
 * is the slab.
 */
static __always_inline void slab_where(__u64 lock, __u64 cache, struct lock_slab_tail *t)
{
	__u32 size = 0, objsize = 0, pad = 0, oo = 0, min = 0;
	__u64 a, b;

	t->off = 0;
	if (!slab_offsets) {
		t->why = LOCK_OFF_NO_FACTS;
		return;
	}
	if (!cache) {
		t->why = LOCK_OFF_NO_CACHE;
		return;
	}
	if (bpf_probe_read_kernel(&size, sizeof(size), (void *)(cache + off_cache_size)) ||
	    bpf_probe_read_kernel(&objsize, sizeof(objsize), (void *)(cache + off_cache_objsize)) ||
	    bpf_probe_read_kernel(&pad, sizeof(pad), (void *)(cache + off_cache_redpad)) ||
	    bpf_probe_read_kernel(&oo, sizeof(oo), (void *)(cache + off_cache_oo)) ||
	    bpf_probe_read_kernel(&min, sizeof(min), (void *)(cache + off_cache_min))) {
		t->why = LOCK_OFF_READ;
		return;
	}
	a = slab_start(lock, cache);
	if (a && size) {
		a += (lock - a) / size * size + pad;
		goto found;
	}
	a = object_start(lock, oo, size, pad);
	b = object_start(lock, min, size, pad);
	if (a && b && a != b) {
		t->why = LOCK_OFF_ORDERS;
		return;
	}
	a = a ? a : b;
found:
	if (!a || lock < a || lock - a >= objsize) {
		t->why = LOCK_OFF_OUTSIDE;
		return;
	}
	t->off = lock - a;
	t->why = LOCK_OFF_OK;
}

/*
 * -l: the name of the slab cache LOCK lives in, and where in its object,
 * once per row.  The kfunc's pointer is read as a number (never
 * dereferenced by the verifier's rules): what follows are probe reads,
 * which fail softly.
 */
static __always_inline void slab_name(__u64 lock, struct lock_slab_tail *t)
{
	__u64 cache = address_of(kmem_cache_of(lock));

	t->name[0] = '\0';
	if (cache)
		bpf_probe_read_kernel_str(t->name, LOCK_SLAB_LEN,
					  (void *)read_ptr(cache, off_cache_name));
	slab_where(lock, cache, t);
}

/*
 * -o -v: the owner's kernel stack, now (the kernel unwinds a task that is
 * not running; one running on another CPU may give none).  For a new row:
 * the first wait on an owner shows where the owner was then (or, if it
 * gave none, the first later wait that does: owner_stack_again()).
 */
static __always_inline void owner_stack(__u32 pid, struct lock_rec_def *d)
{
	struct task_struct *t = task_from_pid(pid);

	__builtin_memset(d->tail.owner.stack, 0, sizeof(d->tail.owner.stack));
	if (!t)
		return;
	bpf_get_task_stack(t, d->tail.owner.stack, sizeof(d->tail.owner.stack), 0);
	task_release(t);
}

/*
 * -o -v: a row whose owner gave no stack at its first wait (it was running
 * on another CPU) tries again at its later waits until one is taken.  The
 * first frame is the claim: one CPU takes the stack, the others leave it.
 */
static __always_inline void owner_stack_again(__u32 pid, __u32 row)
{
	struct lock_rec_def *d = bpf_map_lookup_elem(&row_defs, &row);
	struct task_struct *t;
	long n = 0;

	if (!d || d->tail.owner.stack[0] ||
	    __sync_val_compare_and_swap(&d->tail.owner.stack[0], 0, 1))
		return;
	t = task_from_pid(pid);
	if (t) {
		n = bpf_get_task_stack(t, d->tail.owner.stack, sizeof(d->tail.owner.stack), 0);
		task_release(t);
	}
	if (n <= 0)
		d->tail.owner.stack[0] = 0;
}

/*
 * A row for the key in S: a new index, the row zeroed and its definition
 * stored, then the key published.  Two CPUs racing on one key both take an
 * index; one publishes, the other's row stays at count 0 and is ignored.
 */
static __always_inline void new_row(void *ctx, struct lock_rec_def *d, struct lock_slot *s)
{
	struct lock_stat st = { .min_ns = ~0ULL, .flags = d->flags };
	__u32 i, *p;
	long err;

	if (aggr_mode == LOCK_AGGR_TASK && !owner_mode)
		bpf_get_current_comm(d->tail.comm, sizeof(d->tail.comm));
	if (aggr_mode == LOCK_AGGR_ADDR && (slab_names || obj_describe)) {
		if (slab_names) {
			slab_name(s->lock, &d->tail.slab);
		} else {
			d->tail.slab.name[0] = '\0';
			d->tail.slab.off = 0;
			d->tail.slab.why = LOCK_OFF_NONE;
		}
		describe(s->lock, d->flags, &d->tail.slab.obj);
	}
	/* At release, a holder's stack is taken at its release. */
	if (owner_stacks && !release_mode && s->key)
		owner_stack(s->key, d);
	if (rows_full)
		goto send;
	i = __sync_fetch_and_add(&next_row, 1);
	if (i >= nr_rows) {
		rows_full = true;
		goto send;
	}
	if (bpf_map_update_elem(&rows, &i, &st, BPF_ANY) ||
	    bpf_map_update_elem(&row_defs, &i, d, BPF_ANY)) {
		count(LC_DATA_FAIL);
		goto send;
	}
	err = bpf_map_update_elem(&row_of, &s->key, &i, BPF_NOEXIST);
	if (!err) {
		count(LC_AGGR_NEW);
		s->row = i + 1;
		return;
	}
	if (err == -EEXIST) {
		p = bpf_map_lookup_elem(&row_of, &s->key);
		if (p) {
			s->row = *p + 1;
			return;
		}
	}
	if (err == -E2BIG)
		rows_full = true;
	else
		count(LC_DATA_FAIL);
send:
	send_def(ctx, d, s);
}

/*
 * The task holding LOCK (of FLAGS' kind), or 0 when the kernel does not
 * record one: spinlocks, rwlocks, semaphores, per-CPU rwsems and an rwsem
 * held by readers (its owner word names the last reader, if any).
 */
static __always_inline __u64 owner_of(__u64 lock, __u32 flags)
{
	__u64 o;

	if (flags & LCB_F_MUTEX)
		return read_ptr(lock, off_mutex_owner) & ~0x7ULL;	/* MUTEX_FLAGS */
	if (flags & LCB_F_RT)
		return off_rtmutex_owner ? read_ptr(lock, off_rtmutex_owner) & ~0x1ULL : 0;
	if (flags & (LCB_F_SPIN | LCB_F_PERCPU) || !(flags & (LCB_F_READ | LCB_F_WRITE)))
		return 0;
	o = read_ptr(lock, off_rwsem_owner);
	return o & 0x1 ? 0 : o & ~0x3ULL;	/* RWSEM_READER_OWNED, RWSEM_NONSPINNABLE */
}

/* -o -t: the owner's thread id and name; key 0 and "[no owner]" when unknown. */
static __always_inline __u64 owner_key(struct lock_slot *s, struct lock_rec_def *d)
{
	char *comm = owner_stacks ? d->tail.owner.comm : d->tail.comm;
	__u64 t = owner_of(s->lock, s->flags);
	__u32 pid = 0;

	if (owner_stacks)
		__builtin_memset(d->tail.owner.stack, 0, sizeof(d->tail.owner.stack));
	if (!t || bpf_probe_read_kernel(&pid, sizeof(pid), (void *)(t + off_task_pid)) ||
	    bpf_probe_read_kernel_str(comm, LOCK_COMM_LEN, (void *)(t + off_task_comm)) < 0) {
		__builtin_memcpy(comm, "[no owner]", 11);
		return 0;
	}
	return pid;
}

/* The key of the wait in S (its stack, task, lock or cgroup) and its row;
 * or S marked filtered when -S finds no matching frame. */
static __always_inline void key_of(void *ctx, const struct where *w, struct lock_slot *s,
				   __u32 nest)
{
	struct lock_rec_def *d = bpf_map_lookup_elem(&scratch, &(__u32){ nest });
	__u32 *p;

	if (!d) {
		s->flags |= LOCK_SLOT_LOST;
		return;
	}
	if (want_stack) {
		long n = get_stack(ctx, w, d->tail.stack, nest);

		if (n <= 0) {
			count(LC_STACK_FAIL);
			__builtin_memset(d->tail.stack, 0, sizeof(d->tail.stack));
		}
		if (nr_ranges && !stack_matches(d->tail.stack)) {
			s->flags |= LOCK_SLOT_FILTERED;
			return;
		}
	}
	switch (aggr_mode) {
	case LOCK_AGGR_CALLER:
		s->key = hash_stack(d->tail.stack);
		break;
	case LOCK_AGGR_TASK:
		s->key = owner_mode ? owner_key(s, d) : (__u32)bpf_get_current_pid_tgid();
		break;
	case LOCK_AGGR_ADDR:
		s->key = s->lock;
		if (classify_lock)
			s->flags |= lock_class(s->lock, s->flags);
		break;
	default:
		s->key = bpf_get_current_cgroup_id();
		break;
	}
	p = bpf_map_lookup_elem(&row_of, &s->key);
	if (p) {
		s->row = *p + 1;
		if (owner_stacks && !release_mode && s->key)
			owner_stack_again(s->key, *p);
		return;
	}
	d->key = s->key;
	d->flags = s->flags;
	new_row(ctx, d, s);
}

/*
 * Read the row's lines - this CPU's count and total, the shared max and
 * min - so that the end, which adds to them while the lock is held, finds
 * them in this CPU's cache.  The trip to memory is then the begin's, and
 * the begin's task is about to wait anyway.  Measured on epoll: the end
 * went from 108-148 ns to 72-78 (docs/lock.md, "On a guest without
 * paravirtual spinlocks").
 */
static __always_inline void warm_row(__u32 i)
{
	struct lock_row_sum *sum = bpf_map_lookup_elem(&row_sums, &i);
	struct lock_stat *st = bpf_map_lookup_elem(&rows, &i);
	__u64 v = 0;

	if (sum)
		v += sum->count;
	if (st)
		v += st->max_ns;
	barrier_var(v);
}

/*
 * Add a wait of NS on a lock of FLAGS' type to row I: this CPU's count
 * and total, the shared extremes.  False when the row is not there.
 */
static __always_inline bool row_add(__u32 i, __u64 ns, __u32 flags)
{
	struct lock_row_sum *sum = bpf_map_lookup_elem(&row_sums, &i);
	struct lock_stat *st = bpf_map_lookup_elem(&rows, &i);

	if (!sum || !st)
		return false;
	/* The sum of the rows' counts less LC_SHARES is the AGGR_HIT count
	 * (user space). */
	sum->total_ns += ns;
	sum->count++;
	/* Racy across CPUs: a lost update can only miss an extreme, never a
	 * count or a total. */
	if (st->max_ns < ns)
		st->max_ns = ns;
	if (st->min_ns > ns)
		st->min_ns = ns;
	/* A holder's row made at a release takes its first wait's type. */
	if (st->flags & LOCK_F_HOLDER)
		st->flags = flags;
	return true;
}

/*
 * wait_hist: a wait of NS on a lock of type TYPE into this CPU's histogram,
 * the second copy's half for a nested run: plain adds, as row_add's.
 */
static __always_inline void hist_add(__u32 type, __u64 ns, __u32 nest)
{
	__u32 key = (type & LCB_F_MASK) + (nest ? LOCK_HIST_TYPES : 0);
	struct lock_hist *h = bpf_map_lookup_elem(&wait_hists, &key);

	if (!h)
		return;
	h->count[lock_hist_bucket(ns) & (LOCK_HIST_BUCKETS - 1)]++;
	h->sum_ns += ns;
}

/* -o at release: the holders that released during a wait (lock:contended_release). */
#include "lock/kernel/release.bpf.h"

static __always_inline bool accepted(__u64 lock, __u32 flags)
{
	if (type_mask && !(type_mask & (1ULL << (flags & LCB_F_MASK))))
		return false;
	return !has_addr || bpf_map_lookup_elem(&addrs, &lock);
}

static __always_inline void on_begin(void *ctx, struct lock_cpu_state *cs, __u64 lock,
				     __u32 flags, __u32 nest, __u64 sp)
{
	struct lock_slot s = { .lock = lock, .flags = flags & LCB_F_MASK };
	struct task_slots *ts = NULL;
	struct where w;

	if (!is_target())
		return;
	count(LC_BEGINS);
	w.sp = sp;
	if (is_spinning(flags)) {
		w.stk = off_task_stack ? read_ptr(bpf_get_current_task(), off_task_stack) : 0;
		PRUNE(cs, LOCK_CPU_DEPTH, &w, lock);
	} else {
		__u32 d;

		ts = task_slots_get(true);
		if (!ts) {
			count(LC_DROP_TASK);
			return;
		}
		/* A mutex that stops spinning and sleeps begins again, from the
		 * same frame: the same wait, the first timestamp kept. */
		d = ts->depth;
		if (d > 0 && d <= LOCK_TASK_DEPTH && ts->s[d - 1].lock == lock &&
		    same_frame(ts->s[d - 1].sp, w.sp)) {
			count(LC_REBEGINS);
			return;
		}
		/* Sleeping waits happen on the task's stack only. */
		w.stk = w.sp & ~(__u64)(LOCK_THREAD_SIZE - 1);
		PRUNE(ts, LOCK_TASK_DEPTH, &w, 0);
	}
	s.sp = w.sp;
	if (!accepted(lock, flags))
		s.flags |= LOCK_SLOT_FILTERED;
	else if (hold_mode)
		s.flags |= LOCK_SLOT_HOLD;
	else
		key_of(ctx, &w, &s, nest);
	if ((release_mode || hold_mode) && !(s.flags & (LOCK_SLOT_FILTERED | LOCK_SLOT_LOST)))
		track_releases(lock, flags & LCB_F_MASK);
	if (s.row)
		warm_row(s.row - 1);
	/* The wait starts now: our own cost above is not the lock's. */
	s.ts = bpf_ktime_get_ns();
	if (ts)
		PUSH(ts, LOCK_TASK_DEPTH, &s);
	else
		PUSH(cs, LOCK_CPU_DEPTH, &s);
}

/* ---- The end: runs while the lock is held, so it does the least ---- */

static __always_inline void on_end(void *ctx, struct lock_cpu_state *cs, __u64 lock, int ret,
				   __u32 nest)
{
	/*
	 * Compared with the address the begin recorded, as a pointer: a
	 * privileged program may compare pointers with numbers, which saves
	 * the helper call address_of() needs for arithmetic.
	 */
	__u64 now = bpf_ktime_get_ns(), sp = (__u64)ctx, ns;
	struct lock_slot s;
	bool found = false;

	if ((release_mode || hold_mode) && !ret)
		note_acquired(lock, now);
	if (cs->depth)
		found = POP(cs, LOCK_CPU_DEPTH, lock, sp, &s);
	if (!found) {
		struct task_slots *ts = task_slots_get(false);

		if (ts && ts->depth)
			found = POP(ts, LOCK_TASK_DEPTH, lock, sp, &s);
	}
	if (!found) {
		if (is_target())
			count(LC_UNMATCHED);
		return;
	}
	if (s.flags & LOCK_SLOT_FILTERED) {
		count(LC_FILTERED);
		return;
	}
	if (s.flags & LOCK_SLOT_HOLD) {
		count(LC_HOLD_WAITS);
		if (!ret)
			count(LC_HOLD_ACQ);
		return;
	}
	ns = now - s.ts;
	/*
	 * The whole wait (0 when the clock went back), before -o shares it.
	 * Off, the verifier drops the branch: the end program is then 7
	 * instructions longer than without it (the flag's load, and moves
	 * the compiler adds to keep the wait and the type across it).
	 */
	if (wait_hist)
		hist_add(s.flags, (__s64)ns < 0 ? 0 : ns, nest);
	if ((__s64)ns < 0) {
		count(LC_TIME_FAIL);
		ns = 0;
	} else if (release_mode) {
		charge_releases(&s, now, &ns, nest);
	}
	/*
	 * The second program, nested in an interrupt inside the first, sends
	 * its wait to the buffers: the first may be halfway through adding to
	 * this CPU's row, whose adds are therefore plain (no lock prefix
	 * while the lock is held), and nothing else writes them.
	 */
	if (s.row && !nest && row_add(s.row - 1, ns, s.flags & LCB_F_MASK))
		return;
	if (s.flags & LOCK_SLOT_LOST) {
		count(LC_LOST_RING);
		return;
	}
	{
		struct lock_rec_wait r = { .kind = LOCK_REC_WAIT, .flags = s.flags & ~LOCK_SLOT_MASK,
					   .key = s.key, .ns = ns };

		if (!bpf_perf_event_output(ctx, &bufs, BPF_F_CURRENT_CPU, &r, sizeof(r)))
			count(LC_OVERFLOW);
		else
			count(LC_LOST_RING);
	}
}

/* ---- The stop and the pairs ---- */

/*
 * The stop.  User space sets `stopped`, then runs on every CPU in turn
 * (lib/cpus.c): the tracepoints call the programs with preemption off, so a
 * run that started before the flag was seen has ended by the time the CPU
 * switches to another task, and every run after the switch sees the flag.
 * From then on no program touches a map and the tables are final, without
 * waiting for the kernel to detach anything (which it does afterwards, off
 * the report's path) and without a count of runs in and out: that was a
 * locked add in every run, inside the critical section at the end.
 */
bool stopped;

/*
 * Nesting.  The kernel runs a program at most once at a time per CPU: a
 * contention in an interrupt that arrives while our begin (or end) program
 * runs on that CPU would be skipped, its begin lost or its end never seen.
 * By default that is all: one program per tracepoint, which the kernel
 * calls directly, and the kernel's recursion_misses of the first programs
 * are reported as skipped runs.  With --nested each program exists twice.
 * The second, attached to the same tracepoint before the first, returns at
 * once unless the first is running on this CPU - that is, unless this run
 * is nested inside the first's, which the kernel then skips.  It reads
 * that from the kernel's own per-CPU recursion counter of the first
 * program (first_active()), the very test the kernel makes, so it takes
 * every run the kernel skips for the first, from its dispatch included.
 * Where the counter cannot be found, the first marks in the CPU's state
 * that its body runs, and runs nested in its dispatch, outside the mark,
 * are missed.  What both miss (with the counter, only a run nested in the
 * second inside the first: no more than the second's own recursion
 * misses) is the first program's recursion_misses less the second's
 * NESTED count: user space reports it.  The second program counts before
 * the kernel counts the first one's miss (it is called first), so reading
 * the misses before the counters never shows a loss that is not there.
 * Why --nested is not the default: two probes on a tracepoint are called
 * in a loop through indirect calls, which cost ~10% of a contended
 * workload on a kernel with retpolines (docs/lock.md, "Nesting").
 */
static __always_inline __u64 arg(__u64 *ctx, int i)
{
	__u64 v = ctx[i];

	barrier_var(v);
	return v;
}

static __always_inline struct lock_cpu_state *cpu_state_get(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&cpu_state, &zero);
}

/*
 * The address of the context as a number, for arithmetic, without the
 * helper call address_of() makes: a privileged program may store a pointer
 * in a map value, and what it loads back is a number.  One cell per copy
 * of the pair, as the second may interrupt the first between the two.
 */
static __always_inline __u64 ctx_address(struct lock_cpu_state *cs, void *ctx, __u32 copy)
{
	volatile __u64 *cell = &cs->addr[copy & 1];

	*cell = (__u64)ctx;
	return *cell;
}

/*
 * --nested: the address of this CPU's copy of the first program's
 * recursion counter (struct bpf_prog's per-CPU `active`), which the kernel
 * raises around each of its runs; 0 when unknown.  Found once per CPU:
 * the program is in the one-slot program array user space filled, and
 * this CPU's offset from a per-CPU pointer to its copy is where cs lies
 * from cpu_state's per-CPU base.
 */
static __always_inline __u64 first_active(struct lock_cpu_state *cs, bool end)
{
	__u64 prog, counter, base;

	if (cs->active[end] || !counters_known)
		return cs->active[end];
	prog = read_ptr(address_of(end ? (void *)&first_end : (void *)&first_begin),
			off_array_ptrs);
	if (!prog)
		return 0;
	counter = read_ptr(prog, off_prog_active);
	base = read_ptr(address_of(&cpu_state), off_array_ptrs);
	if (!counter || !base)
		return 0;
	cs->active[end] = counter + (address_of(cs) - base);
	return cs->active[end];
}

/*
 * --nested: is this run one the kernel will skip for the first program,
 * which runs on this CPU?  Read from its recursion counter, so that a run
 * nested anywhere inside the first's - its dispatch included - is taken;
 * else from the mark the first sets inside its body.
 */
static __always_inline bool first_running(struct lock_cpu_state *cs, bool end)
{
	__u64 a = first_active(cs, end);
	int active = 0;

	if (!a)
		return cs->running[end];
	bpf_probe_read_kernel(&active, sizeof(active), (void *)a);
	return active > 0;
}

/* One run of a program of a pair: END picks the tracepoint, NEST the copy. */
static __always_inline int run(__u64 *ctx, bool end, __u32 nest)
{
	struct lock_cpu_state *cs;
	bool mark;

	if (do_nothing)
		return 0;
	cs = cpu_state_get();
	if (!cs || (nest && !first_running(cs, end)))
		return 0;
	mark = !nest && !skip_nested && !cs->active[end];
	if (mark)
		cs->running[end] = 1;
	if (!stopped) {
		if (nest)
			count(end ? LC_NESTED_END : LC_NESTED_BEGIN);
		if (end)
			on_end(ctx, cs, arg(ctx, 0), (int)arg(ctx, 1), nest | as_nested);
		else
			on_begin(ctx, cs, arg(ctx, 0), arg(ctx, 1), nest | as_nested,
				 ctx_address(cs, ctx, nest));
	}
	if (mark)
		cs->running[end] = 0;
	return 0;
}

/*
 * Each program as a raw tracepoint, and in "frugal_tp_btf/" sections that
 * the loader turns into tp_btf programs (BTF-typed tracepoints) with an
 * attach id it finds itself.  The context is the same array of u64
 * arguments either way; loading whole u64s keeps the tp_btf verifier happy.
 */
#define PROGS(path, sec)							\
SEC(sec "contention_begin") int lock_begin_##path(__u64 *ctx) { return run(ctx, false, 0); } \
SEC(sec "contention_begin") int lock_begin2_##path(__u64 *ctx) { return run(ctx, false, 1); } \
SEC(sec "contention_end") int lock_end_##path(__u64 *ctx) { return run(ctx, true, 0); }	\
SEC(sec "contention_end") int lock_end2_##path(__u64 *ctx) { return run(ctx, true, 1); }

PROGS(btf, "frugal_tp_btf/")
PROGS(raw, "raw_tp/")

/* -o at release: the holders' side, loaded only where the kernel has it. */
static __always_inline int run_release(__u64 *ctx)
{
	if (!do_nothing && !stopped)
		on_release(ctx, arg(ctx, 0));
	return 0;
}

SEC("frugal_tp_btf/contended_release")
int lock_release_btf(__u64 *ctx)
{
	return run_release(ctx);
}

SEC("raw_tp/contended_release")
int lock_release_raw(__u64 *ctx)
{
	return run_release(ctx);
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
