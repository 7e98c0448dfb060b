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

static int grow(void **p, size_t *cap, size_t need, size_t unit, size_t first)
{
	size_t n = *cap ? *cap : first;
	void *q;

	while (n < need)
		n *= 2;
	if (n == *cap)
		return 0;
	q = realloc(*p, n * unit);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = n;
	return 0;
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
	if (grow((void **)&ks->ents, &ks->cap, ks->nr + 1, sizeof(*ks->ents), 4096) ||
	    grow((void **)&ks->names, &ks->names_cap, ks->names_len + len + 1, 1, 65536))
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

static int read_all(struct ksyms *ks, struct linebuf *lb, const char *types,
		    bool *sorted, bool *nonzero)
{
	char *line, *name, type;
	uint64_t addr, prev = 0;
	size_t len, nlen;
	int n, err;

	while ((n = linebuf__next(lb, &line, &len)) != 0) {
		if (n == -E2BIG)
			return -EINVAL;		/* no kallsyms line is that long */
		if (n < 0)
			return n;
		if (!len)
			continue;
		err = parse_line(line, &addr, &type, &name, &nlen);
		if (err)
			return err;
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
	return 0;
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
