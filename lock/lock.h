/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What lock.bpf.c and the user-space side of `frugal lock` share: fixed-size
 * types only (this header is compiled by clang -target bpf and by gcc), the
 * map bounds, and the accounting counters.
 */
#ifndef FRUGAL_LOCK_H
#define FRUGAL_LOCK_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/* Contention flags passed by the kernel's contention_begin tracepoint. */
#define LCB_F_SPIN	(1U << 0)
#define LCB_F_READ	(1U << 1)
#define LCB_F_WRITE	(1U << 2)
#define LCB_F_RT	(1U << 3)
#define LCB_F_PERCPU	(1U << 4)
#define LCB_F_MUTEX	(1U << 5)
#define LCB_F_MASK	0x3fU

/* Extra flags we add in -l mode: what kind of per-task lock this was. */
#define LOCK_F_MMAP_LOCK	(1U << 16)
#define LOCK_F_SIGLOCK		(1U << 17)
/* -o at release: a row a release made, whose lock's type the first wait
 * charged to it tells (until then, "unknown"). */
#define LOCK_F_HOLDER		(1U << 19)

/* Bounds.  The map sizes are set by the user (-M); these are hard limits. */
#define LOCK_MAX_STACK		64	/* --max-stack + --stack-skip */
#define LOCK_MACHINERY_FRAMES	2	/* tracing frames kept, then dropped by name */
#define LOCK_MACHINERY_RANGES	8	/* -S: their text ranges, for the kernel's filter */
#define LOCK_DEF_ENTRIES	16384
#define LOCK_CPU_DEPTH		8	/* nested spinning waits per CPU: task, softirq, irq, nmi, ... */
#define LOCK_TASK_DEPTH		4	/* nested sleeping waits per task */
#define LOCK_COMM_LEN		16
#define LOCK_SLAB_LEN		32	/* -l: a slab cache's name */
#define LOCK_OWNER_FRAMES	16	/* -o -v: frames of the owner's stack */
#define LOCK_RELEASES		16	/* -o at release: a lock's last contended releases kept */
#define LOCK_RELEASE_LOCKS	1024	/* -o at release: locks whose releases are kept */
/* The filter maps' bounds, as the loader sizes them (user space only). */
#define LOCK_MAX_TARGETS	1024	/* -p, --tid */
#define LOCK_MAX_ADDRS		64	/* -L */
#define LOCK_MAX_CPUS		4096	/* -C */
#define LOCK_MAX_CGROUPS	64	/* -G */
/*
 * The stack walker (lock.bpf.c): frame sizes learned from the kernel's own
 * unwinds, in a direct-mapped table of this many entries, over a window of
 * the kernel stack of this many bytes.
 */
#define LOCK_FRAME_FACTS	4096
#define LOCK_STACK_WINDOW	1024
#define LOCK_THREAD_SIZE	16384	/* x86-64 kernel stacks: size and alignment */
#define LOCK_MISMATCH_FRAMES	16	/* --stack-check keeps the first difference */

/* -o: which holder a wait is charged to (--owner-at). */
enum lock_owner_at {
	LOCK_OWNER_AT_ANY,	/* at release where the kernel can, else at begin */
	LOCK_OWNER_AT_BEGIN,	/* the owner the lock records when the wait begins */
	LOCK_OWNER_AT_RELEASE,	/* the holders that release it during the wait */
};

enum lock_aggr {
	LOCK_AGGR_CALLER,	/* key: hash of the kernel call stack */
	LOCK_AGGR_TASK,		/* key: thread id */
	LOCK_AGGR_ADDR,		/* key: lock address */
	LOCK_AGGR_CGROUP,	/* key: cgroup id */
};

/*
 * A row's statistics: the head of a kernel row and of a merged user-space
 * row.  Kernel rows are created by the begin program with count 0 (the key
 * is known once the wait begins); ends only add to them.
 */
struct lock_stat {
	__u64 total_ns;
	__u64 max_ns;
	__u64 min_ns;
	__u32 count;
	__u32 flags;		/* LCB_F_* | LOCK_F_* of the first contention */
};

/* A kernel row's count and total, per CPU. */
struct lock_row_sum {
	__u64 total_ns;
	__u64 count;
};

/*
 * -l: whether a slab lock's offset in its object is known, and if not why
 * (lock.bpf.c's slab_where()).  0: not asked (no slab names).
 */
enum lock_off_why {
	LOCK_OFF_NONE,
	LOCK_OFF_OK,
	LOCK_OFF_NO_CACHE,	/* not in a slab object (bpf_get_kmem_cache said none) */
	LOCK_OFF_READ,		/* the cache's sizes could not be read */
	LOCK_OFF_ORDERS,	/* the cache's two slab orders put it in different objects */
	LOCK_OFF_OUTSIDE,	/* not inside an object (past the last, or in padding) */
	LOCK_OFF_NO_FACTS,	/* the kernel's BTF lacks a member of struct kmem_cache */
	LOCK_OFF_NR,
};

/*
 * -l: what holds a lock, found by lock.bpf.c's describe() (objdesc.bpf.h)
 * at a row's first contention: the object is taken to be of a kind if the
 * lock sits where that kind keeps a lock of its type, and the object there
 * passes the kind's check (pointers that only a live object of the kind
 * has: a file's inode is its dentry's).
 */
enum lock_obj_kind {
	LOCK_OBJ_NONE,
	LOCK_OBJ_FILE,		/* struct file: its path, its inode's number */
	LOCK_OBJ_INODE,		/* struct inode: number, filesystem, a name */
	LOCK_OBJ_MM,		/* struct mm_struct: its process */
	LOCK_OBJ_TASK,		/* struct task_struct */
	LOCK_OBJ_SOCK,		/* struct sock: family, protocol, addresses */
	LOCK_OBJ_RQ,		/* struct rq: its CPU */
	LOCK_OBJ_ZONE,		/* struct zone: its name and node */
	LOCK_OBJ_PIPE,		/* struct pipe_inode_info: its inode, the waiter, the holder */
	LOCK_OBJ_SB,		/* struct super_block: filesystem type and device */
	LOCK_OBJ_CGROUP,	/* struct cgroup: its path */
	LOCK_OBJ_MEMCG_NODE,	/* struct mem_cgroup_per_node: its cgroup's path, its node */
	LOCK_OBJ_DENTRY,	/* struct dentry: its path in its filesystem, the filesystem */
	LOCK_OBJ_FILES,		/* struct files_struct: the waiter's process's descriptors */
	LOCK_OBJ_NR,
};

/* A probe's lock types (lock_class_of()): one bit each. */
#define LOCK_CLASS_SPIN		(1U << 0)
#define LOCK_CLASS_RWLOCK	(1U << 1)
#define LOCK_CLASS_RWSEM	(1U << 2)
#define LOCK_CLASS_MUTEX	(1U << 3)

static inline __u32 lock_class_of(__u32 flags)
{
	if (flags & LCB_F_MUTEX)
		return LOCK_CLASS_MUTEX;
	if (flags & (LCB_F_RT | LCB_F_PERCPU))
		return 0;
	if (flags & LCB_F_SPIN)
		return flags & (LCB_F_READ | LCB_F_WRITE) ? LOCK_CLASS_RWLOCK : LOCK_CLASS_SPIN;
	return flags & (LCB_F_READ | LCB_F_WRITE) ? LOCK_CLASS_RWSEM : 0;
}

/* -l: where a kind keeps a lock of a type (the loader's table, from BTF). */
#define LOCK_OBJ_PROBES		24
struct lock_obj_probe {
	__u32 kind;		/* enum lock_obj_kind; 0 ends the table */
	__u32 off;		/* the lock's offset in the kind's struct */
	__u32 classes;		/* LOCK_CLASS_* */
	__u32 pad;
};

/* -l: the struct offsets describe() reads, from the kernel's BTF. */
struct lock_obj_facts {
	__u32 file_inode, file_path, path_dentry, path_mnt;
	__u32 dentry_name, qstr_name, dentry_parent, dentry_inode, dentry_alias;
	__u32 mount_mnt, mount_parent, mount_mountpoint, vfsmount_root;
	__u32 inode_ino, inode_sb, inode_mapping, inode_data, inode_dentry;
	__u32 sb_id, sb_type, fstype_name;
	__u32 mm_owner, task_mm, task_leader, task_pid, task_tgid, task_comm;
	__u32 sock_family, sock_saddr, sock_daddr, sock_v6_saddr, sock_v6_daddr;
	__u32 sock_num, sock_dport, sock_protocol, sock_type, sock_socket, socket_sk;
	__u32 rq_cpu, rq_cfs_rq;
	__u32 zone_pgdat, zone_name, zone_size, pgdat_zones, pgdat_nzones, pgdat_node_id;
	__u32 task_files, files_fdt, fdt_fd, fdt_max_fds, file_private, file_mode, inode_pipe;
	__u32 pipe_mutex, mutex_owner, sb_root, dentry_sb;
	__u32 cgroup_self, cgroup_kn, css_cgroup, kn_name, kn_parent, kn_priv;
	__u32 mz_memcg, mz_lruvec_pgdat, memcg_css, memcg_nodeinfo;
	__u8 has_mm_owner, has_sock_v6, pad[2];
};

#define LOCK_OBJ_PARTS		8	/* a path's last components kept */
#define LOCK_OBJ_PART		32	/* bytes of each (longer names are cut) */
#define LOCK_OBJ_F_MORE		1	/* the path has more components than kept */
#define LOCK_OBJ_F_ROOT		2	/* the path reached its root */
#define LOCK_OBJ_F_PSEUDO	4	/* the one name of a dentry of no tree */

struct lock_obj {
	__u8 kind;		/* enum lock_obj_kind */
	__u8 probe;		/* the index of the probe that matched */
	__u8 parts;		/* components in part[], leaf first */
	__u8 flags;		/* LOCK_OBJ_F_* */
	__u32 id;		/* MM, TASK, PIPE (the waiter's), FILES: pid (tgid); RQ: CPU; ZONE,
				 * MEMCG_NODE: node; SOCK: family */
	__u64 num;		/* FILE, INODE, DENTRY: inode number; SOCK: protocol << 16 |
				 * type */
	__u32 addr[8];		/* SOCK: local, then remote (network order; IPv4: word 0);
				 * PIPE: addr[0] the holder's tgid (0: none), addr[1] the
				 * waiter's end (1 read, 2 write) */
	__u16 port[2];		/* SOCK: local (host order), remote (network order) */
	__u8 cut;		/* bit N: part[N] was cut to fit */
	__u8 pad[3];
	char name[LOCK_COMM_LEN];	/* MM, TASK, PIPE (the waiter's), FILES: comm; ZONE:
					 * its name; FILE, INODE, SB, DENTRY: fs type */
	char dev[32];			/* FILE, INODE, SB, DENTRY: the super block's s_id;
					 * PIPE: the holder's comm */
	char part[LOCK_OBJ_PARTS][LOCK_OBJ_PART];	/* FILE, INODE, DENTRY: a path; CGROUP,
							 * MEMCG_NODE: the cgroup's */
};

/* -l: the lock's slab cache and where in its object the lock lies. */
struct lock_slab_tail {
	char name[LOCK_SLAB_LEN];	/* "" if none */
	__u32 off;			/* bytes from the object's start, if why is OK */
	__u32 why;			/* enum lock_off_why */
	struct lock_obj obj;		/* what holds it, if known */
};

union lock_tail {
	__u64 stack[LOCK_MAX_STACK];	/* caller mode: max_stack frames */
	char comm[LOCK_COMM_LEN];	/* task mode */
	struct lock_slab_tail slab;	/* -l */
	struct {			/* -o -v: the owner's stack, then its comm */
		__u64 stack[LOCK_OWNER_FRAMES];
		char comm[LOCK_COMM_LEN];
		__u64 hold_ns;		/* at release: the hold whose release it is */
	} owner;
};

/*
 * -l's slab names: a call to this helper id in lock.bpf.c is made a call
 * of the kfunc bpf_get_kmem_cache (6.13+) by the loader, which finds the
 * kfunc's id in the kernel's BTF (libbpf would load all of vmlinux's BTF
 * to resolve a kfunc itself).  Never a real helper's id.
 */
#define LOCK_KMEM_CACHE_CALL	0x7ffff00
/* -o -v, the same way: bpf_task_from_pid and bpf_task_release (kfuncs). */
#define LOCK_TASK_FROM_PID_CALL	0x7ffff01
#define LOCK_TASK_RELEASE_CALL	0x7ffff02

/*
 * Overflow records, through one perf buffer per CPU.  When the kernel table is
 * full, the begin sends the key's definition (its tail) once per CPU, and
 * each end sends a wait; user space joins them by key.
 */
enum lock_rec_kind {
	LOCK_REC_WAIT = 1,
	LOCK_REC_DEF,
};

struct lock_rec_wait {
	__u32 kind;
	__u32 flags;
	__u64 key;
	__u64 ns;
};

struct lock_rec_def {
	__u32 kind;
	__u32 flags;
	__u64 key;
	union lock_tail tail;	/* tail_size bytes of it are sent */
};

/*
 * -o where the kernel has lock:contended_release (Linux 7.x): the last
 * LOCK_RELEASES contended releases of a lock a traced task waits on, a
 * ring written by the releasing holders and read by each waiter at its
 * end (lock.bpf.c, "Holders at release").  SEQ of an entry is 1 + its
 * number in the ring's SEQ order, or 0 while a holder writes it.
 */
struct lock_release {
	__u64 ts;		/* when the holder released */
	__u64 since;		/* the lock's contended release before (0: none seen) */
	__u32 row;		/* 1 + the holder's row; 0: the table was full */
	__u32 key;		/* the holder's thread id */
	__u32 seq;
	__u32 pad;
};

struct lock_releases {
	__u64 born;		/* when the entry was made: a wait older than it lost its ring */
	__u64 last;		/* the last release's ts */
	__u64 acq_ts;		/* the last contended acquisition (any task's) */
	__u32 seq;		/* releases written so far */
	__u32 acq_pid;		/* --hold: who made it (0: taken by a hold since) */
	__u32 flags;		/* --hold: the lock's type, from the waits on it */
	__u32 pad;
	struct lock_release r[LOCK_RELEASES];
};

/*
 * The wait-time histogram per lock type, kept by the end program only
 * when asked (lock.bpf.c's wait_hist; `frugal lock serve`): one entry per
 * lock type (its LCB_F_* flags, 6 bits, named by lock_type_name()), twice
 * (the second copy of --nested writes the second half, so that neither
 * add is atomic and none is lost), per CPU.  Bucket B counts the waits of
 * at most 2^B ns, for B < LOCK_HIST_BUCKETS - 1 (1 ns to 2^30 ns, 1.07 s);
 * the last bucket counts the longer ones (+Inf).  Buckets by powers of
 * two cost a few shifts; 32 of them span every wait a lock is expected
 * to see, and a reader merges neighbours for a coarser view.  Each end
 * adds one to one bucket and its wait to SUM_NS, so the buckets' sum is
 * the number of ends that were contentions (those of AGGR_HIT, OVERFLOW
 * and LOST_RING in the accounting below), exactly.
 */
#define LOCK_HIST_TYPES		64	/* LCB_F_MASK + 1 */
#define LOCK_HIST_BUCKETS	32

struct lock_hist {
	__u64 sum_ns;
	__u64 count[LOCK_HIST_BUCKETS];
};

/* The bucket of a wait of NS: the smallest B with NS <= 2^B, at most the last. */
static inline __u32 lock_hist_bucket(__u64 ns)
{
	__u64 v = ns - 1;
	__u32 b = 0, shift;

	if (ns <= 1)
		return 0;
	/* floor(log2(ns - 1)) + 1, in five halvings */
	shift = (v > 0xffffffffULL) << 5;
	v >>= shift;
	b |= shift;
	shift = (v > 0xffff) << 4;
	v >>= shift;
	b |= shift;
	shift = (v > 0xff) << 3;
	v >>= shift;
	b |= shift;
	shift = (v > 0xf) << 2;
	v >>= shift;
	b |= shift;
	shift = (v > 0x3) << 1;
	v >>= shift;
	b |= shift;
	b |= v >> 1;
	b += 1;
	return b < LOCK_HIST_BUCKETS - 1 ? b : LOCK_HIST_BUCKETS - 1;
}

/*
 * Which stack a target is selected by (the `targets` map's key).
 */
enum lock_target {
	LOCK_TARGET_ALL,
	LOCK_TARGET_TGID,
	LOCK_TARGET_TID,
};

/*
 * The per-CPU state of the programs, one lookup per run: the marks that
 * the first program of each pair is running (so that the second handles
 * only the runs the kernel skips for the first: see lock.bpf.c), and the
 * slot stack of spinning waits.
 */
struct lock_slot {
	__u64 ts;		/* when the wait began */
	__u64 lock;
	__u64 sp;		/* where: the tracepoint's arguments on the stack */
	__u64 key;
	__u32 row;		/* 1 + index in `rows`; 0: the table was full, the end sends a wait */
	__u32 flags;		/* LCB_F_* | LOCK_F_* | LOCK_SLOT_* */
};

#define LOCK_SLOT_FILTERED	(1U << 24)	/* -Y/-L/-S said no at the begin */
#define LOCK_SLOT_HOLD		(1U << 25)	/* --hold: the wait is not a row, its end an acquisition */
#define LOCK_SLOT_LOST		(1U << 26)	/* the definition was lost: so is the wait */
#define LOCK_SLOT_MASK		(LOCK_SLOT_FILTERED | LOCK_SLOT_LOST | LOCK_SLOT_HOLD)

struct lock_cpu_state {
	__u32 running[2];		/* the first program of the begin / end pair runs */
	__u32 depth, pad;
	__u64 addr[2];			/* the begin's pointer-to-number cell, per copy */
	__u64 active[2];		/* --nested: this CPU's recursion counter of the
					 * first begin / end program; 0: unknown */
	struct lock_slot s[LOCK_CPU_DEPTH];
};

/*
 * Accounting, one per-CPU array entry each (user space sums the CPUs).
 * Every end of a traced task lands in exactly one of AGGR_HIT, OVERFLOW,
 * LOST_RING, FILTERED and UNMATCHED, and their sum is the completed count.
 * User space computes ENDS, and AGGR_HIT as the sum of the kernel rows'
 * counts less SHARES, so that an end adding to a row counts nothing else.
 * The report's rows sum to AGGR_HIT + SHARES + the wait records merged
 * from the buffers (SHARES: -o at release, a wait behind several holders
 * counts once in each one's row).
 */
enum lock_counter {
	LC_BEGINS,		/* contention_begin events of traced tasks */
	LC_REBEGINS,		/* a begin for the lock already waited on: kept the first */
	LC_DROP_TASK,		/* begin not recorded: no per-task slot (storage busy/failed) */
	LC_DROP_NEST,		/* begin not recorded: nesting deeper than the slot stack */
	LC_ENDS,		/* contention_end events of traced tasks (computed) */
	LC_UNMATCHED,		/* an end with no recorded begin */
	LC_STALE,		/* recorded begins whose end never came, discarded */
	LC_FILTERED,		/* completed, removed by -Y/-L/-S */
	LC_AGGR_HIT,		/* an end added to a kernel row (computed) */
	LC_AGGR_NEW,		/* a begin created a kernel row */
	LC_OVERFLOW,		/* an end sent to the buffers (table full) */
	LC_LOST_RING,		/* the CPU's buffer was full: lost, and counted */
	LC_STACK_FAIL,		/* no stack could be read: kept as an empty stack */
	LC_TIME_FAIL,		/* clock went backwards: kept with a wait of 0 */
	LC_DATA_FAIL,		/* table insert failed for a reason other than full */
	LC_STACK_WALKED,	/* stack walked with learned frame sizes */
	LC_STACK_UNWOUND,	/* stack unwound by the kernel (and learned from) */
	LC_STACK_MISMATCH,	/* --stack-check: a walked stack differed from the unwind */
	LC_NESTED_BEGIN,	/* begins the kernel skipped for the first program, taken by the second */
	LC_NESTED_END,		/* the same for ends */
	LC_DEFS,		/* key definitions sent to the buffers */
	/* -o at release (lock:contended_release) */
	LC_RELEASES,		/* contended releases of traced waits' locks, recorded */
	LC_SHARES,		/* a wait's shares beyond its first, added to holders' rows */
	LC_REL_SEEN,		/* waits charged to the holders that released during them */
	LC_REL_NONE,		/* waits no contended release ended: owner at begin */
	LC_REL_LOST,		/* waits whose releases were not all kept: the rest at begin */
	/* --hold (lock:contended_release) */
	LC_HOLD_WAITS,		/* ends of traced waits, not rows: --hold reports holds */
	LC_HOLD_ACQ,		/* ... of those, acquisitions (the lock taken) */
	LC_HOLDS,		/* holds in the kernel's rows (computed: their counts) */
	LC_HOLD_SENT,		/* holds sent to the buffers (table full) */
	LC_HOLD_LOST,		/* holds the buffers had no room for */
	LC_HOLD_NO_ACQ,		/* a traced task's contended release, its acquisition not seen */
	LC_NR,
};

/*
 * -U: user-space lock waits, timed from a futex wait's syscall entry to its
 * return (futex.bpf.c).  The entry sends the waiter's user registers and a
 * bounded copy of its user stack, to be unwound in user space with each
 * mapping's DWARF CFI; the return sends the end.  Both go through one perf
 * buffer a CPU, joined by SEQ (the CPU in the top bits: no shared counter).
 */
#define LOCK_F_USER		(1U << 18)	/* a user-space row (-U) */
#define LOCK_UTYPE_SHIFT	20		/* enum lock_utype, in a user row's flags */
#define LOCK_UTYPE_MASK		(7U << LOCK_UTYPE_SHIFT)
#define LOCK_UTYPE_BIT		56		/* -Y's mask: bit 56 + enum lock_utype */

enum lock_utype {
	LOCK_U_FUTEX,		/* a futex wait not told apart */
	LOCK_U_FUTEX_PI,	/* FUTEX_LOCK_PI, WAIT_REQUEUE_PI */
	LOCK_U_MUTEX,		/* pthread_mutex_*lock */
	LOCK_U_RWLOCK_R,
	LOCK_U_RWLOCK_W,
	LOCK_U_COND,		/* pthread_cond_*wait */
	LOCK_U_SEM,		/* sem_*wait */
	LOCK_U_BARRIER,		/* pthread_barrier_wait */
	LOCK_U_NR,
};

#define LOCK_USTACK_MAX		16384	/* --user-stack-size's limit, bytes */
#define LOCK_USTACK_DEF		8192	/* perf's default dump size */
#define LOCK_UREGS		17	/* x86-64 DWARF registers 0-16 (rip is 16) */
#define LOCK_UWAIT_SLOTS	16384	/* threads in a futex wait at once */

enum lock_urec_kind {
	LOCK_REC_UBEGIN = 3,
	LOCK_REC_UEND,
	LOCK_REC_UPROC,		/* a process (or an exec) waits for the first time */
};

/*
 * A process's first wait, through a buffer that wakes the reader at once:
 * its mappings are read while it surely lives, even if it exits before
 * the begin records' buffer is half full.
 */
struct lock_urec_proc {
	__u32 kind;
	__u32 tgid;
	__u64 mm;
};

/* A wait began: who, where, and what to unwind. */
struct lock_urec_begin {
	__u32 kind;
	__u32 op;		/* futex op (FUTEX_CMD_MASK applied); 0x100+: futex_wait(v) */
	__u64 seq;
	__u64 uaddr;		/* the futex word */
	__u32 tid, tgid;
	__u64 cgroup;
	__u64 mm;		/* the address space: a new one after exec */
	char comm[LOCK_COMM_LEN];
	__u64 regs[LOCK_UREGS];	/* DWARF order: rax rdx rcx rbx rsi rdi rbp rsp r8-r15 rip */
	__u32 stack_size;	/* bytes of STACK copied from regs[7] up; 0: none */
	__u32 pad;
	__u8 stack[LOCK_USTACK_MAX];
};

/* The wait ended after NS. */
struct lock_urec_end {
	__u32 kind;
	__u32 tid;
	__u64 seq;
	__u64 ns;
};

/*
 * -U's accounting (futex.bpf.c, per CPU).  Every recorded wait that ends is
 * sent (UL_SENT), or its begin or end record was lost (UL_LOST_BEGIN counts
 * the begin, UL_ENDS_NO_BEGIN its end; UL_LOST_END the end).
 */
enum lock_ucounter {
	UL_WAITS,		/* futex wait entries of traced tasks */
	UL_DROP_TASK,		/* not recorded: no slot (LOCK_UWAIT_SLOTS in waits) */
	UL_LOST_BEGIN,		/* the begin record did not fit in the buffer */
	UL_STACK_FAIL,		/* no user stack could be copied: registers only */
	UL_ENDS,		/* recorded waits that returned */
	UL_SENT,		/* ... whose end was sent */
	UL_ENDS_NO_BEGIN,	/* ... whose begin record had been lost */
	UL_LOST_END,		/* ... whose end record did not fit */
	UL_NR,
};

#endif
