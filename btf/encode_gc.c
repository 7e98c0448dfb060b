// SPDX-License-Identifier: GPL-2.0
/*
 * Dropping the prototypes of folded FUNCs.  When a later batch defines a
 * function an earlier one already has, its FUNC is folded into the first
 * (see encode.c), which leaves that batch's prototype referenced by
 * nothing.  pahole never builds it, so it goes: a FUNC_PROTO nothing
 * refers to whose parameters have names (only a function's prototype has
 * named parameters; a DWARF subroutine type's do not).
 */
#include <errno.h>
#include <stdlib.h>

#include <bpf/btf.h>

#include "btf/encode_int.h"

typedef void (*id_fn)(__u32 *id, void *arg);

/* Call FN on every type id T refers to. */
static void visit_ids(struct btf_type *t, id_fn fn, void *arg)
{
	int i, n = btf_vlen(t);

	switch (btf_kind(t)) {
	case BTF_KIND_PTR: case BTF_KIND_TYPEDEF: case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST: case BTF_KIND_RESTRICT: case BTF_KIND_FUNC:
	case BTF_KIND_VAR: case BTF_KIND_TYPE_TAG: case BTF_KIND_DECL_TAG:
		fn(&t->type, arg);
		break;
	case BTF_KIND_ARRAY:
		fn(&btf_array(t)->type, arg);
		fn(&btf_array(t)->index_type, arg);
		break;
	case BTF_KIND_STRUCT: case BTF_KIND_UNION:
		for (i = 0; i < n; i++)
			fn(&btf_members(t)[i].type, arg);
		break;
	case BTF_KIND_FUNC_PROTO:
		fn(&t->type, arg);
		for (i = 0; i < n; i++)
			fn(&btf_params(t)[i].type, arg);
		break;
	case BTF_KIND_DATASEC:
		for (i = 0; i < n; i++)
			fn(&btf_var_secinfos(t)[i].type, arg);
		break;
	default:
		break;
	}
}

static void mark(__u32 *id, void *arg)
{
	((uint8_t *)arg)[*id] = 1;
}

static void remap(__u32 *id, void *arg)
{
	*id = ((const __u32 *)arg)[*id];
}

static bool orphan_proto(const struct btf_type *t, const uint8_t *refd, __u32 id)
{
	return btf_is_func_proto(t) && !refd[id] && btf_vlen(t) &&
	       btf_params(t)[0].name_off;
}

int enc_gc_protos(struct btf **pbtf)
{
	struct btf *old = *pbtf, *nb = NULL;
	__u32 n = btf__type_cnt(old), id, next = 1, *map = NULL;
	uint8_t *refd = calloc(n, 1);
	struct btf_type *t;
	int err = -ENOMEM;

	map = calloc(n, sizeof(*map));
	if (!refd || !map)
		goto out;
	for (id = 1; id < n; id++)
		visit_ids((struct btf_type *)btf__type_by_id(old, id), mark, refd);
	for (id = 1; id < n; id++)
		map[id] = orphan_proto(btf__type_by_id(old, id), refd, id) ? 0 : next++;
	err = 0;
	if (next == n)
		goto out;
	nb = btf__new_empty();
	err = -ENOMEM;
	if (!nb)
		goto out;
	for (id = 1; id < n; id++) {
		if (!map[id])
			continue;
		err = btf__add_type(nb, old, btf__type_by_id(old, id));
		if (err < 0)
			goto out;
		t = (struct btf_type *)btf__type_by_id(nb, err);
		visit_ids(t, remap, map);
	}
	btf__free(old);
	*pbtf = nb;
	nb = NULL;
	err = 0;
out:
	btf__free(nb);
	free(map);
	free(refd);
	return err;
}

static void mark_from(struct btf_type *t, uint8_t *refd)
{
	visit_ids(t, mark, refd);
}

/*
 * Copy OLD's own types that MAP keeps (map[id - start] = new id, 0: drop)
 * into a new BTF on BASE, their references renumbered.
 */
static int rebuild(struct btf **pbtf, const struct btf *base, __u32 *map, __u32 start)
{
	struct btf *old = *pbtf, *nb;
	__u32 n = btf__type_cnt(old), id;
	struct btf_type *t;
	int err;

	nb = base ? btf__new_empty_split((struct btf *)base) : btf__new_empty();
	if (!nb)
		return -ENOMEM;
	for (id = start; id < n; id++) {
		if (!map[id])
			continue;
		err = btf__add_type(nb, old, btf__type_by_id(old, id));
		if (err < 0) {
			btf__free(nb);
			return err;
		}
		t = (struct btf_type *)btf__type_by_id(nb, err);
		visit_ids(t, remap, map);
	}
	btf__free(old);
	*pbtf = nb;
	return 0;
}

int enc_gc_funcs(struct btf **pbtf, const struct btf *base, const uint8_t *drop)
{
	struct btf *old = *pbtf;
	__u32 n = btf__type_cnt(old), start = base ? btf__type_cnt(base) : 1;
	__u32 id, next = start, *map = calloc(n, sizeof(*map));
	uint8_t *refd = calloc(n, 1), *gone = calloc(n, 1);
	const struct btf_type *t;
	int err = -ENOMEM;

	if (!map || !refd || !gone)
		goto out;
	/* Dropped FUNCs and the DECL_TAGs on them go; then what only they used. */
	for (id = start; id < n; id++) {
		t = btf__type_by_id(old, id);
		gone[id] = drop[id] || (btf_is_decl_tag(t) && t->type < n && drop[t->type]);
	}
	for (id = start; id < n; id++)
		if (!gone[id])
			mark_from((struct btf_type *)btf__type_by_id(old, id), refd);
	for (id = start; id < n; id++) {
		t = btf__type_by_id(old, id);
		if (drop[id] && !refd[t->type] && t->type >= start &&
		    btf_is_func_proto(btf__type_by_id(old, t->type)))
			gone[t->type] = 1;
	}
	for (id = 0; id < start; id++)
		map[id] = id;
	for (id = start; id < n; id++)
		map[id] = gone[id] ? 0 : next++;
	err = rebuild(pbtf, base, map, start);
out:
	free(gone);
	free(refd);
	free(map);
	return err;
}
