/* SPDX-License-Identifier: GPL-2.0 */
/*
 * -l: what a slab lock is, from the kernel's BTF (member.c): the struct its
 * cache's objects are, and the path of members from the object's start to
 * the lock (`vfs_inode.i_rwsem` of struct shmem_inode_info).  Report time
 * only, once per row; nothing here prints.
 *
 * The BTF is read in place: mapped where the kernel lets us (6.16+: its
 * pages are not ours), else one copy, plus 4 bytes a type to find them.
 * libbpf 1.1's reader holds two copies at once and its index: `frugal
 * lock -l` on a file appended by four threads peaked at 15.2 MB with it,
 * 4.5 MB with this (3.4 MB naming no member).
 */
#ifndef FRUGAL_LOCK_MEMBER_H
#define FRUGAL_LOCK_MEMBER_H

#include <stddef.h>
#include <stdint.h>

struct lock_btf;

/* The BTF of PATH (NULL: the kernel's).  NULL with errno set: the file's
 * error, EINVAL for what is not BTF, ENOMEM. */
struct lock_btf *lock_btf__open(const char *path);
void lock_btf__free(struct lock_btf *b);
/* Type ID's name ("" if it has none or there is no such type). */
const char *lock_btf__name(const struct lock_btf *b, uint32_t id);

/*
 * The struct type of CACHE's objects in BTF: a struct named as the cache,
 * else the one a table of known caches names (filp: struct file, ...).
 * Its type id, or 0 when neither is in BTF.
 */
uint32_t lock_member__cache_type(const struct lock_btf *btf, const char *cache);

/*
 * The members from the start of type ID to offset OFF whose type is a lock
 * of the kind FLAGS (contention_begin's LCB_F_*) says, through nested
 * structs and unions and array elements ("a.b[2].c"), written into BUF.
 * The first that fits, in declaration order.  0, -ENOENT when no member
 * fits, -ENAMETOOLONG when BUF is too small for the path.
 */
int lock_member__path(const struct lock_btf *btf, uint32_t id, uint32_t off, uint32_t flags,
		      char *buf, size_t size);

#endif
