// SPDX-License-Identifier: GPL-2.0
/*
 * -l: what holds a lock.  See kernel.h and kernel_int.h, and
 * objdesc.bpf.h for the program's half (the checks each kind's object
 * must pass).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "lock/kernel/kernel.h"
#include "lock/kernel/kernel_int.h"

#define BTF_KIND_STRUCT	4

/* The BTF facts: one member of one struct each (anonymous members followed). */
enum {
	Q_FILE_POS_LOCK, Q_FILE_LOCK, Q_FILE_INODE, Q_FILE_PATH, Q_PATH_DENTRY, Q_PATH_MNT,
	Q_DENTRY_NAME, Q_QSTR_NAME, Q_DENTRY_PARENT, Q_DENTRY_INODE, Q_DENTRY_U,
	Q_MOUNT_MNT, Q_MOUNT_PARENT, Q_MOUNT_MOUNTPOINT, Q_VFSMOUNT_ROOT,
	Q_INODE_RWSEM, Q_INODE_LOCK, Q_INODE_INO, Q_INODE_SB, Q_INODE_MAPPING, Q_INODE_DATA,
	Q_INODE_DENTRY, Q_AS_MMAP_RWSEM, Q_SB_ID, Q_SB_TYPE, Q_FSTYPE_NAME,
	Q_MM_MMAP_LOCK, Q_MM_OWNER, Q_TASK_MM, Q_TASK_LEADER, Q_TASK_PID, Q_TASK_TGID,
	Q_TASK_COMM, Q_TASK_PI_LOCK, Q_TASK_ALLOC_LOCK,
	Q_SOCK_COMMON, Q_SOCK_LOCK, Q_SOCK_SOCKET, Q_SOCK_PROTOCOL, Q_SOCK_TYPE, Q_SOCKET_SK,
	Q_SKC_FAMILY, Q_SKC_SADDR, Q_SKC_DADDR, Q_SKC_V6_SADDR, Q_SKC_V6_DADDR, Q_SKC_NUM,
	Q_SKC_DPORT,
	Q_RQ_LOCK, Q_RQ_CPU, Q_RQ_CFS, Q_CFS_RQ_RQ,
	Q_ZONE, Q_ZONE_LOCK, Q_ZONE_PGDAT, Q_ZONE_NAME, Q_PGDAT_ZONES, Q_PGDAT_NODE_ID,
	Q_MUTEX_WAIT_LOCK, Q_RWSEM_WAIT_LOCK,
	Q_TASK_FILES, Q_FILES_FDT, Q_FDT_FD, Q_FDT_MAX_FDS, Q_FILE_PRIVATE, Q_FILE_MODE,
	Q_INODE_PIPE, Q_PIPE_MUTEX, Q_MUTEX_OWNER, Q_PIPE_RD_WAIT, Q_PIPE_WR_WAIT, Q_WQ_LOCK,
	Q_SB_UMOUNT, Q_SB_INODE_LIST_LOCK, Q_SB_ROOT, Q_DENTRY_SB,
	Q_CGROUP_PIDLIST_MUTEX, Q_CGROUP_SELF, Q_CGROUP_KN, Q_CSS_CGROUP, Q_KN_NAME,
	Q_KN_PARENT, Q_KN_PARENT_615, Q_KN_PRIV, Q_DENTRY_ALIAS, Q_SOCK_SLOCK,
	Q_MZ_MEMCG, Q_MZ_LRUVEC, Q_LRUVEC_LOCK, Q_LRUVEC_PGDAT, Q_MEMCG_CSS, Q_MEMCG_NODEINFO,
	Q_DENTRY_LOCKREF, Q_LOCKREF_LOCK, Q_FILES_LOCK,
	Q_NR
};

#define M(s, m)	{ .name = s, .member = m }
static const struct kbtf_query queries[Q_NR] = {
	[Q_FILE_POS_LOCK] = M("file", "f_pos_lock"),	[Q_FILE_LOCK] = M("file", "f_lock"),
	[Q_FILE_INODE] = M("file", "f_inode"),		[Q_FILE_PATH] = M("file", "f_path"),
	[Q_PATH_DENTRY] = M("path", "dentry"),		[Q_PATH_MNT] = M("path", "mnt"),
	[Q_DENTRY_NAME] = M("dentry", "d_name"),	[Q_QSTR_NAME] = M("qstr", "name"),
	[Q_DENTRY_PARENT] = M("dentry", "d_parent"),	[Q_DENTRY_INODE] = M("dentry", "d_inode"),
	[Q_DENTRY_U] = M("dentry", "d_u"),		[Q_MOUNT_MNT] = M("mount", "mnt"),
	[Q_MOUNT_PARENT] = M("mount", "mnt_parent"),
	[Q_MOUNT_MOUNTPOINT] = M("mount", "mnt_mountpoint"),
	[Q_VFSMOUNT_ROOT] = M("vfsmount", "mnt_root"),
	[Q_INODE_RWSEM] = M("inode", "i_rwsem"),	[Q_INODE_LOCK] = M("inode", "i_lock"),
	[Q_INODE_INO] = M("inode", "i_ino"),		[Q_INODE_SB] = M("inode", "i_sb"),
	[Q_INODE_MAPPING] = M("inode", "i_mapping"),	[Q_INODE_DATA] = M("inode", "i_data"),
	[Q_INODE_DENTRY] = M("inode", "i_dentry"),
	[Q_AS_MMAP_RWSEM] = M("address_space", "i_mmap_rwsem"),
	[Q_SB_ID] = M("super_block", "s_id"),		[Q_SB_TYPE] = M("super_block", "s_type"),
	[Q_FSTYPE_NAME] = M("file_system_type", "name"),
	[Q_MM_MMAP_LOCK] = M("mm_struct", "mmap_lock"),	[Q_MM_OWNER] = M("mm_struct", "owner"),
	[Q_TASK_MM] = M("task_struct", "mm"),		[Q_TASK_LEADER] = M("task_struct", "group_leader"),
	[Q_TASK_PID] = M("task_struct", "pid"),		[Q_TASK_TGID] = M("task_struct", "tgid"),
	[Q_TASK_COMM] = M("task_struct", "comm"),	[Q_TASK_PI_LOCK] = M("task_struct", "pi_lock"),
	[Q_TASK_ALLOC_LOCK] = M("task_struct", "alloc_lock"),
	[Q_SOCK_COMMON] = M("sock", "__sk_common"),	[Q_SOCK_LOCK] = M("sock", "sk_lock"),
	[Q_SOCK_SOCKET] = M("sock", "sk_socket"),	[Q_SOCK_PROTOCOL] = M("sock", "sk_protocol"),
	[Q_SOCK_TYPE] = M("sock", "sk_type"),		[Q_SOCKET_SK] = M("socket", "sk"),
	[Q_SKC_FAMILY] = M("sock_common", "skc_family"),
	[Q_SKC_SADDR] = M("sock_common", "skc_rcv_saddr"),
	[Q_SKC_DADDR] = M("sock_common", "skc_daddr"),
	[Q_SKC_V6_SADDR] = M("sock_common", "skc_v6_rcv_saddr"),
	[Q_SKC_V6_DADDR] = M("sock_common", "skc_v6_daddr"),
	[Q_SKC_NUM] = M("sock_common", "skc_num"),	[Q_SKC_DPORT] = M("sock_common", "skc_dport"),
	[Q_RQ_LOCK] = M("rq", "__lock"),		[Q_RQ_CPU] = M("rq", "cpu"),
	[Q_RQ_CFS] = M("rq", "cfs"),			[Q_CFS_RQ_RQ] = M("cfs_rq", "rq"),
	[Q_ZONE] = { .name = "zone", .kind = BTF_KIND_STRUCT },
	[Q_ZONE_LOCK] = M("zone", "lock"),		[Q_ZONE_PGDAT] = M("zone", "zone_pgdat"),
	[Q_ZONE_NAME] = M("zone", "name"),		[Q_PGDAT_ZONES] = M("pglist_data", "node_zones"),
	[Q_PGDAT_NODE_ID] = M("pglist_data", "node_id"),
	[Q_MUTEX_WAIT_LOCK] = M("mutex", "wait_lock"),
	[Q_RWSEM_WAIT_LOCK] = M("rw_semaphore", "wait_lock"),
	[Q_TASK_FILES] = M("task_struct", "files"),	[Q_FILES_FDT] = M("files_struct", "fdt"),
	[Q_FDT_FD] = M("fdtable", "fd"),		[Q_FDT_MAX_FDS] = M("fdtable", "max_fds"),
	[Q_FILE_PRIVATE] = M("file", "private_data"),	[Q_FILE_MODE] = M("file", "f_mode"),
	[Q_INODE_PIPE] = M("inode", "i_pipe"),		[Q_PIPE_MUTEX] = M("pipe_inode_info", "mutex"),
	[Q_MUTEX_OWNER] = M("mutex", "owner"),
	[Q_PIPE_RD_WAIT] = M("pipe_inode_info", "rd_wait"),
	[Q_PIPE_WR_WAIT] = M("pipe_inode_info", "wr_wait"),
	[Q_WQ_LOCK] = M("wait_queue_head", "lock"),
	[Q_SB_UMOUNT] = M("super_block", "s_umount"),
	[Q_SB_INODE_LIST_LOCK] = M("super_block", "s_inode_list_lock"),
	[Q_SB_ROOT] = M("super_block", "s_root"),	[Q_DENTRY_SB] = M("dentry", "d_sb"),
	[Q_CGROUP_PIDLIST_MUTEX] = M("cgroup", "pidlist_mutex"),
	[Q_CGROUP_SELF] = M("cgroup", "self"),		[Q_CGROUP_KN] = M("cgroup", "kn"),
	[Q_CSS_CGROUP] = M("cgroup_subsys_state", "cgroup"),
	[Q_KN_NAME] = M("kernfs_node", "name"),		[Q_KN_PARENT] = M("kernfs_node", "parent"),
	/* 6.15 renamed it (it is RCU-protected since) */
	[Q_KN_PARENT_615] = M("kernfs_node", "__parent"),
	[Q_KN_PRIV] = M("kernfs_node", "priv"),
	/* 7.x: d_alias in an anonymous union, no longer the union d_u */
	[Q_DENTRY_ALIAS] = M("dentry", "d_alias"),
	/* 7.x: socket_lock_t's slock after its owned flag, in a struct of both */
	[Q_SOCK_SLOCK] = M("slock_owned", "slock"),
	[Q_MZ_MEMCG] = M("mem_cgroup_per_node", "memcg"),
	[Q_MZ_LRUVEC] = M("mem_cgroup_per_node", "lruvec"),
	[Q_LRUVEC_LOCK] = M("lruvec", "lru_lock"),	[Q_LRUVEC_PGDAT] = M("lruvec", "pgdat"),
	[Q_MEMCG_CSS] = M("mem_cgroup", "css"),		[Q_MEMCG_NODEINFO] = M("mem_cgroup", "nodeinfo"),
	/* d_lock is the spinlock of the dentry's lockref (its count's) */
	[Q_DENTRY_LOCKREF] = M("dentry", "d_lockref"),
	[Q_LOCKREF_LOCK] = M("lockref", "lock"),
	[Q_FILES_LOCK] = M("files_struct", "file_lock"),
};
#undef M

/*
 * Where each kind keeps a lock: the lock's offset is the sum of the
 * listed members' (up to two, -1 ends).  Order matters only between kinds
 * that keep a lock of one type at one offset; then the first whose check
 * passes is taken.  The index of an entry is the program's probe index.
 */
static const struct probe_def {
	uint8_t kind;
	uint8_t classes;
	const char *member;
	int q[2];
} probe_defs[] = {
	/* First, as the begin program tries them in this order: its check is
	 * exact (the waiter's own table), and checks below it that follow
	 * pointers can pass on memory that only looks like their kind (a
	 * super block's was seen to pass on a descriptor table's lock). */
	{ LOCK_OBJ_FILES, LOCK_CLASS_SPIN, "file_lock", { Q_FILES_LOCK, -1 } },
	{ LOCK_OBJ_FILE, LOCK_CLASS_MUTEX, "f_pos_lock", { Q_FILE_POS_LOCK, -1 } },
	{ LOCK_OBJ_FILE, LOCK_CLASS_SPIN, "f_lock", { Q_FILE_LOCK, -1 } },
	{ LOCK_OBJ_INODE, LOCK_CLASS_RWSEM, "i_rwsem", { Q_INODE_RWSEM, -1 } },
	{ LOCK_OBJ_INODE, LOCK_CLASS_SPIN, "i_lock", { Q_INODE_LOCK, -1 } },
	{ LOCK_OBJ_INODE, LOCK_CLASS_RWSEM, "i_data.i_mmap_rwsem", { Q_INODE_DATA, Q_AS_MMAP_RWSEM } },
	{ LOCK_OBJ_MM, LOCK_CLASS_RWSEM, "mmap_lock", { Q_MM_MMAP_LOCK, -1 } },
	{ LOCK_OBJ_TASK, LOCK_CLASS_SPIN, "pi_lock", { Q_TASK_PI_LOCK, -1 } },
	{ LOCK_OBJ_TASK, LOCK_CLASS_SPIN, "alloc_lock", { Q_TASK_ALLOC_LOCK, -1 } },
	{ LOCK_OBJ_SOCK, LOCK_CLASS_SPIN, "sk_lock.slock", { Q_SOCK_LOCK, Q_SOCK_SLOCK } },
	{ LOCK_OBJ_RQ, LOCK_CLASS_SPIN, "__lock", { Q_RQ_LOCK, -1 } },
	{ LOCK_OBJ_ZONE, LOCK_CLASS_SPIN, "lock", { Q_ZONE_LOCK, -1 } },
	{ LOCK_OBJ_PIPE, LOCK_CLASS_MUTEX, "mutex", { Q_PIPE_MUTEX, -1 } },
	{ LOCK_OBJ_PIPE, LOCK_CLASS_SPIN, "rd_wait.lock", { Q_PIPE_RD_WAIT, Q_WQ_LOCK } },
	{ LOCK_OBJ_PIPE, LOCK_CLASS_SPIN, "wr_wait.lock", { Q_PIPE_WR_WAIT, Q_WQ_LOCK } },
	{ LOCK_OBJ_SB, LOCK_CLASS_RWSEM, "s_umount", { Q_SB_UMOUNT, -1 } },
	{ LOCK_OBJ_SB, LOCK_CLASS_SPIN, "s_inode_list_lock", { Q_SB_INODE_LIST_LOCK, -1 } },
	{ LOCK_OBJ_CGROUP, LOCK_CLASS_MUTEX, "pidlist_mutex", { Q_CGROUP_PIDLIST_MUTEX, -1 } },
	{ LOCK_OBJ_MEMCG_NODE, LOCK_CLASS_SPIN, "lruvec.lru_lock", { Q_MZ_LRUVEC, Q_LRUVEC_LOCK } },
	{ LOCK_OBJ_DENTRY, LOCK_CLASS_SPIN, "d_lockref.lock",
	  { Q_DENTRY_LOCKREF, Q_LOCKREF_LOCK } },
	/* the spinlocks inside the sleeping locks above */
	{ LOCK_OBJ_FILE, LOCK_CLASS_SPIN, "f_pos_lock.wait_lock", { Q_FILE_POS_LOCK, Q_MUTEX_WAIT_LOCK } },
	{ LOCK_OBJ_INODE, LOCK_CLASS_SPIN, "i_rwsem.wait_lock", { Q_INODE_RWSEM, Q_RWSEM_WAIT_LOCK } },
	{ LOCK_OBJ_MM, LOCK_CLASS_SPIN, "mmap_lock.wait_lock", { Q_MM_MMAP_LOCK, Q_RWSEM_WAIT_LOCK } },
};
#define NR_PROBES (sizeof(probe_defs) / sizeof(probe_defs[0]))
_Static_assert(NR_PROBES <= LOCK_OBJ_PROBES, "the program's probe table is too small");

static const char *const kind_types[LOCK_OBJ_NR] = {
	[LOCK_OBJ_FILE] = "file", [LOCK_OBJ_INODE] = "inode", [LOCK_OBJ_MM] = "mm_struct",
	[LOCK_OBJ_TASK] = "task_struct", [LOCK_OBJ_SOCK] = "sock", [LOCK_OBJ_RQ] = "rq",
	[LOCK_OBJ_ZONE] = "zone", [LOCK_OBJ_PIPE] = "pipe_inode_info", [LOCK_OBJ_SB] = "super_block",
	[LOCK_OBJ_CGROUP] = "cgroup", [LOCK_OBJ_MEMCG_NODE] = "mem_cgroup_per_node",
	[LOCK_OBJ_DENTRY] = "dentry", [LOCK_OBJ_FILES] = "files_struct",
};

/* Each kind's facts (and the lines -v prints for a kind left out). */
static const struct {
	const char *what;		/* "files' paths" */
	int q[14];			/* the facts it needs, -1 last */
} kind_needs[LOCK_OBJ_NR] = {
	[LOCK_OBJ_FILE] = { "files (path)", { Q_FILE_INODE, Q_FILE_PATH, Q_PATH_DENTRY, Q_PATH_MNT,
		Q_DENTRY_NAME, Q_QSTR_NAME, Q_DENTRY_PARENT, Q_DENTRY_INODE, Q_MOUNT_MNT,
		Q_MOUNT_PARENT, Q_MOUNT_MOUNTPOINT, Q_VFSMOUNT_ROOT, -1 } },
	[LOCK_OBJ_INODE] = { "inodes (number, filesystem, a name)", { Q_INODE_INO, Q_INODE_SB,
		Q_INODE_MAPPING, Q_INODE_DATA, Q_INODE_DENTRY, Q_DENTRY_U, Q_DENTRY_NAME,
		Q_QSTR_NAME, Q_DENTRY_PARENT, Q_SB_ID, Q_SB_TYPE, Q_FSTYPE_NAME, -1 } },
	[LOCK_OBJ_MM] = { "mm_structs (process)", { Q_TASK_MM, Q_TASK_LEADER, Q_TASK_TGID,
		Q_TASK_COMM, -1 } },
	[LOCK_OBJ_TASK] = { "tasks (tid, comm)", { Q_TASK_LEADER, Q_TASK_PID, Q_TASK_TGID,
		Q_TASK_COMM, -1 } },
	[LOCK_OBJ_SOCK] = { "sockets (family, protocol, addresses)", { Q_SOCK_COMMON,
		Q_SOCK_SOCKET, Q_SOCK_PROTOCOL, Q_SOCK_TYPE, Q_SOCKET_SK, Q_SKC_FAMILY,
		Q_SKC_SADDR, Q_SKC_DADDR, Q_SKC_NUM, Q_SKC_DPORT, -1 } },
	[LOCK_OBJ_RQ] = { "run queues (CPU)", { Q_RQ_CPU, Q_RQ_CFS, Q_CFS_RQ_RQ, -1 } },
	[LOCK_OBJ_ZONE] = { "zones (name, node)", { Q_ZONE, Q_ZONE_PGDAT, Q_ZONE_NAME,
		Q_PGDAT_ZONES, Q_PGDAT_NODE_ID, -1 } },
	[LOCK_OBJ_PIPE] = { "pipes (inode, the processes at its ends)", { Q_TASK_FILES,
		Q_FILES_FDT, Q_FDT_FD, Q_FDT_MAX_FDS, Q_FILE_PRIVATE, Q_FILE_MODE, Q_FILE_INODE,
		Q_INODE_PIPE, Q_INODE_INO, Q_PIPE_MUTEX, Q_MUTEX_OWNER, Q_TASK_LEADER,
		Q_TASK_COMM, -1 } },
	[LOCK_OBJ_SB] = { "super blocks (filesystem, device)", { Q_SB_ROOT, Q_DENTRY_SB, Q_SB_ID,
		Q_SB_TYPE, Q_FSTYPE_NAME, -1 } },
	[LOCK_OBJ_CGROUP] = { "cgroups (path)", { Q_CGROUP_SELF, Q_CGROUP_KN, Q_CSS_CGROUP,
		Q_KN_NAME, Q_KN_PARENT, Q_KN_PRIV, -1 } },
	[LOCK_OBJ_MEMCG_NODE] = { "memory cgroups' LRU lists (path, node)", { Q_MZ_MEMCG,
		Q_LRUVEC_PGDAT, Q_PGDAT_NODE_ID, Q_MEMCG_CSS, Q_MEMCG_NODEINFO, Q_CSS_CGROUP,
		Q_CGROUP_KN, Q_KN_NAME, Q_KN_PARENT, -1 } },
	[LOCK_OBJ_DENTRY] = { "dentries (path, filesystem)", { Q_DENTRY_SB, Q_SB_ROOT,
		Q_DENTRY_PARENT, Q_DENTRY_INODE, Q_INODE_SB, Q_INODE_INO, Q_DENTRY_NAME,
		Q_QSTR_NAME, Q_SB_ID, Q_SB_TYPE, Q_FSTYPE_NAME, -1 } },
	[LOCK_OBJ_FILES] = { "descriptor tables (process)", { Q_TASK_FILES, Q_TASK_LEADER,
		Q_TASK_TGID, Q_TASK_COMM, -1 } },
};

/* The answers, kept for the report (the probe offsets). */
static struct kbtf_query q[Q_NR];
static bool q_done;

static bool have(int i)
{
	return i < 0 || (queries[i].member ? q[i].offset >= 0 : q[i].size > 0);
}

static uint32_t off(int i)
{
	return i < 0 ? 0 : (uint32_t)q[i].offset;
}

/* The probe's lock offset in its struct, or -1 if the BTF lacks it. */
static int64_t probe_off(const struct probe_def *p)
{
	if (!have(p->q[0]) || !have(p->q[1]))
		return -1;
	return (int64_t)off(p->q[0]) + off(p->q[1]);
}

/* The first fact of kind K the BTF lacks, -1 if none. */
static int kind_lacks(int k)
{
	size_t i;

	for (i = 0; kind_needs[k].q[i] >= 0; i++)
		if (!have(kind_needs[k].q[i]))
			return kind_needs[k].q[i];
	return -1;
}

static void set_facts(struct lock_obj_facts *f)
{
	uint32_t common = off(Q_SOCK_COMMON);

	*f = (struct lock_obj_facts){
		.file_inode = off(Q_FILE_INODE), .file_path = off(Q_FILE_PATH),
		.path_dentry = off(Q_PATH_DENTRY), .path_mnt = off(Q_PATH_MNT),
		.dentry_name = off(Q_DENTRY_NAME), .qstr_name = off(Q_QSTR_NAME),
		.dentry_parent = off(Q_DENTRY_PARENT), .dentry_inode = off(Q_DENTRY_INODE),
		/* d_alias is a member of the union d_u: at its start (7.x: its own) */
		.dentry_alias = off(Q_DENTRY_U),
		.mount_mnt = off(Q_MOUNT_MNT), .mount_parent = off(Q_MOUNT_PARENT),
		.mount_mountpoint = off(Q_MOUNT_MOUNTPOINT), .vfsmount_root = off(Q_VFSMOUNT_ROOT),
		.inode_ino = off(Q_INODE_INO), .inode_sb = off(Q_INODE_SB),
		.inode_mapping = off(Q_INODE_MAPPING), .inode_data = off(Q_INODE_DATA),
		.inode_dentry = off(Q_INODE_DENTRY),
		.sb_id = off(Q_SB_ID), .sb_type = off(Q_SB_TYPE), .fstype_name = off(Q_FSTYPE_NAME),
		.mm_owner = off(Q_MM_OWNER), .task_mm = off(Q_TASK_MM),
		.task_leader = off(Q_TASK_LEADER), .task_pid = off(Q_TASK_PID),
		.task_tgid = off(Q_TASK_TGID), .task_comm = off(Q_TASK_COMM),
		.sock_family = common + off(Q_SKC_FAMILY), .sock_saddr = common + off(Q_SKC_SADDR),
		.sock_daddr = common + off(Q_SKC_DADDR),
		.sock_v6_saddr = common + off(Q_SKC_V6_SADDR),
		.sock_v6_daddr = common + off(Q_SKC_V6_DADDR),
		.sock_num = common + off(Q_SKC_NUM), .sock_dport = common + off(Q_SKC_DPORT),
		.sock_protocol = off(Q_SOCK_PROTOCOL), .sock_type = off(Q_SOCK_TYPE),
		.sock_socket = off(Q_SOCK_SOCKET), .socket_sk = off(Q_SOCKET_SK),
		.rq_cpu = off(Q_RQ_CPU), .rq_cfs_rq = off(Q_RQ_CFS) + off(Q_CFS_RQ_RQ),
		.zone_pgdat = off(Q_ZONE_PGDAT), .zone_name = off(Q_ZONE_NAME),
		.zone_size = q[Q_ZONE].size, .pgdat_zones = off(Q_PGDAT_ZONES),
		/* node_zones[] has MAX_NR_ZONES (at most 6) entries; the bound only
		 * narrows a range the zone's back pointer already checks */
		.pgdat_nzones = 8, .pgdat_node_id = off(Q_PGDAT_NODE_ID),
		.task_files = off(Q_TASK_FILES), .files_fdt = off(Q_FILES_FDT),
		.fdt_fd = off(Q_FDT_FD), .fdt_max_fds = off(Q_FDT_MAX_FDS),
		.file_private = off(Q_FILE_PRIVATE), .file_mode = off(Q_FILE_MODE),
		.inode_pipe = off(Q_INODE_PIPE), .pipe_mutex = off(Q_PIPE_MUTEX),
		.mutex_owner = off(Q_MUTEX_OWNER), .sb_root = off(Q_SB_ROOT),
		.dentry_sb = off(Q_DENTRY_SB),
		.cgroup_self = off(Q_CGROUP_SELF), .cgroup_kn = off(Q_CGROUP_KN),
		.css_cgroup = off(Q_CSS_CGROUP), .kn_name = off(Q_KN_NAME),
		.kn_parent = off(Q_KN_PARENT), .kn_priv = off(Q_KN_PRIV), .mz_memcg = off(Q_MZ_MEMCG),
		.mz_lruvec_pgdat = off(Q_MZ_LRUVEC) + off(Q_LRUVEC_PGDAT),
		.memcg_css = off(Q_MEMCG_CSS), .memcg_nodeinfo = off(Q_MEMCG_NODEINFO),
		.has_mm_owner = have(Q_MM_OWNER),
		.has_sock_v6 = have(Q_SKC_V6_SADDR) && have(Q_SKC_V6_DADDR),
	};
}

/* Append to BUF at *AT (a bounded, always terminated printf). */
__attribute__((format(printf, 4, 5)))
static void put(char *buf, size_t size, size_t *at, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*at >= size)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf + *at, size - *at, fmt, ap);
	va_end(ap);
	if (n > 0)
		*at = *at + (size_t)n < size ? *at + (size_t)n : size - 1;
}

/* -v: the kinds described, in one line. */
static void log_kinds(const bool *ok, int n)
{
	char list[256];
	size_t at = 0;
	int k;

	list[0] = '\0';
	for (k = LOCK_OBJ_NONE + 1; k < LOCK_OBJ_NR; k++)
		if (ok[k])
			put(list, sizeof(list), &at, "%s%s", at ? ", " : "", kind_types[k]);
	cli_log("lock: -l: what holds each lock: %d kinds of object described (%s)\n", n, list);
}

int lock_obj__setup(const char *btf_path, struct lock_obj_probe probes[LOCK_OBJ_PROBES],
		    struct lock_obj_facts *facts)
{
	bool ok[LOCK_OBJ_NR] = { false };
	int err, k, n = 0;
	size_t i;

	if (!q_done) {
		memcpy(q, queries, sizeof(q));
		err = kbtf__resolve(btf_path, q, Q_NR);
		if (err)
			return err;
		if (!have(Q_KN_PARENT))
			q[Q_KN_PARENT] = q[Q_KN_PARENT_615];
		if (!have(Q_DENTRY_U))
			q[Q_DENTRY_U] = q[Q_DENTRY_ALIAS];
		/* before: socket_lock_t's first member */
		if (!have(Q_SOCK_SLOCK))
			q[Q_SOCK_SLOCK].offset = 0;
		q_done = true;
	}
	for (k = LOCK_OBJ_NONE + 1; k < LOCK_OBJ_NR; k++) {
		int lack = kind_lacks(k);

		/* an mm is checked through its owner (CONFIG_MEMCG), or is the waiter's */
		ok[k] = lack < 0;
		if (ok[k])
			n++;
		else
			cli_log("lock: -l: %s not described: the kernel's BTF has no %s.%s\n",
				kind_needs[k].what, queries[lack].name,
				queries[lack].member ? queries[lack].member : "");
	}
	memset(probes, 0, LOCK_OBJ_PROBES * sizeof(*probes));
	for (i = 0; i < NR_PROBES; i++) {
		int64_t o = probe_off(&probe_defs[i]);

		probes[i].kind = probe_defs[i].kind;
		if (ok[probe_defs[i].kind] && o >= 0) {
			probes[i].off = (uint32_t)o;
			probes[i].classes = probe_defs[i].classes;
		}
	}
	set_facts(facts);
	log_kinds(ok, n);
	if (ok[LOCK_OBJ_MM] && !facts->has_mm_owner)
		cli_log("lock: -l: an mm_struct's process is named only for its own waits "
			"(the kernel's BTF has no mm_struct.owner: no CONFIG_MEMCG)\n");
	return n;
}

static const struct probe_def *probe_of(const struct lock_obj *o)
{
	if (o->kind == LOCK_OBJ_NONE || o->kind >= LOCK_OBJ_NR || o->probe >= NR_PROBES ||
	    probe_defs[o->probe].kind != o->kind)
		return NULL;
	return &probe_defs[o->probe];
}

const char *lock_obj__member(const struct lock_obj *o)
{
	const struct probe_def *p = probe_of(o);

	return p ? p->member : "";
}

const char *lock_obj__type(const struct lock_obj *o)
{
	return probe_of(o) ? kind_types[o->kind] : "";
}

int64_t lock_obj__offset(const struct lock_obj *o)
{
	const struct probe_def *p = probe_of(o);

	return p && q_done ? probe_off(p) : -1;
}

/* A string of at most N bytes from S, which need not be terminated. */
static const char *str(const char *s, size_t n, char *buf)
{
	memcpy(buf, s, n);
	buf[n] = '\0';
	return buf;
}


/* A path, root first: "/a/b", ".../b" when its first components were
 * left out, "/a.../b" when a name was cut; "" if none. */
static void put_path(char *buf, size_t size, size_t *at, const struct lock_obj *o)
{
	char part[LOCK_OBJ_PART + 1];
	int i;

	if (!o->parts)
		return;
	if (!(o->flags & LOCK_OBJ_F_ROOT))
		put(buf, size, at, "...");
	for (i = o->parts - 1; i >= 0; i--)
		put(buf, size, at, "/%s%s", str(o->part[i], LOCK_OBJ_PART, part),
		    o->cut & (1U << i) ? "..." : "");
}

/* A cgroup's path: its root's is "/". */
static void put_cgroup(char *buf, size_t size, size_t *at, const struct lock_obj *o)
{
	if (o->parts)
		put_path(buf, size, at, o);
	else
		put(buf, size, at, "/");
}

/* A file with no name in the tree (a pipe, a socket, an anonymous inode):
 * as /proc/PID/fd names them, from its filesystem; else "FS:[INO]". */
static void put_pseudo(char *buf, size_t size, size_t *at, const struct lock_obj *o)
{
	char fs[LOCK_COMM_LEN + 1], part[LOCK_OBJ_PART + 1];

	str(o->name, LOCK_COMM_LEN, fs);
	str(o->part[0], LOCK_OBJ_PART, part);
	if (!strcmp(fs, "pipefs"))
		put(buf, size, at, "pipe:[%" PRIu64 "]", (uint64_t)o->num);
	else if (!strcmp(fs, "sockfs"))
		put(buf, size, at, "socket:[%" PRIu64 "]", (uint64_t)o->num);
	else if (part[0])
		put(buf, size, at, "%s", part);
	else
		put(buf, size, at, "%s:[%" PRIu64 "]", fs[0] ? fs : "inode", (uint64_t)o->num);
}

/* A file's or dentry's name: its path, else as a file of no tree. */
static void put_file_name(char *buf, size_t size, size_t *at, const struct lock_obj *o)
{
	if (o->parts && !(o->flags & LOCK_OBJ_F_PSEUDO))
		put_path(buf, size, at, o);
	else
		put_pseudo(buf, size, at, o);
}

static const char *proto_name(unsigned int family, unsigned int proto, unsigned int type)
{
	if (family == AF_UNIX)
		return type == SOCK_STREAM ? "unix stream" : type == SOCK_DGRAM ? "unix dgram" :
		       "unix seqpacket";
	if (proto == IPPROTO_TCP)
		return family == AF_INET6 ? "tcp6" : "tcp";
	if (proto == IPPROTO_UDP)
		return family == AF_INET6 ? "udp6" : "udp";
	return NULL;
}

/* An address and port: 127.0.0.1:5432, [::1]:5432. */
static void put_addr(char *buf, size_t size, size_t *at, unsigned int family,
		     const uint32_t *addr, unsigned int port)
{
	char a[INET6_ADDRSTRLEN];

	if (!inet_ntop(family == AF_INET6 ? AF_INET6 : AF_INET, addr, a, sizeof(a)))
		snprintf(a, sizeof(a), "?");
	put(buf, size, at, family == AF_INET6 ? "[%s]:%u" : "%s:%u", a, port);
}

static void put_sock(char *buf, size_t size, size_t *at, const struct lock_obj *o)
{
	unsigned int proto = (unsigned int)(o->num >> 16), type = (unsigned int)(o->num & 0xffff);
	const char *p = proto_name(o->id, proto, type);

	if (!p) {
		put(buf, size, at, "socket (family %u, protocol %u)", o->id, proto);
		return;
	}
	put(buf, size, at, "%s", p);
	if (o->id != AF_INET && o->id != AF_INET6)
		return;
	put(buf, size, at, " ");
	put_addr(buf, size, at, o->id, &o->addr[0], o->port[0]);
	if (o->port[1]) {
		put(buf, size, at, " -> ");
		put_addr(buf, size, at, o->id, &o->addr[4], ntohs(o->port[1]));
	}
}

size_t lock_obj__name(const struct lock_obj *o, char *buf, size_t size)
{
	char name[LOCK_COMM_LEN + 1], dev[sizeof(o->dev) + 1];
	size_t at = 0, i;

	if (!size)
		return 0;
	buf[0] = '\0';
	if (!probe_of(o))
		return 0;
	str(o->name, LOCK_COMM_LEN, name);
	str(o->dev, sizeof(o->dev), dev);
	switch (o->kind) {
	case LOCK_OBJ_FILE:
		put_file_name(buf, size, &at, o);
		break;
	case LOCK_OBJ_DENTRY:
		put_file_name(buf, size, &at, o);
		put(buf, size, &at, " on %s (%s)", dev, name);
		break;
	case LOCK_OBJ_FILES:
		put(buf, size, &at, "fd table of %s (pid %u)", name, o->id);
		break;
	case LOCK_OBJ_INODE:
		if (o->parts && !(o->flags & LOCK_OBJ_F_PSEUDO))
			put_path(buf, size, &at, o);
		else if (o->parts)
			put_pseudo(buf, size, &at, o);
		else
			put(buf, size, &at, "inode %" PRIu64, (uint64_t)o->num);
		put(buf, size, &at, " on %s (%s", dev, name);
		if (o->parts)
			put(buf, size, &at, ", inode %" PRIu64, (uint64_t)o->num);
		put(buf, size, &at, ")");
		break;
	case LOCK_OBJ_MM:
		put(buf, size, &at, "%s (pid %u)", name, o->id);
		break;
	case LOCK_OBJ_TASK:
		put(buf, size, &at, "thread %s (tid %u)", name, o->id);
		break;
	case LOCK_OBJ_SOCK:
		put_sock(buf, size, &at, o);
		break;
	case LOCK_OBJ_RQ:
		put(buf, size, &at, "CPU %u's run queue", o->id);
		break;
	case LOCK_OBJ_ZONE:
		put(buf, size, &at, "zone %s, node %u", name, o->id);
		break;
	case LOCK_OBJ_SB:
		put(buf, size, &at, "%s on %s", name, dev);
		break;
	case LOCK_OBJ_CGROUP:
		put(buf, size, &at, "cgroup ");
		put_cgroup(buf, size, &at, o);
		break;
	case LOCK_OBJ_MEMCG_NODE:
		put(buf, size, &at, "memory cgroup ");
		put_cgroup(buf, size, &at, o);
		put(buf, size, &at, ", node %u", o->id);
		break;
	case LOCK_OBJ_PIPE:
		/* the waiter, at its end; the holder then, if any */
		put(buf, size, &at, "pipe:[%" PRIu64 "] %s %s (pid %u)", (uint64_t)o->num,
		    o->addr[1] == 2 ? "written by" : o->addr[1] == 1 ? "read by" : "of",
		    name, o->id);
		if (o->addr[0])
			put(buf, size, &at, " and %s (pid %u)", dev, o->addr[0]);
		break;
	}
	/* names come from the traced (a file's, a task's): no control
	 * character reaches a terminal or breaks a table's line */
	for (i = 0; i < at; i++)
		if ((unsigned char)buf[i] < 0x20 || buf[i] == 0x7f)
			buf[i] = '?';
	return at;
}
