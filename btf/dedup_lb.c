// SPDX-License-Identifier: GPL-2.0
/*
 * libbpf 1.7's dedup on raw BTF.  This file alone is compiled against that
 * libbpf's headers, whose every API name names.h renames btflib_* (the
 * Makefile), so the btf__* calls below are the second copy's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "btf/dedup_lb.h"
#include "btf/type_bytes.h"
#include "cli/cli.h"
#include "lib/io.h"

struct dedup_lb {
	struct btf *base;
	uint32_t base_strs;	/* its bytes of strings */
};

__attribute__((format(printf, 2, 0)))
static int print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return level == LIBBPF_DEBUG ? 0 : cli_vlog(fmt, ap);
}

struct dedup_lb *dedup_lb__new(const void *base, uint32_t size)
{
	struct dedup_lb *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	libbpf_set_print(print);
	d->base = btf__new(base, size);
	d->base_strs = size >= sizeof(struct btf_header) ?
		       ((const struct btf_header *)base)->str_len : 0;
	if (!d->base) {
		free(d);
		return NULL;
	}
	return d;
}

void dedup_lb__free(struct dedup_lb *d)
{
	if (!d)
		return;
	btf__free(d->base);
	free(d);
}

/*
 * The module's strings as a split BTF of no types on D's base: the source
 * btf__add_type() reads each type's strings from.  libbpf keeps a copy;
 * ours is gone before the types come.
 */
static struct btf *strings_of(struct dedup_lb *d, int fd, uint32_t off, uint32_t len)
{
	struct btf_header *h = calloc(1, sizeof(*h) + len);
	struct btf *btf = NULL;
	int err;

	if (!h)
		return NULL;
	*h = (struct btf_header){ .magic = BTF_MAGIC, .version = BTF_VERSION,
				  .hdr_len = sizeof(*h), .str_len = len };
	err = io__pread_full(fd, h + 1, len, off);
	if (!err)
		btf = btf__new_split(h, sizeof(*h) + len, d->base);
	free(h);
	if (err)
		errno = -err;
	return btf;
}

/* Bytes of types read at a time: more than the largest record (a header
 * and 65,535 members, values or variables of 12 bytes, 768 KB). */
#define CHUNK	(1u << 20)

/*
 * T appended to DST, its strings re-added from STRS, but for those in the
 * base (offsets below BASE_STRS): those keep their offsets, which DST
 * shares.  btf__add_type() would look each one up in the base, which
 * makes libbpf 1.7 copy a string of the base into the base's own string
 * set while it reads it from there, and the copy can move the set first.
 * So the add is of T's copy in SCRATCH with those offsets 0, and they are
 * put back in DST's record after.
 */
static int add_type(struct btf *dst, const struct btf *strs, uint32_t base_strs,
		    const struct btf_type *t, size_t sz, void *scratch)
{
	struct btf_type *c = memcpy(scratch, t, sz), *nt;
	__u32 *off;
	size_t i;
	int id;

	for (i = 0; (off = btf_type_str(c, i)); i++)
		if (*off < base_strs)
			*off = 0;
	id = btf__add_type(dst, strs, c);
	if (id < 0)
		return -errno;
	nt = (struct btf_type *)btf__type_by_id(dst, (__u32)id);
	for (i = 0; (off = btf_type_str(nt, i)); i++)
		if (!*off)
			*off = *btf_type_str((struct btf_type *)t, i);
	return 0;
}

/*
 * The types in FD, TYPES bytes from offset 0, appended to DST one by one,
 * read CHUNK bytes at a time.  Their ids stay as they are: DST starts
 * empty on the base they were made on.
 */
static int add_types(struct btf *dst, const struct btf *strs, uint32_t base_strs, int fd,
		     uint32_t types)
{
	char *buf = malloc(CHUNK), *scratch = malloc(CHUNK);
	uint32_t off = 0, have = 0, len, used;
	const struct btf_type *t;
	size_t sz;
	int err = buf && scratch ? 0 : -ENOMEM;

	/* Each round: HAVE bytes of a record cut at the last chunk's end, then more. */
	while (!err && off < types) {
		len = types - off < CHUNK - have ? types - off : CHUNK - have;
		err = io__pread_full(fd, buf + have, len, off);
		off += len;
		len += have;
		for (used = 0; !err && len - used >= sizeof(*t); used += (uint32_t)sz) {
			t = (const void *)(buf + used);
			sz = btf_type_bytes(t);
			if (len - used < sz)
				break;
			err = add_type(dst, strs, base_strs, t, sz, scratch);
		}
		have = len - used;
		if (!err && (have == CHUNK || (have && off == types)))
			err = -EINVAL;	/* a record cut short */
		memmove(buf, buf + used, have);
	}
	free(scratch);
	free(buf);
	return err;
}

int dedup_lb__run(struct dedup_lb *d, int fd, uint32_t types, uint32_t strs_len)
{
	struct btf *strs, *btf;
	const void *data;
	uint32_t len;
	int err;

	strs = strings_of(d, fd, types, strs_len);
	if (!strs)
		return -errno;
	btf = btf__new_empty_split(d->base);
	err = btf ? add_types(btf, strs, d->base_strs, fd, types) : -errno;
	btf__free(strs);
	if (!err)
		err = btf__dedup(btf, NULL);
	data = err ? NULL : btf__raw_data(btf, &len);
	if (!err && !data)
		err = -ENOMEM;
	if (!err)
		err = io__pwrite_full(fd, data, len, 0);
	if (!err && ftruncate(fd, len))
		err = -errno;
	btf__free(btf);
	return err;
}

const char *dedup_lb__version(void)
{
	static char v[16];

	snprintf(v, sizeof(v), "%u.%u", libbpf_major_version(), libbpf_minor_version());
	return v;
}
