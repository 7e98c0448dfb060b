// SPDX-License-Identifier: GPL-2.0
/*
 * -l: a slab lock's member path in its object, from the kernel's BTF
 * (member_int.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <bpf/btf.h>

#include "lib/io.h"
#include "lock/kernel/kernel.h"
#include "lock/lock.h"
#include "lock/report/member_int.h"

struct lock_btf {
	const char *data;	/* the whole file, mapped or read */
	size_t len;
	bool mapped;
	const char *types, *strs;
	uint32_t strs_len;
	uint32_t *off;		/* type id -> its record's offset in types */
	uint32_t n;		/* ids 1 .. n - 1 */
};

/* The file whole: mapped where sysfs lets us, else read into memory. */
static int load_file(struct lock_btf *b, const char *path)
{
	struct stat st;
	char *buf;
	int fd, err;

	fd = open(path ? path : "/sys/kernel/btf/vmlinux", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = fstat(fd, &st) ? -errno : st.st_size < (off_t)sizeof(struct btf_header) ? -EINVAL : 0;
	if (err)
		goto out;
	b->len = st.st_size;
	b->data = mmap(NULL, b->len, PROT_READ, MAP_PRIVATE, fd, 0);
	b->mapped = b->data != MAP_FAILED;
	if (b->mapped)
		goto out;
	b->data = buf = malloc(b->len);
	err = !buf ? -ENOMEM : io__pread_full(fd, buf, b->len, 0);
	if (err == -ENODATA)
		err = -EINVAL;
out:
	close(fd);
	return err;
}

/* The header checked, and every type's record found once. */
static int index_types(struct lock_btf *b)
{
	const struct btf_header *h = (const void *)b->data;
	size_t cap = 1024, at = 0, types_len;

	if (h->magic != BTF_MAGIC || h->hdr_len < sizeof(*h) || h->hdr_len > b->len ||
	    h->type_off > b->len - h->hdr_len || h->type_len > b->len - h->hdr_len - h->type_off ||
	    h->str_off > b->len - h->hdr_len || h->str_len > b->len - h->hdr_len - h->str_off)
		return -EINVAL;
	/* records read in place must be aligned; names must end in the section */
	if ((h->hdr_len + h->type_off) % 4 || (h->str_len && b->data[h->hdr_len + h->str_off +
								  h->str_len - 1]))
		return -EINVAL;
	b->types = b->data + h->hdr_len + h->type_off;
	types_len = h->type_len;
	b->strs = b->data + h->hdr_len + h->str_off;
	b->strs_len = h->str_len;
	b->off = malloc(cap * sizeof(*b->off));
	if (!b->off)
		return -ENOMEM;
	b->n = 1;
	while (at + sizeof(struct btf_type) <= types_len) {
		const struct btf_type *t = (const void *)(b->types + at);

		if (b->n == cap) {
			uint32_t *p = realloc(b->off, 2 * cap * sizeof(*p));

			if (!p)
				return -ENOMEM;
			b->off = p;
			cap *= 2;
		}
		b->off[b->n++] = at;
		at += sizeof(*t) + kbtf__extra_size(t);
	}
	return at == types_len ? 0 : -EINVAL;
}

struct lock_btf *lock_btf__open(const char *path)
{
	struct lock_btf *b = calloc(1, sizeof(*b));
	int err = -ENOMEM;

	if (b)
		err = load_file(b, path) ?: index_types(b);
	if (!err)
		return b;
	lock_btf__free(b);
	errno = -err;
	return NULL;
}

void lock_btf__free(struct lock_btf *b)
{
	if (!b)
		return;
	if (b->mapped)
		munmap((void *)b->data, b->len);
	else
		free((void *)b->data);
	free(b->off);
	free(b);
}

static const struct btf_type *type_by_id(const struct lock_btf *b, uint32_t id)
{
	return id && id < b->n ? (const void *)(b->types + b->off[id]) : NULL;
}

static const char *name_at(const struct lock_btf *b, uint32_t off)
{
	return off < b->strs_len ? b->strs + off : "";
}

const char *lock_btf__name(const struct lock_btf *b, uint32_t id)
{
	const struct btf_type *t = type_by_id(b, id);

	return t ? name_at(b, t->name_off) : "";
}

/* The id of the struct called NAME; 0 if none. */
static uint32_t find_struct(const struct lock_btf *b, const char *name)
{
	uint32_t id;

	for (id = 1; id < b->n; id++) {
		const struct btf_type *t = type_by_id(b, id);

		if (btf_is_struct(t) && !strcmp(name_at(b, t->name_off), name))
			return id;
	}
	return 0;
}

/* Type ID's size in bytes, through typedefs, qualifiers and arrays; 0 if none. */
static uint64_t type_size(const struct lock_btf *b, uint32_t id)
{
	uint64_t times = 1;
	int depth;

	for (depth = 0; depth < 32; depth++) {
		const struct btf_type *t = type_by_id(b, id);

		if (!t)
			return 0;
		switch (btf_kind(t)) {
		case BTF_KIND_INT: case BTF_KIND_STRUCT: case BTF_KIND_UNION:
		case BTF_KIND_ENUM: case BTF_KIND_FLOAT: case 19 /* ENUM64 */:
			return times * t->size;
		case BTF_KIND_PTR:
			return times * sizeof(void *);
		case BTF_KIND_TYPEDEF: case BTF_KIND_VOLATILE: case BTF_KIND_CONST:
		case BTF_KIND_RESTRICT: case BTF_KIND_TYPE_TAG:
			id = t->type;
			break;
		case BTF_KIND_ARRAY:
			times *= btf_array(t)->nelems;
			id = btf_array(t)->type;
			break;
		default:
			return 0;
		}
	}
	return 0;
}

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

uint32_t lock_member__cache_type(const struct lock_btf *btf, const char *cache)
{
	uint32_t id;
	size_t i;

	if (!cache[0])
		return 0;
	id = find_struct(btf, cache);
	if (id)
		return id;
	for (i = 0; i < sizeof(known_caches) / sizeof(known_caches[0]); i++)
		if (!strcmp(known_caches[i].cache, cache))
			return find_struct(btf, known_caches[i].type);
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
static bool is_lock(const struct lock_btf *btf, uint32_t id, const char *const *names)
{
	int depth;

	for (depth = 0; depth < 8 && id; depth++) {
		const struct btf_type *t = type_by_id(btf, id);
		const char *n, *const *p;

		if (!t)
			return false;
		n = name_at(btf, t->name_off);
		for (p = names; *n && *p; p++)
			if (!strcmp(n, *p))
				return true;
		if (!btf_is_typedef(t) && !btf_is_mod(t))
			return false;
		id = t->type;
	}
	return false;
}

/* Type ID without its typedefs and qualifiers. */
static const struct btf_type *skip_mods(const struct lock_btf *btf, uint32_t *id)
{
	const struct btf_type *t = type_by_id(btf, *id);
	int depth;

	for (depth = 0; t && depth < 8 && (btf_is_typedef(t) || btf_is_mod(t)); depth++) {
		*id = t->type;
		t = type_by_id(btf, *id);
	}
	return t;
}

struct path {
	const struct lock_btf *btf;
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
		long long es = type_size(p->btf, a->type);
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
		msize = type_size(p->btf, m[i].type);
		if (msize <= 0 || off - moff >= (unsigned long long)msize)
			continue;
		n = name_at(p->btf, m[i].name_off);
		if (find_member(p, n, m[i].type, off - moff, depth))
			return true;
	}
	return false;
}

int lock_member__path(const struct lock_btf *btf, uint32_t id, uint32_t off, uint32_t flags,
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
