// SPDX-License-Identifier: GPL-2.0
/*
 * -l: a slab lock's member path in its object, from the kernel's BTF
 * (member.h).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <bpf/btf.h>

#include "lock/lock.h"
#include "lock/member.h"

/*
 * Caches whose objects are a struct of another name.  Each was checked in
 * Linux 6.18's BTF and /proc/slabinfo; a name a kernel lacks finds nothing.
 */
static const struct {
	const char *cache, *type;
} known_caches[] = {
	{ "filp",		"file" },
	{ "sock_inode_cache",	"socket_alloc" },
	{ "TCP",		"tcp_sock" },
	{ "TCPv6",		"tcp6_sock" },
	{ "UDP",		"udp_sock" },
	{ "UDPv6",		"udp6_sock" },
	{ "UNIX",		"unix_sock" },
	{ "signal_cache",	"signal_struct" },
	{ "sighand_cache",	"sighand_struct" },
	{ "files_cache",	"files_struct" },
	{ "fs_cache",		"fs_struct" },
	{ "shmem_inode_cache",	"shmem_inode_info" },
	{ "inode_cache",	"inode" },
	{ "ext4_inode_cache",	"ext4_inode_info" },
	{ "proc_inode_cache",	"proc_inode" },
	{ "eventpoll_epi",	"epitem" },
	{ "kernfs_node_cache",	"kernfs_node" },
};

uint32_t lock_member__cache_type(const struct btf *btf, const char *cache)
{
	size_t i;
	int id;

	if (!cache[0])
		return 0;
	id = btf__find_by_name_kind(btf, cache, BTF_KIND_STRUCT);
	if (id > 0)
		return id;
	for (i = 0; i < sizeof(known_caches) / sizeof(known_caches[0]); i++)
		if (!strcmp(known_caches[i].cache, cache)) {
			id = btf__find_by_name_kind(btf, known_caches[i].type, BTF_KIND_STRUCT);
			return id > 0 ? id : 0;
		}
	return 0;
}

/*
 * The names a lock of kind FLAGS has in BTF, as a struct or a typedef:
 * the outermost lock type, so that an rwsem's inner spinlock is not its
 * name.
 */
static const char *const *lock_names(uint32_t flags)
{
	static const char *const mutex[] = { "mutex", NULL };
	static const char *const spin[] = { "spinlock", "spinlock_t", "raw_spinlock",
					    "raw_spinlock_t", "qspinlock", "arch_spinlock_t", NULL };
	static const char *const rwlock[] = { "rwlock_t", "qrwlock", "arch_rwlock_t", NULL };
	static const char *const rwsem[] = { "rw_semaphore", NULL };
	static const char *const pcpu[] = { "percpu_rw_semaphore", NULL };
	static const char *const rt[] = { "rt_mutex", "rt_mutex_base", "rwlock_t", NULL };
	static const char *const sem[] = { "semaphore", NULL };
	bool rw = flags & (LCB_F_READ | LCB_F_WRITE);

	if (flags & LCB_F_MUTEX)
		return mutex;
	if (flags & LCB_F_RT)
		return rt;
	if (flags & LCB_F_PERCPU)
		return pcpu;
	if (flags & LCB_F_SPIN)
		return rw ? rwlock : spin;
	return rw ? rwsem : sem;
}

/* Is type ID (through its typedefs and qualifiers) one of NAMES? */
static bool is_lock(const struct btf *btf, uint32_t id, const char *const *names)
{
	int depth;

	for (depth = 0; depth < 8 && id; depth++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		const char *n, *const *p;

		if (!t)
			return false;
		n = btf__name_by_offset(btf, t->name_off);
		for (p = names; n && *n && *p; p++)
			if (!strcmp(n, *p))
				return true;
		if (!btf_is_typedef(t) && !btf_is_mod(t))
			return false;
		id = t->type;
	}
	return false;
}

/* Type ID without its typedefs and qualifiers. */
static const struct btf_type *skip_mods(const struct btf *btf, uint32_t *id)
{
	const struct btf_type *t = btf__type_by_id(btf, *id);
	int depth;

	for (depth = 0; t && depth < 8 && (btf_is_typedef(t) || btf_is_mod(t)); depth++) {
		*id = t->type;
		t = btf__type_by_id(btf, *id);
	}
	return t;
}

struct path {
	const struct btf *btf;
	const char *const *names;
	char *buf;
	size_t size, len;
	bool too_long;
};

/* Append a member's NAME, or an array's index I when NAME is NULL; false
 * when the path does not fit. */
static bool path_add(struct path *p, const char *name, long long i)
{
	char *at = p->buf + p->len;
	size_t left = p->size - p->len;
	int n = !name ? snprintf(at, left, "[%lld]", i) :
		p->len ? snprintf(at, left, ".%s", name) : snprintf(at, left, "%s", name);

	if (n < 0 || (size_t)n >= p->size - p->len) {
		p->too_long = true;
		return false;
	}
	p->len += n;
	return true;
}

static bool find(struct path *p, uint32_t id, uint32_t off, int depth);

/* A member of type ID at OFF within it, named NAME ("" if anonymous). */
static bool find_member(struct path *p, const char *name, uint32_t id, uint32_t off,
			int depth)
{
	size_t len = p->len;

	if (name[0] && !path_add(p, name, 0))
		return false;
	if (off == 0 && name[0] && is_lock(p->btf, id, p->names))
		return true;
	if (find(p, id, off, depth + 1))
		return true;
	p->len = len;
	p->buf[len] = '\0';
	return false;
}

/* Within type ID, at offset OFF: an array's element or a member, recursively. */
static bool find(struct path *p, uint32_t id, uint32_t off, int depth)
{
	const struct btf_type *t = skip_mods(p->btf, &id);
	const struct btf_member *m;
	int i, vlen;

	if (!t || depth > 16 || p->too_long)
		return false;
	if (btf_is_array(t)) {
		const struct btf_array *a = btf_array(t);
		long long es = btf__resolve_size(p->btf, a->type);
		size_t len = p->len;

		if (es <= 0 || off / es >= a->nelems || !path_add(p, NULL, off / es))
			return false;
		if ((off % es == 0 && is_lock(p->btf, a->type, p->names)) ||
		    find(p, a->type, off % es, depth + 1))
			return true;
		p->len = len;
		p->buf[len] = '\0';
		return false;
	}
	if (!btf_is_composite(t))
		return false;
	m = btf_members(t);
	vlen = btf_vlen(t);
	for (i = 0; i < vlen; i++) {
		uint32_t bits = btf_member_bit_offset(t, i), moff = bits / 8;
		long long msize;
		const char *n;

		if (btf_member_bitfield_size(t, i) || bits % 8 || moff > off)
			continue;
		msize = btf__resolve_size(p->btf, m[i].type);
		if (msize <= 0 || off - moff >= (unsigned long long)msize)
			continue;
		n = btf__name_by_offset(p->btf, m[i].name_off);
		if (find_member(p, n ? n : "", m[i].type, off - moff, depth))
			return true;
	}
	return false;
}

int lock_member__path(const struct btf *btf, uint32_t id, uint32_t off, uint32_t flags,
		      char *buf, size_t size)
{
	struct path p = { btf, lock_names(flags), buf, size, 0, false };

	if (!size)
		return -ENAMETOOLONG;
	buf[0] = '\0';
	if (find(&p, id, off, 0))
		return 0;
	buf[0] = '\0';
	return p.too_long ? -ENAMETOOLONG : -ENOENT;
}
