// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/kallsyms into a sorted table.  About 120K symbols on a typical
 * kernel: the table is 16 bytes each, names go into one arena that grows by
 * doubling (glibc's realloc remaps large blocks, so growth does not double
 * the peak), and the file is read through a 64 KB linebuf.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lib/array.h"
#include "lib/ksyms.h"
#include "lib/linebuf.h"

/* 16 bytes: the layout the memory budget is made of. */
struct ksym_ent {
	uint64_t addr;
	uint32_t name;		/* offset in the arena */
	char type;
	char pad[3];
};

struct ksyms {
	struct ksym_ent *ents;
	size_t nr, cap;
	char *names;
	size_t names_len, names_cap;
};

/* Past the last symbol, an address this far off is not "inside" it. */
#define KSYMS_MAX_GAP (1UL << 20)

void ksyms__free(struct ksyms *ks)
{
	if (!ks)
		return;
	free(ks->ents);
	free(ks->names);
	free(ks);
}

/* "ffffffff81000000 T _stext" or "... t name\t[module]". */
static int parse_line(char *line, uint64_t *addr, char *type, char **name, size_t *len)
{
	char *end, *p;

	errno = 0;
	*addr = strtoull(line, &end, 16);
	if (end == line || *end != ' ' || errno)
		return -EINVAL;
	p = end + 1;
	if (!*p || p[1] != ' ')
		return -EINVAL;
	*type = *p;
	p += 2;
	end = p + strcspn(p, "\t ");
	if (end == p)
		return -EINVAL;
	*name = p;
	*len = end - p;
	return 0;
}

static int add(struct ksyms *ks, uint64_t addr, char type, const char *name, size_t len)
{
	struct ksym_ent *e;

	if (ks->names_len + len + 1 > UINT32_MAX)
		return -E2BIG;
	if (array__grow(&ks->ents, &ks->cap, ks->nr + 1, sizeof(*ks->ents), 4096) ||
	    array__grow(&ks->names, &ks->names_cap, ks->names_len + len + 1, 1, 65536))
		return -ENOMEM;
	e = &ks->ents[ks->nr++];
	e->addr = addr;
	e->name = ks->names_len;
	e->type = type;
	memset(e->pad, 0, sizeof(e->pad));
	memcpy(ks->names + ks->names_len, name, len);
	ks->names[ks->names_len + len] = '\0';
	ks->names_len += len + 1;
	return 0;
}

static int cmp_ent(const void *a, const void *b)
{
	const struct ksym_ent *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* Same address: keep file order, which puts the canonical name first. */
	return x->name < y->name ? -1 : x->name > y->name;
}

/* Next non-empty kallsyms line, parsed: 1, 0 at the end, or -errno. */
static int next_sym(struct linebuf *lb, uint64_t *addr, char *type, char **name,
		    size_t *nlen)
{
	char *line;
	size_t len;
	int n;

	while ((n = linebuf__next(lb, &line, &len)) != 0) {
		if (n == -E2BIG)
			return -EINVAL;		/* no kallsyms line is that long */
		if (n < 0)
			return n;
		if (len)
			return parse_line(line, addr, type, name, nlen) ?: 1;
	}
	return 0;
}

static int read_all(struct ksyms *ks, struct linebuf *lb, const char *types,
		    bool *sorted, bool *nonzero)
{
	char *name, type;
	uint64_t addr, prev = 0;
	size_t nlen;
	int n, err;

	while ((n = next_sym(lb, &addr, &type, &name, &nlen)) > 0) {
		if (types && !strchr(types, type))
			continue;
		err = add(ks, addr, type, name, nlen);
		if (err)
			return err;
		if (addr)
			*nonzero = true;
		if (addr < prev)
			*sorted = false;
		prev = addr;
	}
	return n;
}

struct ksyms *ksyms__load(const char *path, const char *types)
{
	char buf[65536];
	struct linebuf lb;
	struct ksyms *ks;
	bool sorted = true, nonzero = false;
	int err;

	ks = calloc(1, sizeof(*ks));
	if (!ks) {
		errno = ENOMEM;
		return NULL;
	}
	err = linebuf__open(&lb, path ? path : "/proc/kallsyms", buf, sizeof(buf));
	if (err)
		goto fail;
	err = read_all(ks, &lb, types, &sorted, &nonzero);
	linebuf__close(&lb);
	if (err)
		goto fail;
	err = -EPERM;
	if (ks->nr && !nonzero)
		goto fail;
	if (!sorted)
		qsort(ks->ents, ks->nr, sizeof(*ks->ents), cmp_ent);
	return ks;
fail:
	ksyms__free(ks);
	errno = -err;
	return NULL;
}

size_t ksyms__count(const struct ksyms *ks)
{
	return ks->nr;
}

size_t ksyms__mem_bytes(const struct ksyms *ks, size_t *names)
{
	if (names)
		*names = ks->names_len;
	return ks->nr * sizeof(*ks->ents) + ks->names_len;
}

static void fill(const struct ksyms *ks, const struct ksym_ent *e, struct ksym *sym)
{
	sym->name = ks->names + e->name;
	sym->addr = e->addr;
	sym->type = e->type;
}

int ksyms__resolve(const struct ksyms *ks, uint64_t addr, struct ksym *sym,
		   uint64_t *off)
{
	size_t lo = 0, hi = ks->nr;

	/* Find the first entry above ADDR; the one before it holds ADDR. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ks->ents[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return -ENOENT;
	/* Among symbols at the same address, the first is the canonical one. */
	hi = lo - 1;
	while (hi > 0 && ks->ents[hi - 1].addr == ks->ents[hi].addr)
		hi--;
	if (lo == ks->nr && addr - ks->ents[hi].addr > KSYMS_MAX_GAP)
		return -ENOENT;
	fill(ks, &ks->ents[hi], sym);
	*off = addr - ks->ents[hi].addr;
	return 0;
}

int ksyms__find(const struct ksyms *ks, const char *name, uint64_t *addr)
{
	size_t i;

	for (i = 0; i < ks->nr; i++) {
		if (!strcmp(ks->names + ks->ents[i].name, name)) {
			*addr = ks->ents[i].addr;
			return 0;
		}
	}
	return -ENOENT;
}

int ksyms__at(const struct ksyms *ks, size_t i, struct ksym *sym, uint64_t *end)
{
	size_t j;

	if (i >= ks->nr)
		return -ENOENT;
	fill(ks, &ks->ents[i], sym);
	for (j = i + 1; j < ks->nr && ks->ents[j].addr == ks->ents[i].addr; j++)
		;
	*end = j < ks->nr ? ks->ents[j].addr : ks->ents[i].addr + 1;
	return 0;
}

/*
 * ksyms__load_addrs: a symbol at A is a candidate for every wanted address
 * at or above A; store it only at the first such address (slot j), keeping
 * the highest A per slot.  The symbol containing wanted[k] is then the
 * highest candidate over slots 0..k.  One binary search per line, no
 * matter how the file is ordered.
 */
#define KSYMS_NAME_MAX 512

struct slot {
	uint64_t addr;
	char type;
	bool used;
	char name[KSYMS_NAME_MAX];
};

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static size_t lower_bound(const uint64_t *v, size_t n, uint64_t x)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void slot_set(struct slot *s, uint64_t addr, char type, const char *name, size_t len)
{
	if (len >= KSYMS_NAME_MAX)
		len = KSYMS_NAME_MAX - 1;
	s->addr = addr;
	s->type = type;
	s->used = true;
	memcpy(s->name, name, len);
	s->name[len] = '\0';
}

struct want {
	uint64_t *addrs;
	size_t n;
	struct slot *slots;
	const char *const *names;
	size_t nr_names;
};

static int scan_wanted(struct ksyms *ks, struct linebuf *lb, struct want *w, bool *nonzero)
{
	char *name, type;
	uint64_t addr;
	size_t nlen, i, j;
	int n, err;

	while ((n = next_sym(lb, &addr, &type, &name, &nlen)) > 0) {
		if (addr)
			*nonzero = true;
		for (i = 0; i < w->nr_names; i++)
			if (strlen(w->names[i]) == nlen && !memcmp(w->names[i], name, nlen) &&
			    (err = add(ks, addr, type, name, nlen)))
				return err;
		j = lower_bound(w->addrs, w->n, addr);
		if (j < w->n && (!w->slots[j].used || w->slots[j].addr < addr))
			slot_set(&w->slots[j], addr, type, name, nlen);
	}
	return n;
}

static int keep_best(struct ksyms *ks, struct want *w)
{
	const struct slot *best = NULL;
	size_t k;
	int err;

	for (k = 0; k < w->n; k++) {
		const struct slot *s = &w->slots[k];

		if (s->used && (!best || s->addr > best->addr)) {
			best = s;
			err = add(ks, s->addr, s->type, s->name, strlen(s->name));
			if (err)
				return err;
		}
	}
	return 0;
}

struct ksyms *ksyms__load_addrs(const char *path, const uint64_t *addrs, size_t n,
				const char *const *names, size_t nr_names)
{
	struct want w = { NULL, 0, NULL, names, nr_names };
	char buf[65536];
	struct linebuf lb;
	struct ksyms *ks;
	bool nonzero = false;
	size_t i;
	int err = -ENOMEM;

	ks = calloc(1, sizeof(*ks));
	w.addrs = malloc((n ? n : 1) * sizeof(*w.addrs));
	if (!ks || !w.addrs)
		goto fail;
	memcpy(w.addrs, addrs, n * sizeof(*addrs));
	qsort(w.addrs, n, sizeof(*w.addrs), cmp_u64);
	for (i = 0; i < n; i++)
		if (!w.n || w.addrs[w.n - 1] != w.addrs[i])
			w.addrs[w.n++] = w.addrs[i];
	w.slots = calloc(w.n ? w.n : 1, sizeof(*w.slots));
	if (!w.slots)
		goto fail;
	err = linebuf__open(&lb, path ? path : "/proc/kallsyms", buf, sizeof(buf));
	if (err)
		goto fail;
	err = scan_wanted(ks, &lb, &w, &nonzero);
	linebuf__close(&lb);
	err = err ?: keep_best(ks, &w);
	if (err)
		goto fail;
	err = -EPERM;
	if (!nonzero && (ks->nr || w.n))
		goto fail;
	if (ks->nr > 1)		/* ents is NULL when empty: qsort must not see it */
		qsort(ks->ents, ks->nr, sizeof(*ks->ents), cmp_ent);
	free(w.addrs);
	free(w.slots);
	return ks;
fail:
	free(w.addrs);
	free(w.slots);
	ksyms__free(ks);
	errno = -err;
	return NULL;
}

struct ksyms *ksyms__new(void)
{
	return calloc(1, sizeof(struct ksyms));
}

int ksyms__add(struct ksyms *ks, uint64_t addr, char type, const char *name)
{
	return add(ks, addr, type, name, strlen(name));
}

void ksyms__sort(struct ksyms *ks)
{
	if (ks->nr > 1)
		qsort(ks->ents, ks->nr, sizeof(*ks->ents), cmp_ent);
}
