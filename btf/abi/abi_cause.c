// SPDX-License-Identifier: GPL-2.0
/*
 * `frugal btf abi`'s report by cause.  When one widely reached struct
 * changes (6.1.0-53 -> 54: struct dst_entry, struct net_device), 5,600
 * symbols change with it, and a list by symbol buries the few changes
 * that are the news.  A cause is a changed type that is no mere follower
 * (abi__find_causes: its size and offsets only follow a type it embeds),
 * told once: its own changes, how many symbols reach it, the first few
 * of them by name, the shortest path from one, and the types that follow
 * it.  In a tree, the same type changed the same way in several objects
 * (a vmlinux struct that each module meets on its base) is one cause.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "btf/abi/abi_int.h"
#include "lib/array.h"

static const struct abi *sort_abi;	/* qsort has no context argument */

static const char *bare(const struct abi_node *n)
{
	return n->name + n->bare;
}

/* Same name past the object, same changes: one cause.  0 when so. */
static int cmp_change(const struct abi *abi, const struct abi_node *a, const struct abi_node *b)
{
	int32_t x = a->ch_head, y = b->ch_head;
	int c;

	for (; x >= 0 && y >= 0; x = abi->ch[x].next, y = abi->ch[y].next) {
		c = strcmp(abi->ch[x].text, abi->ch[y].text);
		if (c)
			return c;
	}
	return (x >= 0) - (y >= 0);
}

static int cmp_same(const struct abi *abi, uint32_t x, uint32_t y)
{
	int c = strcmp(bare(&abi->nodes[x]), bare(&abi->nodes[y]));

	return c ? c : cmp_change(abi, &abi->nodes[x], &abi->nodes[y]);
}

static int cmp_node(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	int c = cmp_same(sort_abi, a, b);

	return c ? c : (a > b) - (a < b);
}

static int cmp_str(const void *x, const void *y)
{
	return strcmp(*(const char *const *)x, *(const char *const *)y);
}

static int cmp_cause(const void *x, const void *y)
{
	const struct abi_cause *a = x, *b = y;

	if (a->nsyms != b->nsyms)
		return a->nsyms < b->nsyms ? 1 : -1;
	return cmp_node(&a->node, &b->node);
}

/* The cause a follower's chain ends at; -1 on a chain too long (crafted BTF). */
static int32_t root_of(const struct abi *abi, uint32_t node)
{
	size_t steps;

	for (steps = 0; steps <= abi->nn; steps++) {
		if (abi->nodes[node].follows < 0)
			return (int32_t)node;
		node = (uint32_t)abi->nodes[node].follows;
	}
	return -1;
}

/* Cause C's symbols, over its objects' nodes V[0..N): how many, the first by name. */
static int name_symbols(const struct abi *abi, struct abi_cause *c, const uint32_t *v, size_t n)
{
	const char **all;
	size_t i, k, m = 0;

	for (i = 0; i < n; i++)
		c->nsyms += abi->nodes[v[i]].nsyms;
	all = malloc((c->nsyms ? c->nsyms : 1) * sizeof(*all));
	if (!all)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		for (k = 0; k < abi->nodes[v[i]].nsyms; k++)
			all[m++] = abi->syms[abi->nodes[v[i]].syms[k]].name;
	qsort(all, m, sizeof(*all), cmp_str);
	for (c->nfirst = 0; c->nfirst < m && c->nfirst < ABI_CAUSE_NAMES; c->nfirst++)
		c->first[c->nfirst] = all[c->nfirst];
	free(all);
	return 0;
}

/* One cause of the nodes V[0..N), alike; GROUP marks them as its. */
static int add_cause(struct abi *abi, const uint32_t *v, size_t n, int32_t *group, size_t *cap)
{
	struct abi_cause *c;
	size_t i;

	if (array__grow(&abi->causes, cap, abi->ncauses + 1, sizeof(*abi->causes), 16))
		return -ENOMEM;
	c = &abi->causes[abi->ncauses];
	memset(c, 0, sizeof(*c));
	c->node = c->path_node = v[0];
	c->nobjects = n;
	c->incompat = abi->nodes[v[0]].incompat;
	for (i = 0; i < n; i++) {
		const struct abi_node *a = &abi->nodes[v[i]], *p = &abi->nodes[c->path_node];

		group[v[i]] = (int32_t)abi->ncauses;
		if (a->path && (!p->path || a->path_depth < p->path_depth))
			c->path_node = v[i];
	}
	abi->ncauses++;
	return name_symbols(abi, c, v, n);
}

/* Each follower's bare name under its cause, once. */
static int add_followers(struct abi *abi, const int32_t *group)
{
	struct abi_cause *c;
	size_t i, k, m;
	int32_t r;

	for (i = 0; i < abi->nn; i++) {
		if (abi->nodes[i].is_sym || abi->nodes[i].follows < 0 || !abi->nodes[i].nchanges)
			continue;
		r = root_of(abi, (uint32_t)i);
		if (r < 0 || group[r] < 0)
			continue;
		c = &abi->causes[group[r]];
		if (array__grow(&c->moves, &c->moves_cap, c->nmoves + 1, sizeof(*c->moves), 4))
			return -ENOMEM;
		c->moves[c->nmoves++] = bare(&abi->nodes[i]);
	}
	for (i = 0; i < abi->ncauses; i++) {
		c = &abi->causes[i];
		if (c->nmoves)	/* qsort's array may not be NULL, even empty */
			qsort(c->moves, c->nmoves, sizeof(*c->moves), cmp_str);
		for (k = m = 0; k < c->nmoves; k++)
			if (!m || strcmp(c->moves[m - 1], c->moves[k]))
				c->moves[m++] = c->moves[k];
		c->nmoves = m;
	}
	return 0;
}

int abi__causes(struct abi *abi)
{
	uint32_t *v = malloc((abi->nn ? abi->nn : 1) * sizeof(*v));
	int32_t *group = malloc((abi->nn ? abi->nn : 1) * sizeof(*group));
	size_t i, k, n = 0, cap = 0;
	int err = 0;

	if (!v || !group) {
		err = -ENOMEM;
		goto cleanup;
	}
	for (i = 0; i < abi->nn; i++) {
		group[i] = -1;
		if (!abi->nodes[i].is_sym && abi->nodes[i].nchanges && abi->nodes[i].follows < 0)
			v[n++] = (uint32_t)i;
	}
	sort_abi = abi;
	qsort(v, n, sizeof(*v), cmp_node);
	for (i = 0; !err && i < n; i = k) {
		for (k = i + 1; k < n && !cmp_same(abi, v[i], v[k]); k++)
			;
		err = add_cause(abi, v + i, k - i, group, &cap);
	}
	if (!err)
		err = add_followers(abi, group);
	if (abi->ncauses)
		qsort(abi->causes, abi->ncauses, sizeof(*abi->causes), cmp_cause);
cleanup:
	free(group);
	free(v);
	return err;
}
