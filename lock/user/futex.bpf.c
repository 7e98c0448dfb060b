// SPDX-License-Identifier: GPL-2.0
/*
 * frugal lock -U: user-space lock waits.  A contended pthread mutex, rwlock,
 * condition variable or semaphore waits in the kernel through a futex wait
 * (futex(2)'s WAIT, WAIT_BITSET, LOCK_PI, LOCK_PI2, WAIT_REQUEUE_PI;
 * futex_wait(2), futex_waitv(2)); the uncontended fast path never enters
 * the kernel and costs nothing here.
 *
 * Where the cost lands: at the entry the waiter is about to sleep, so the
 * entry does the work: the user registers and a bounded copy of the user
 * stack go to user space, which unwinds them with the DWARF CFI of each
 * mapping (glibc has no frame pointers).  The return only reads the clock
 * and sends 24 bytes: after LOCK_PI it holds the lock, and after a plain
 * wait it is about to retry it.
 *
 * Nothing is lost silently: a wait with no slot, a record that did not fit
 * in its CPU's buffer, a stack that could not be read, each has a counter
 * (lock.h, enum lock_ucounter).  The buffers are one a CPU (no lock: the
 * overflow path cannot contend with itself).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#include "lock/lock.h"
#include "lock/target.bpf.h"

/* futex(2)'s ops (uapi/linux/futex.h) */
#define FUTEX_WAIT		0
#define FUTEX_LOCK_PI		6
#define FUTEX_WAIT_BITSET	9
#define FUTEX_WAIT_REQUEUE_PI	11
#define FUTEX_LOCK_PI2		13
#define FUTEX_CMD_MASK		127
#define OP_FUTEX_WAIT2		0x100	/* futex_wait(2) */
#define OP_FUTEX_WAITV		0x101	/* futex_waitv(2) */
/*
 * What a program on a perf tracepoint returns decides whether the event
 * goes on to the tracepoint's other perf events: 0 would hide every futex
 * syscall from `perf stat` and `perf trace` while frugal runs.
 */
#define PASS_ON			1

const volatile __u32 ustack_size = LOCK_USTACK_DEF;	/* a power of two */
const volatile bool do_nothing;		/* --floor: the empty pair */
const volatile __u32 off_task_mm;

bool stopped;

struct wait_slot {
	__u64 seq;
	__u64 ts;
	__u32 lost;		/* the begin record was lost: so is the wait */
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, LOCK_UWAIT_SLOTS);
	__type(key, __u32);
	__type(value, struct wait_slot);
} waits SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct lock_urec_begin);
} scratch SEC(".maps");

/*
 * Per CPU: the next sequence number's low bits, and the gate: runs in and
 * out.  User space sets `stopped`, then waits until every CPU's in equals
 * its out: no run is in flight and the counters and buffers are final.
 */
struct ucpu {
	__u64 seq;
	__u64 in, out;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ucpu);
} ucpus SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} ubufs SEC(".maps");

/*
 * Bytes of stack to copy, by tgid, set by user space from what unwinding
 * its earlier stacks read (with room to spare; back to USTACK_SIZE when an
 * unwind ran past the copy).  Absent: USTACK_SIZE.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, __u32);
} ucopy SEC(".maps");

/* Processes seen, by tgid: their mm, to tell the reader of a new one. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, __u64);
} procs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} uwake SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, UL_NR);
	__type(key, __u32);
	__type(value, __u64);
} ucounters SEC(".maps");

static __always_inline void count(__u32 which)
{
	__u64 *c = bpf_map_lookup_elem(&ucounters, &which);

	if (c)
		__sync_fetch_and_add(c, 1);
}

static __always_inline bool is_wait_op(__u32 op)
{
	return op == FUTEX_WAIT || op == FUTEX_WAIT_BITSET || op == FUTEX_LOCK_PI ||
	       op == FUTEX_LOCK_PI2 || op == FUTEX_WAIT_REQUEUE_PI;
}

/*
 * x86-64's struct pt_regs, the user registers saved at the system call's
 * entry, into DWARF register order.  Where they lie is the kernel's to say:
 * a kernel built with FRED (7.x) keeps 16 bytes free above them at the top
 * of the task's stack, others none, so the place comes from
 * bpf_task_pt_regs(), not from the stack's size.  Their layout is the
 * kernel's ABI with ptrace (user_regs_struct), so they are read by fixed
 * offsets, with no CO-RE.
 */
static __always_inline int user_regs(__u64 *regs)
{
	__u64 pt[21];
	long at = bpf_task_pt_regs(bpf_get_current_task_btf());

	if (!at || bpf_probe_read_kernel(pt, sizeof(pt), (void *)at))
		return -1;
	/* pt_regs: r15 r14 r13 r12 bp bx r11 r10 r9 r8 ax cx dx si di orig_ax ip cs flags sp ss */
	regs[0] = pt[10];	/* rax */
	regs[1] = pt[12];	/* rdx */
	regs[2] = pt[11];	/* rcx */
	regs[3] = pt[5];	/* rbx */
	regs[4] = pt[13];	/* rsi */
	regs[5] = pt[14];	/* rdi */
	regs[6] = pt[4];	/* rbp */
	regs[7] = pt[19];	/* rsp */
	regs[8] = pt[9];
	regs[9] = pt[8];
	regs[10] = pt[7];
	regs[11] = pt[6];
	regs[12] = pt[3];
	regs[13] = pt[2];
	regs[14] = pt[1];
	regs[15] = pt[0];
	regs[16] = pt[16];	/* rip */
	return 0;
}

/*
 * The stack from the stack pointer up: USTACK_SIZE bytes, or fewer where
 * the mapping ends sooner (a main thread's stack near its top).
 */
static __always_inline __u32 copy_stack(struct lock_urec_begin *r)
{
	__u32 n = ustack_size, *hint = bpf_map_lookup_elem(&ucopy, &r->tgid);
	int i;

	if (hint && *hint < n)
		n = *hint;
	for (i = 0; i < 8; i++) {
		if (n > LOCK_USTACK_MAX)
			n = LOCK_USTACK_MAX;
		if (n < 256)
			break;
		if (!bpf_probe_read_user(r->stack, n, (void *)r->regs[7]))
			return n;
		n >>= 1;
	}
	return 0;
}

static __always_inline struct ucpu *gate_enter(void)
{
	__u32 zero = 0;
	struct ucpu *g = bpf_map_lookup_elem(&ucpus, &zero);

	if (!g)
		return NULL;
	__sync_fetch_and_add(&g->in, 1);
	if (stopped) {
		__sync_fetch_and_add(&g->out, 1);
		return NULL;
	}
	return g;
}

static __always_inline void gate_leave(struct ucpu *g)
{
	__sync_fetch_and_add(&g->out, 1);
}

static __always_inline void new_proc(void *ctx, struct lock_urec_begin *r)
{
	struct lock_urec_proc p = { LOCK_REC_UPROC, r->tgid, r->mm };
	__u64 *mm = bpf_map_lookup_elem(&procs, &r->tgid);

	if (mm && *mm == r->mm)
		return;
	bpf_map_update_elem(&procs, &r->tgid, &r->mm, BPF_ANY);
	/* Lost: the begin's own record still names the process, later. */
	bpf_perf_event_output(ctx, &uwake, BPF_F_CURRENT_CPU, &p, sizeof(p));
}

static __always_inline void record_begin(void *ctx, struct ucpu *g, __u32 op, __u64 uaddr)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct wait_slot slot = {}, *sp;
	struct lock_urec_begin *r;
	__u32 zero = 0, tid = id, n, size;

	if (!is_target())
		return;
	count(UL_WAITS);
	r = bpf_map_lookup_elem(&scratch, &zero);
	if (!r)
		return;
	slot.seq = ((__u64)bpf_get_smp_processor_id() << 40) | ++g->seq;	/* never 0 */
	/*
	 * The clock first: the wait is the syscall's, entry to return, as the
	 * program lives it, our copy included (a clock around the lock call
	 * sees it too; 1-5 us a wait, see docs/lock.md).
	 */
	slot.ts = bpf_ktime_get_ns();
	if (bpf_map_update_elem(&waits, &tid, &slot, BPF_ANY)) {
		count(UL_DROP_TASK);
		return;
	}
	r->kind = LOCK_REC_UBEGIN;
	r->op = op;
	r->seq = slot.seq;
	r->uaddr = uaddr;
	r->tid = tid;
	r->tgid = id >> 32;
	r->cgroup = bpf_get_current_cgroup_id();
	r->mm = 0;
	if (off_task_mm)
		bpf_probe_read_kernel(&r->mm, sizeof(r->mm),
				      (void *)(bpf_get_current_task() + off_task_mm));
	bpf_get_current_comm(r->comm, sizeof(r->comm));
	new_proc(ctx, r);
	n = 0;
	if (user_regs(r->regs))
		__builtin_memset(r->regs, 0, sizeof(r->regs));
	else
		n = copy_stack(r);
	if (!n)
		count(UL_STACK_FAIL);
	r->stack_size = n;
	size = offsetof(struct lock_urec_begin, stack) + n;
	if (size > sizeof(*r))
		size = sizeof(*r);
	sp = bpf_map_lookup_elem(&waits, &tid);
	if (bpf_perf_event_output(ctx, &ubufs, BPF_F_CURRENT_CPU, r, size)) {
		count(UL_LOST_BEGIN);
		if (sp)
			sp->lost = 1;
	}
}

static __always_inline int on_enter(void *ctx, __u32 op, __u64 uaddr)
{
	struct ucpu *g;

	if (do_nothing || !(g = gate_enter()))
		return 0;
	record_begin(ctx, g, op, uaddr);
	gate_leave(g);
	return 0;
}

static __always_inline void record_end(void *ctx)
{
	__u32 tid = bpf_get_current_pid_tgid();
	struct wait_slot *sp;
	struct lock_urec_end e;
	__u64 now;

	sp = bpf_map_lookup_elem(&waits, &tid);
	if (!sp)
		return;
	now = bpf_ktime_get_ns();
	e.kind = LOCK_REC_UEND;
	e.tid = tid;
	e.seq = sp->seq;
	e.ns = now > sp->ts ? now - sp->ts : 0;
	count(UL_ENDS);
	if (sp->lost)
		count(UL_ENDS_NO_BEGIN);
	else if (bpf_perf_event_output(ctx, &ubufs, BPF_F_CURRENT_CPU, &e, sizeof(e)))
		count(UL_LOST_END);
	else
		count(UL_SENT);
	bpf_map_delete_elem(&waits, &tid);
}

/* After the stop, an end is not taken: its wait stays open (lock.h). */
static __always_inline int on_exit(void *ctx)
{
	struct ucpu *g;

	if (do_nothing || !(g = gate_enter()))
		return 0;
	record_end(ctx);
	gate_leave(g);
	return 0;
}

SEC("tracepoint/syscalls/sys_enter_futex")
int futex_enter(struct trace_event_raw_sys_enter *ctx)
{
	__u32 op = ctx->args[1] & FUTEX_CMD_MASK;

	if (is_wait_op(op))
		on_enter(ctx, op, ctx->args[0]);
	return PASS_ON;
}

SEC("tracepoint/syscalls/sys_exit_futex")
int futex_exit(struct trace_event_raw_sys_exit *ctx)
{
	on_exit(ctx);
	return PASS_ON;
}

/* futex_wait(2), 6.7+: always a wait. */
SEC("tracepoint/syscalls/sys_enter_futex_wait")
int futex_wait_enter(struct trace_event_raw_sys_enter *ctx)
{
	on_enter(ctx, OP_FUTEX_WAIT2, ctx->args[0]);
	return PASS_ON;
}

SEC("tracepoint/syscalls/sys_exit_futex_wait")
int futex_wait_exit(struct trace_event_raw_sys_exit *ctx)
{
	on_exit(ctx);
	return PASS_ON;
}

/* futex_waitv(2), 5.16+: the first futex of the vector stands for the wait. */
SEC("tracepoint/syscalls/sys_enter_futex_waitv")
int futex_waitv_enter(struct trace_event_raw_sys_enter *ctx)
{
	__u64 uaddr = 0;

	/* struct futex_waitv { u64 val; u64 uaddr; u32 flags; u32 reserved; } */
	bpf_probe_read_user(&uaddr, sizeof(uaddr), (void *)(ctx->args[0] + 8));
	on_enter(ctx, OP_FUTEX_WAITV, uaddr);
	return PASS_ON;
}

SEC("tracepoint/syscalls/sys_exit_futex_waitv")
int futex_waitv_exit(struct trace_event_raw_sys_exit *ctx)
{
	on_exit(ctx);
	return PASS_ON;
}

char LICENSE[] SEC("license") = "GPL";
