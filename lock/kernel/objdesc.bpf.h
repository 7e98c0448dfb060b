/* SPDX-License-Identifier: GPL-2.0 */
/*
 * -l: what holds a lock, for lock.bpf.c's new_row(): once per row, at its
 * first contention, while the object is surely alive (its lock is being
 * taken).  Included by lock.bpf.c only.
 *
 * The object's kind is not guessed from its address.  The loader's probe
 * table (from the kernel's BTF) says where each kind keeps a lock of which
 * type; a candidate object is the lock's address less that offset, and it
 * is taken only if it passes its kind's check: pointers that a live object
 * of the kind has and memory that merely looks alike has not (a file's
 * inode is its dentry's inode; an inode's mapping is its own i_data; a
 * socket's struct socket points back at it; a run queue's CFS queue points
 * back at it; a zone lies inside its node's zone array; a thread group's
 * leader leads itself; a cgroup's own state and directory point back at
 * it; a memory cgroup's node info is the one its memory cgroup lists for
 * its node; a dentry, its parent, its inode and its super block's root
 * share one super block; a descriptor table is the waiter's own).  Every
 * read is a probe read, which fails softly on memory that is not there.
 */
#ifndef FRUGAL_LOCK_OBJDESC_BPF_H
#define FRUGAL_LOCK_OBJDESC_BPF_H

const volatile bool obj_describe;
const volatile struct lock_obj_probe obj_probes[LOCK_OBJ_PROBES];
const volatile struct lock_obj_facts obj_facts;

#define OF(m)	(obj_facts.m)

static __always_inline __u32 read_u32(__u64 base, __u32 off)
{
	__u32 v = 0;

	bpf_probe_read_kernel(&v, sizeof(v), (void *)(base + off));
	return v;
}

static __always_inline __u16 read_u16(__u64 base, __u32 off)
{
	__u16 v = 0;

	bpf_probe_read_kernel(&v, sizeof(v), (void *)(base + off));
	return v;
}

/* Is O a struct file?  Its inode is the inode of its path's dentry. */
static __always_inline bool is_file(__u64 o)
{
	__u64 ino = read_ptr(o, OF(file_inode));

	return ino && ino == read_ptr(read_ptr(o, OF(file_path) + OF(path_dentry)),
				     OF(dentry_inode));
}

/* Is O a struct inode?  Its mapping is its own page cache (i_data). */
static __always_inline bool is_inode(__u64 o)
{
	return read_ptr(o, OF(inode_mapping)) == o + OF(inode_data) && read_ptr(o, OF(inode_sb));
}

/* Is O a struct mm_struct?  Its owner task's mm is it (CONFIG_MEMCG). */
static __always_inline bool is_mm(__u64 o)
{
	__u64 t;

	if (!OF(has_mm_owner))
		return false;
	t = read_ptr(o, OF(mm_owner));
	return t && read_ptr(t, OF(task_mm)) == o;
}

/* Is O a struct task_struct?  Its group leader leads itself, of its tgid. */
static __always_inline bool is_task(__u64 o)
{
	__u64 l = read_ptr(o, OF(task_leader));

	return l && read_ptr(l, OF(task_leader)) == l && read_u32(o, OF(task_pid)) &&
	       read_u32(l, OF(task_tgid)) == read_u32(o, OF(task_tgid));
}

/* Is O a struct sock?  Its struct socket points back at it. */
static __always_inline bool is_sock(__u64 o)
{
	__u64 s = read_ptr(o, OF(sock_socket));

	return s && read_ptr(s, OF(socket_sk)) == o;
}

/* Is O a struct rq?  Its CFS queue's rq is it (CONFIG_FAIR_GROUP_SCHED). */
static __always_inline bool is_rq(__u64 o)
{
	return read_ptr(o, OF(rq_cfs_rq)) == o;
}

/* Is O a struct super_block?  Its root dentry's super block is it. */
static __always_inline bool is_sb(__u64 o)
{
	__u64 r = read_ptr(o, OF(sb_root));

	return r && read_ptr(r, OF(dentry_sb)) == o;
}

/* Is O a struct zone?  It is one of its node's node_zones[]. */
static __always_inline bool is_zone(__u64 o)
{
	__u64 p = read_ptr(o, OF(zone_pgdat)), z;

	if (!p || !OF(zone_size))
		return false;
	z = p + OF(pgdat_zones);
	return o >= z && o < z + (__u64)OF(zone_size) * OF(pgdat_nzones) &&
	       (o - z) % OF(zone_size) == 0;
}

/* Is O a struct cgroup?  Its own state's (self) cgroup is it, and so is
 * its directory's (kernfs node's) private data. */
static __always_inline bool is_cgroup(__u64 o)
{
	return read_ptr(o, OF(cgroup_self) + OF(css_cgroup)) == o &&
	       read_ptr(read_ptr(o, OF(cgroup_kn)), OF(kn_priv)) == o;
}

/* Is O a struct mem_cgroup_per_node?  Its memory cgroup's nodeinfo[] has
 * it at its LRU's node. */
#define OBJ_MAX_NODES	1024
static __always_inline bool is_memcg_node(__u64 o)
{
	__u64 m = read_ptr(o, OF(mz_memcg));
	__u32 nid = read_u32(read_ptr(o, OF(mz_lruvec_pgdat)), OF(pgdat_node_id));

	return m && nid < OBJ_MAX_NODES && read_ptr(m, OF(memcg_nodeinfo) + nid * 8) == o;
}

/* Is O a struct dentry?  Its super block's root, its parent and its inode
 * (none if negative) are all of its super block. */
static __always_inline bool is_dentry(__u64 o)
{
	__u64 sb = read_ptr(o, OF(dentry_sb)), i = read_ptr(o, OF(dentry_inode));

	return sb && is_sb(sb) && read_ptr(read_ptr(o, OF(dentry_parent)), OF(dentry_sb)) == sb &&
	       (!i || read_ptr(i, OF(inode_sb)) == sb);
}

/* Is O the waiter's own struct files_struct (its descriptor table)?  Only
 * the tasks sharing a table take its lock, to open and close descriptors. */
static __always_inline bool is_files(__u64 o)
{
	return read_ptr(bpf_get_current_task(), OF(task_files)) == o;
}

/*
 * Is O a pipe the waiter has open?  Among its first descriptors, a file
 * whose private_data is O and whose inode's i_pipe is O.  That file, for
 * put_pipe().  Global, as lock_obj_is() (below).
 */
#define PIPE_FDS	64
struct fd_scan {
	__u64 fd, o, found;
	__u32 max;
};

/* bpf_loop body: is descriptor I the pipe's file? */
static long fd_is_pipe(__u32 i, struct fd_scan *c)
{
	__u64 f;

	if (i >= c->max)
		return 1;
	f = read_ptr(c->fd, i * 8);
	if (f && read_ptr(f, OF(file_private)) == c->o &&
	    read_ptr(read_ptr(f, OF(file_inode)), OF(inode_pipe)) == c->o) {
		c->found = f;
		return 1;
	}
	return 0;
}

__attribute__((noinline)) __u64 lock_obj_pipe_file(__u64 o)
{
	__u64 fdt = read_ptr(read_ptr(bpf_get_current_task(), OF(task_files)), OF(files_fdt));
	struct fd_scan c = { .fd = read_ptr(fdt, OF(fdt_fd)), .o = o,
			     .max = read_u32(fdt, OF(fdt_max_fds)) };

	bpf_loop(PIPE_FDS, fd_is_pipe, &c, 0);
	return c.found;
}

/*
 * A global function, so that the verifier checks it once, on its own,
 * rather than inside each turn of describe()'s loop over the probes (the
 * pipe's scan of descriptors would multiply its work by the probes').
 */
__attribute__((noinline)) int lock_obj_is(__u32 kind, __u64 o)
{
	switch (kind) {
	case LOCK_OBJ_FILE:	return is_file(o);
	case LOCK_OBJ_INODE:	return is_inode(o);
	case LOCK_OBJ_MM:	return is_mm(o);
	case LOCK_OBJ_TASK:	return is_task(o);
	case LOCK_OBJ_SOCK:	return is_sock(o);
	case LOCK_OBJ_RQ:	return is_rq(o);
	case LOCK_OBJ_ZONE:	return is_zone(o);
	case LOCK_OBJ_PIPE:	return lock_obj_pipe_file(o) != 0;
	case LOCK_OBJ_SB:	return is_sb(o);
	case LOCK_OBJ_CGROUP:	return is_cgroup(o);
	case LOCK_OBJ_MEMCG_NODE: return is_memcg_node(o);
	case LOCK_OBJ_DENTRY:	return is_dentry(o);
	case LOCK_OBJ_FILES:	return is_files(o);
	}
	return false;
}

/* NAME into the next component of O (cut if longer than fits, and
 * marked); false when O is full. */
static __always_inline bool put_part(struct lock_obj *o, __u64 name)
{
	__u32 n = o->parts;
	char c = 0;

	if (n >= LOCK_OBJ_PARTS) {
		o->flags |= LOCK_OBJ_F_MORE;
		return false;
	}
	if (bpf_probe_read_kernel_str(o->part[n & (LOCK_OBJ_PARTS - 1)], LOCK_OBJ_PART,
				      (void *)name) == LOCK_OBJ_PART &&
	    !bpf_probe_read_kernel(&c, 1, (void *)(name + LOCK_OBJ_PART - 1)) && c)
		o->cut |= 1 << (n & (LOCK_OBJ_PARTS - 1));
	o->parts = n + 1;
	return true;
}

static __always_inline __u64 dentry_name(__u64 dentry)
{
	return read_ptr(dentry, OF(dentry_name) + OF(qstr_name));
}

/*
 * The path of DENTRY, leaf first, up to its filesystem's root or, with a
 * mount MNT (a struct vfsmount), across mounts to the root of the mount
 * tree, as the kernel's d_path() walks it.  The components past
 * LOCK_OBJ_PARTS are left out (LOCK_OBJ_F_MORE).
 */
struct path_walk {
	struct lock_obj *o;
	__u64 dentry, mnt, m;	/* the dentry, its mount (vfsmount, struct mount) */
};

/* bpf_loop body: one step of put_path(); 1 when the walk ends. */
static long path_step(__u32 i, struct path_walk *w)
{
	struct lock_obj *o = w->o;
	__u64 up;

	(void)i;
	if (!w->dentry)
		return 1;
	if (w->m && w->dentry == read_ptr(w->mnt, OF(vfsmount_root))) {
		up = read_ptr(w->m, OF(mount_parent));
		if (!up || up == w->m) {
			o->flags |= LOCK_OBJ_F_ROOT;
			return 1;
		}
		w->dentry = read_ptr(w->m, OF(mount_mountpoint));
		w->m = up;
		w->mnt = up + OF(mount_mnt);
		return 0;
	}
	up = read_ptr(w->dentry, OF(dentry_parent));
	if (!up || up == w->dentry) {
		/* a dentry of no tree (a pipe's, a memfd's): its own name */
		if (!o->parts && put_part(o, dentry_name(w->dentry)))
			o->flags |= LOCK_OBJ_F_PSEUDO;
		o->flags |= LOCK_OBJ_F_ROOT;
		return 1;
	}
	if (!put_part(o, dentry_name(w->dentry)))
		return 1;
	w->dentry = up;
	return 0;
}

static __always_inline void put_path(struct lock_obj *o, __u64 dentry, __u64 mnt)
{
	struct path_walk w = { .o = o, .dentry = dentry, .mnt = mnt,
			       .m = mnt ? mnt - OF(mount_mnt) : 0 };

	bpf_loop(2 * LOCK_OBJ_PARTS + 2, path_step, &w, 0);
}

/*
 * A cgroup's path in its hierarchy, leaf first: its kernfs node's name and
 * its parents' up to the hierarchy's root (no name of its own).
 */
struct kn_walk {
	struct lock_obj *o;
	__u64 kn;
};

/* bpf_loop body: one step of put_cgroup(); 1 when the walk ends. */
static long kn_step(__u32 i, struct kn_walk *w)
{
	__u64 up = read_ptr(w->kn, OF(kn_parent));

	(void)i;
	if (!w->kn)
		return 1;
	if (!up) {
		w->o->flags |= LOCK_OBJ_F_ROOT;
		return 1;
	}
	if (!put_part(w->o, read_ptr(w->kn, OF(kn_name))))
		return 1;
	w->kn = up;
	return 0;
}

static __always_inline void put_cgroup(struct lock_obj *o, __u64 cgroup)
{
	struct kn_walk w = { .o = o, .kn = read_ptr(cgroup, OF(cgroup_kn)) };

	bpf_loop(LOCK_OBJ_PARTS + 1, kn_step, &w, 0);
}

/* A super block's filesystem type and device name. */
static __always_inline void put_sb(struct lock_obj *o, __u64 sb)
{
	bpf_probe_read_kernel_str(o->name, sizeof(o->name),
				  (void *)read_ptr(read_ptr(sb, OF(sb_type)), OF(fstype_name)));
	bpf_probe_read_kernel_str(o->dev, sizeof(o->dev), (void *)(sb + OF(sb_id)));
}

/* An inode's number, filesystem type and device name. */
static __always_inline void put_inode(struct lock_obj *o, __u64 inode)
{
	o->num = read_ptr(inode, OF(inode_ino));
	put_sb(o, read_ptr(inode, OF(inode_sb)));
}

/* A task's process: its tgid and its group leader's comm. */
static __always_inline void put_process(struct lock_obj *o, __u64 task)
{
	__u64 l = read_ptr(task, OF(task_leader));

	o->id = read_u32(task, OF(task_tgid));
	bpf_probe_read_kernel(o->name, sizeof(o->name), (void *)((l ? l : task) + OF(task_comm)));
}

static __always_inline void put_sock(struct lock_obj *o, __u64 sk)
{
	o->id = read_u16(sk, OF(sock_family));
	o->num = (__u64)read_u16(sk, OF(sock_protocol)) << 16 | read_u16(sk, OF(sock_type));
	o->port[0] = read_u16(sk, OF(sock_num));
	o->port[1] = read_u16(sk, OF(sock_dport));
	if (o->id == 10 /* AF_INET6 */ && OF(has_sock_v6)) {
		bpf_probe_read_kernel(&o->addr[0], 16, (void *)(sk + OF(sock_v6_saddr)));
		bpf_probe_read_kernel(&o->addr[4], 16, (void *)(sk + OF(sock_v6_daddr)));
	} else {
		o->addr[0] = read_u32(sk, OF(sock_saddr));
		o->addr[4] = read_u32(sk, OF(sock_daddr));
	}
}

/*
 * A pipe: its inode's number, the waiter's process and end, and the
 * process holding the pipe's mutex now (the owner word, flags masked), if
 * any: of two processes on one pipe, the other end.
 */
static __always_inline void put_pipe(struct lock_obj *o, __u64 pipe)
{
	__u64 f = lock_obj_pipe_file(pipe), l;
	__u64 t = read_ptr(pipe, OF(pipe_mutex) + OF(mutex_owner)) & ~7ULL;

	o->num = read_ptr(read_ptr(f, OF(file_inode)), OF(inode_ino));
	o->addr[1] = read_u32(f, OF(file_mode)) & 3;
	put_process(o, bpf_get_current_task());
	if (!t)
		return;
	l = read_ptr(t, OF(task_leader));
	o->addr[0] = read_u32(t, OF(task_tgid));
	bpf_probe_read_kernel(o->dev, LOCK_COMM_LEN, (void *)((l ? l : t) + OF(task_comm)));
}

/* Fill O for object OBJ of kind KIND. */
static __always_inline void put_object(struct lock_obj *o, __u32 kind, __u64 obj)
{
	__u64 p;

	switch (kind) {
	case LOCK_OBJ_FILE:
		p = obj + OF(file_path);
		put_inode(o, read_ptr(obj, OF(file_inode)));
		put_path(o, read_ptr(p, OF(path_dentry)), read_ptr(p, OF(path_mnt)));
		break;
	case LOCK_OBJ_INODE:
		put_inode(o, obj);
		/* i_dentry's first alias: a name, within its filesystem */
		p = read_ptr(obj, OF(inode_dentry));
		if (p)
			put_path(o, p - OF(dentry_alias), 0);
		break;
	case LOCK_OBJ_MM:
		/* the waiter's own mm (it faults or maps): its process; else the owner */
		p = bpf_get_current_task();
		put_process(o, read_ptr(p, OF(task_mm)) == obj ? p : read_ptr(obj, OF(mm_owner)));
		break;
	case LOCK_OBJ_TASK:
		o->id = read_u32(obj, OF(task_pid));
		bpf_probe_read_kernel(o->name, sizeof(o->name), (void *)(obj + OF(task_comm)));
		break;
	case LOCK_OBJ_SOCK:
		put_sock(o, obj);
		break;
	case LOCK_OBJ_RQ:
		o->id = read_u32(obj, OF(rq_cpu));
		break;
	case LOCK_OBJ_ZONE:
		o->id = read_u32(read_ptr(obj, OF(zone_pgdat)), OF(pgdat_node_id));
		bpf_probe_read_kernel_str(o->name, sizeof(o->name),
					  (void *)read_ptr(obj, OF(zone_name)));
		break;
	case LOCK_OBJ_PIPE:
		put_pipe(o, obj);
		break;
	case LOCK_OBJ_SB:
		put_sb(o, obj);
		break;
	case LOCK_OBJ_CGROUP:
		put_cgroup(o, obj);
		break;
	case LOCK_OBJ_MEMCG_NODE:
		o->id = read_u32(read_ptr(obj, OF(mz_lruvec_pgdat)), OF(pgdat_node_id));
		put_cgroup(o, read_ptr(read_ptr(obj, OF(mz_memcg)), OF(memcg_css) + OF(css_cgroup)));
		break;
	case LOCK_OBJ_DENTRY:
		/* within its filesystem: a dentry may be mounted at several places */
		o->num = read_ptr(read_ptr(obj, OF(dentry_inode)), OF(inode_ino));
		put_sb(o, read_ptr(obj, OF(dentry_sb)));
		put_path(o, obj, 0);
		break;
	case LOCK_OBJ_FILES:
		put_process(o, bpf_get_current_task());
		break;
	}
}

/*
 * -l: what holds LOCK, a lock of contention FLAGS, into O: the first probe
 * whose kind keeps a lock of this type there and whose check the object
 * passes.  A current task's mmap_lock (LOCK_F_MMAP_LOCK) is its mm's,
 * checked already.
 */
struct probe_walk {
	__u64 lock, obj;
	__u32 cls, flags, kind, i;
};

/* bpf_loop body: does probe I find the object?  1 when one did, or at the end. */
static long probe_one(__u32 i, struct probe_walk *p)
{
	__u32 k, off;

	if (i >= LOCK_OBJ_PROBES)
		return 1;
	k = obj_probes[i].kind;
	off = obj_probes[i].off;
	if (!k)
		return 1;
	if (!(obj_probes[i].classes & p->cls) || p->lock < off)
		return 0;
	if ((k == LOCK_OBJ_MM && (p->flags & LOCK_F_MMAP_LOCK)) || lock_obj_is(k, p->lock - off)) {
		p->kind = k;
		p->i = i;
		p->obj = p->lock - off;
		return 1;
	}
	return 0;
}

static __always_inline void describe(__u64 lock, __u32 flags, struct lock_obj *o)
{
	struct probe_walk p = { .lock = lock, .cls = lock_class_of(flags), .flags = flags };

	__builtin_memset(o, 0, sizeof(*o));
	if (!obj_describe || (flags & LOCK_F_SIGLOCK))
		return;
	bpf_loop(LOCK_OBJ_PROBES, probe_one, &p, 0);
	if (!p.kind)
		return;
	o->kind = p.kind;
	o->probe = p.i;
	put_object(o, p.kind, p.obj);
}

#undef OF
#endif
