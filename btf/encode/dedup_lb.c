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

#include "btf/encode/dedup_lb_int.h"
#include "btf/encode/type_bytes_int.h"
#include "cli/cli.h"
#include "lib/io.h"

struct dedup_lb {
	struct btf *base;
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
 * The module's strings, in FD at OFF (LEN bytes), into *STRS, and *MAP of
 * LEN offsets, all UINT32_MAX: str_off() fills in, at each string's
 * offset in the section, the offset DST gives it.
 */
static int read_strings(int fd, uint32_t off, uint32_t len, char **strs, uint32_t **map)
{
	char *buf = malloc(len ? len : 1);
	uint32_t *m = malloc((len ? len : 1) * sizeof(*m));
	int err = buf && m ? io__pread_full(fd, buf, len, off) : -ENOMEM;

	if (!err && len && buf[len - 1])
		err = -EINVAL;		/* the last string is not terminated */
	if (err) {
		free(buf);
		free(m);
		return err;
	}
	memset(m, 0xff, len * sizeof(*m));
	*strs = buf;
	*map = m;
	return 0;
}

/* Bytes of types read at a time: more than the largest record (a header
 * and 65,535 members, values or variables of 12 bytes, 768 KB). */
#define CHUNK	(1u << 20)

/* How the types read are renumbered: made on another base than D's. */
struct from {
	uint32_t strs, types;		/* that base's bytes of strings, type count */
	uint32_t base_types;		/* D's base's type count */
	const char *str;		/* their own strings (read_strings) */
	uint32_t *map, len;		/* and the offsets DST gives them */
};

/*
 * String offset OFF of a type read, as DST has it, each string added to
 * DST (found in the base, or added to DST's own) at its first use only.
 * DST's own strings are then in the order btf__add_type() would add them,
 * which dedup keeps (it does not rebuild the strings of a split BTF made
 * from empty); a module refers to each of its strings several times over
 * (7.3's mlx5_core: 343 KB of strings under 19.4 MB of types).  0 or
 * -errno.
 */
static int str_off(struct btf *dst, struct from *f, __u32 *off)
{
	uint32_t o = *off - f->strs;
	int r;

	if (*off < f->strs)
		return 0;		/* "", or in the base, which DST shares */
	if (o >= f->len || (o && f->str[o - 1]))
		return -EINVAL;		/* not the start of a string */
	if (f->map[o] == UINT32_MAX) {
		r = btf__add_str(dst, f->str + o);
		if (r < 0)
			return -errno;
		f->map[o] = (uint32_t)r;
	}
	*off = f->map[o];
	return 0;
}

/*
 * T appended to DST, its type ids moved to follow D's base (they were
 * made on a base of F->types types), its strings put in after: the add
 * is of T's copy in SCRATCH with every string offset 0, so libbpf looks
 * none up.  (It would look a string of the base up in the base, which
 * makes libbpf 1.7 copy it into the base's own string set while it reads
 * it from there, and the copy can move the set first.)
 */
static int add_type(struct btf *dst, struct from *f, const struct btf_type *t, size_t sz,
		    void *scratch)
{
	struct btf_type *c = memcpy(scratch, t, sz), *nt;
	__u32 *off, *id;
	size_t i;
	int nid, err;

	for (i = 0; (off = btf_type_str(c, i)); i++)
		*off = 0;
	for (i = 0; (id = btf_type_id(c, i)); i++)
		if (*id >= f->types)
			*id = *id - f->types + f->base_types;
	nid = btf__add_type(dst, dst, c);
	if (nid < 0)
		return -errno;
	nt = (struct btf_type *)btf__type_by_id(dst, (__u32)nid);
	for (i = 0; (off = btf_type_str(nt, i)); i++) {
		*off = *btf_type_str((struct btf_type *)t, i);
		if ((err = str_off(dst, f, off)))
			return err;
	}
	return 0;
}

/*
 * The types in FD, TYPES bytes from offset 0, appended to DST one by one,
 * read CHUNK bytes at a time.  Their ids stay as they are but for F's
 * move: DST starts empty on D's base.
 */
static int add_types(struct btf *dst, struct from *f, int fd, uint32_t types)
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
			err = add_type(dst, f, t, sz, scratch);
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

int dedup_lb__run(struct dedup_lb *d, int fd, uint32_t types, uint32_t strs_len,
		  uint32_t from_strs, uint32_t from_types)
{
	struct from f = { .strs = from_strs, .types = from_types,
			  .base_types = btf__type_cnt(d->base), .len = strs_len };
	char *str = NULL;
	const void *data;
	struct btf *btf;
	uint32_t len;
	int err;

	btf = btf__new_empty_split(d->base);
	err = btf ? read_strings(fd, types, strs_len, &str, &f.map) : -errno;
	f.str = str;
	if (!err)
		err = add_types(btf, &f, fd, types);
	free(str);
	free(f.map);
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
