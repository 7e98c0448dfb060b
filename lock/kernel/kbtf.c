// SPDX-License-Identifier: GPL-2.0
/*
 * Streaming reads of raw BTF: one pass over the string section to learn the
 * offsets of the names we want, then passes over the type section, each
 * record decoded in place.  Anonymous struct/union members are followed
 * by one more pass per level of nesting (mm_struct keeps mmap_lock in one).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <linux/btf.h>

#include "lib/array.h"
#include "lib/io.h"
#include "lock/kernel/kernel.h"

#define KBTF_BUF	65536
#define KBTF_NAMES	128	/* -l's object facts ask about 100 */
#define KBTF_NEST	4	/* levels of anonymous members followed */

struct kbtf {
	int fd;
	const char *map;	/* the whole file, when the kernel lets us map it */
	size_t map_len;
	struct btf_header hdr;
	char *buf;
	size_t cap;
	/* wanted names and their string offsets (0: not found) */
	const char *names[KBTF_NAMES];
	size_t name_len[KBTF_NAMES];
	uint32_t name_off[KBTF_NAMES];
	int nr_names;
};

static int read_at(struct kbtf *b, void *p, size_t len, off_t off)
{
	int err;

	if (b->map) {
		if ((size_t)off > b->map_len || len > b->map_len - off)
			return -EINVAL;
		memcpy(p, b->map + off, len);
		return 0;
	}
	err = io__pread_full(b->fd, p, len, off);
	return err == -ENODATA ? -EINVAL : err;	/* the file ended first: not BTF */
}

static int want_name(struct kbtf *b, const char *name)
{
	int i;

	for (i = 0; i < b->nr_names; i++)
		if (!strcmp(b->names[i], name))
			return i;
	if (b->nr_names == KBTF_NAMES)
		return -E2BIG;
	b->names[b->nr_names] = name;
	b->name_len[b->nr_names] = strlen(name);
	b->name_off[b->nr_names] = 0;
	return b->nr_names++;
}

/*
 * The buffer holds a window [pos, pos + *have) of a LEN-byte region at file
 * offset BASE: fill the rest of the buffer from the region.
 */
static int fill_window(struct kbtf *b, off_t base, size_t len, off_t pos, size_t *have,
		       const char **w)
{
	size_t want = b->cap - *have, left = len - pos - *have;
	int err;

	if (b->map) {
		/* Mapped: the window is the rest of the region, in place. */
		if ((size_t)base > b->map_len || len > b->map_len - base)
			return -EINVAL;
		*w = b->map + base + pos;
		*have = len - pos;
		return 0;
	}
	if (want > left)
		want = left;
	err = read_at(b, b->buf + *have, want, base + pos + *have);
	if (!err)
		*have += want;
	*w = b->buf;
	return err;
}

/* Drop the first USED bytes of a buffered window (nothing to do in place). */
static void slide_window(struct kbtf *b, size_t used, size_t have)
{
	if (!b->map)
		memmove(b->buf, b->buf + used, have - used);
}

static int find_names(struct kbtf *b)
{
	off_t base = b->hdr.hdr_len + b->hdr.str_off, pos = 0;
	size_t have = 0, start;
	const char *w;
	int i, err;

	while (pos + (off_t)have < b->hdr.str_len) {
		err = fill_window(b, base, b->hdr.str_len, pos, &have, &w);
		if (err)
			return err;
		for (start = 0; ; ) {
			const char *nul = memchr(w + start, '\0', have - start);
			size_t len;

			if (!nul)
				break;
			len = nul - (w + start);
			for (i = 0; i < b->nr_names; i++)
				if (b->name_len[i] == len && !b->name_off[i] &&
				    !memcmp(w + start, b->names[i], len))
					b->name_off[i] = pos + start;
			start = nul + 1 - w;
		}
		if (start == 0)
			return -EINVAL;		/* a string longer than the buffer */
		slide_window(b, start, have);
		pos += start;
		have -= start;
	}
	return 0;
}

size_t kbtf__extra_size(const struct btf_type *t)
{
	uint32_t vlen = BTF_INFO_VLEN(t->info);

	switch (BTF_INFO_KIND(t->info)) {
	case BTF_KIND_INT:
	case BTF_KIND_VAR:
	case BTF_KIND_DECL_TAG:
		return 4;
	case BTF_KIND_ARRAY:
		return sizeof(struct btf_array);
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		return vlen * sizeof(struct btf_member);
	case BTF_KIND_ENUM:
		return vlen * sizeof(struct btf_enum);
	case BTF_KIND_FUNC_PROTO:
		return vlen * sizeof(struct btf_param);
	case BTF_KIND_DATASEC:
		return vlen * sizeof(struct btf_var_secinfo);
	case 19: /* BTF_KIND_ENUM64 */
		return vlen * 12;
	default:
		return 0;
	}
}

typedef int (*kbtf_fn)(uint32_t id, const struct btf_type *t, void *ctx);

/* Call fn for every type, in id order, with its whole record in memory. */
static int for_each_type(struct kbtf *b, kbtf_fn fn, void *ctx)
{
	off_t base = b->hdr.hdr_len + b->hdr.type_off, pos = 0;
	size_t have = 0, used, rec;
	uint32_t id = 1;
	const char *w;
	int err;

	while (pos < b->hdr.type_len) {
		err = fill_window(b, base, b->hdr.type_len, pos, &have, &w);
		if (err)
			return err;
		for (used = 0; have - used >= sizeof(struct btf_type); used += rec, id++) {
			const struct btf_type *t = (const void *)(w + used);

			rec = sizeof(*t) + kbtf__extra_size(t);
			if (rec > have - used)
				break;
			err = fn(id, t, ctx);
			if (err)
				return err > 0 ? 0 : err;
		}
		if (!used) {
			/* One record larger than the buffer (or cut short in the
			 * file): grow it. */
			if (b->map || b->cap >= b->hdr.type_len + sizeof(struct btf_type))
				return -EINVAL;
			if (array__grow(&b->buf, &b->cap, b->cap + 1, 1, 0))
				return -ENOMEM;
			continue;
		}
		slide_window(b, used, have);
		pos += used;
		have -= used;
	}
	return 0;
}

/* Per query: the struct (or anonymous members) being searched this pass. */
struct qstate {
	int name, member;		/* indexes into names[] */
	uint32_t look[8];		/* anonymous member type ids to search */
	int32_t look_off[8];
	int nr_look;
	uint32_t next[8];
	int32_t next_off[8];
	int nr_next;
};

struct pass {
	struct kbtf *b;
	struct kbtf_query *q;
	struct qstate *s;
	int n, first;
};

static void scan_members(struct pass *p, int qi, const struct btf_type *t, int32_t base)
{
	const struct btf_member *m = (const void *)(t + 1);
	struct qstate *s = &p->s[qi];
	uint32_t i, vlen = BTF_INFO_VLEN(t->info);

	for (i = 0; i < vlen; i++) {
		uint32_t bits = BTF_INFO_KFLAG(t->info) ? m[i].offset & 0xffffff : m[i].offset;

		if (m[i].name_off && m[i].name_off == p->b->name_off[s->member]) {
			p->q[qi].offset = base + bits / 8;
			return;
		}
		if (!m[i].name_off && s->nr_next < 8) {
			s->next[s->nr_next] = m[i].type;
			s->next_off[s->nr_next++] = base + bits / 8;
		}
	}
}

static int visit(uint32_t id, const struct btf_type *t, void *ctx)
{
	struct pass *p = ctx;
	int kind = BTF_INFO_KIND(t->info), qi, j;

	for (qi = 0; qi < p->n; qi++) {
		struct kbtf_query *q = &p->q[qi];
		struct qstate *s = &p->s[qi];

		if (!q->member) {
			if (p->first && kind == (q->kind ? q->kind : BTF_KIND_TYPEDEF) && !q->id &&
			    t->name_off == p->b->name_off[s->name]) {
				q->id = id;
				if (kind == BTF_KIND_STRUCT || kind == BTF_KIND_UNION)
					q->size = t->size;
			}
			continue;
		}
		if (q->offset >= 0 || (kind != BTF_KIND_STRUCT && kind != BTF_KIND_UNION))
			continue;
		if (p->first && t->name_off && t->name_off == p->b->name_off[s->name])
			scan_members(p, qi, t, 0);
		for (j = 0; !p->first && j < s->nr_look; j++)
			if (s->look[j] == id)
				scan_members(p, qi, t, s->look_off[j]);
	}
	return 0;
}

static int run_passes(struct kbtf *b, struct kbtf_query *q, struct qstate *s, int n)
{
	struct pass p = { b, q, s, n, 1 };
	int level, i, err, more;

	for (level = 0; level < KBTF_NEST; level++) {
		err = for_each_type(b, visit, &p);
		if (err)
			return err;
		for (i = 0, more = 0; i < n; i++) {
			memcpy(s[i].look, s[i].next, sizeof(s[i].next));
			memcpy(s[i].look_off, s[i].next_off, sizeof(s[i].next_off));
			s[i].nr_look = q[i].offset < 0 ? s[i].nr_next : 0;
			s[i].nr_next = 0;
			more |= s[i].nr_look;
		}
		if (!more)
			break;
		p.first = 0;
	}
	return 0;
}

/*
 * Since 6.16 the kernel maps its BTF read-only into the process (PFN map:
 * no page is copied and none counts as ours); sysfs reads would otherwise
 * come a page per call.  Without it, read.
 */
static void map_file(struct kbtf *b)
{
	struct stat st;
	void *p;

	if (fstat(b->fd, &st) || st.st_size <= 0)
		return;
	p = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, b->fd, 0);
	if (p == MAP_FAILED)
		return;
	b->map = p;
	b->map_len = st.st_size;
}

int kbtf__resolve(const char *path, struct kbtf_query *q, int n)
{
	struct kbtf b = { .fd = -1 };
	struct qstate *s = calloc(n ? n : 1, sizeof(*s));
	int i, err = -ENOMEM;

	b.cap = KBTF_BUF;
	b.buf = malloc(b.cap);
	if (!s || !b.buf)
		goto out;
	for (i = 0; i < n; i++) {
		q[i].id = 0;
		q[i].offset = -1;
		q[i].size = 0;
		s[i].name = want_name(&b, q[i].name);
		s[i].member = q[i].member ? want_name(&b, q[i].member) : 0;
		err = s[i].name < 0 || s[i].member < 0 ? -E2BIG : 0;
		if (err)
			goto out;
	}
	b.fd = open(path ? path : "/sys/kernel/btf/vmlinux", O_RDONLY | O_CLOEXEC);
	err = b.fd < 0 ? -errno : 0;
	if (err)
		goto out;
	map_file(&b);
	err = read_at(&b, &b.hdr, sizeof(b.hdr), 0);
	if (err)
		goto out;
	err = -EINVAL;
	if (b.hdr.magic != BTF_MAGIC || b.hdr.hdr_len < sizeof(b.hdr))
		goto out;
	err = find_names(&b);
	if (!err)
		err = run_passes(&b, q, s, n);
out:
	if (b.map)
		munmap((void *)b.map, b.map_len);
	if (b.fd >= 0)
		close(b.fd);
	free(b.buf);
	free(s);
	return err;
}
