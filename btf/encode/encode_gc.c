// SPDX-License-Identifier: GPL-2.0
/*
 * Dropping types from the merged result, in one rebuild of it.
 *
 * The prototypes of folded FUNCs.  When a later batch defines a function
 * an earlier one already has, its FUNC is folded into the first (see
 * encode.c), which leaves that batch's prototype referenced by nothing.
 * pahole never builds it, so it goes: a FUNC_PROTO nothing refers to whose
 * parameters have names (only a function's prototype has named
 * parameters; a DWARF subroutine type's do not).
 *
 * The FUNCs of saved functions whose definitions disagree, with what only
 * they used.  Both in one rebuild: each rebuild copies the whole result
 * (50 ms on a 6.12 vmlinux), after the last batch, when nothing runs beside it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>

#include "btf/encode/encode_int.h"
#include "btf/encode/type_bytes_int.h"

void enc_visit_ids(struct btf_type *t, enc_id_fn fn, void *arg)
{
	__u32 *id;
	size_t i;

	for (i = 0; (id = btf_type_id(t, i)); i++)
		fn(id, arg);
}

static void mark(uint32_t *id, void *arg)
{
	((uint8_t *)arg)[*id] = 1;
}

static void remap(uint32_t *id, void *arg)
{
	*id = ((const __u32 *)arg)[*id];
}

static bool orphan_proto(const struct btf_type *t, const uint8_t *refd, __u32 id)
{
	return btf_is_func_proto(t) && !refd[id] && btf_vlen(t) &&
	       btf_params(t)[0].name_off;
}

/*
 * Copy OLD's own types that MAP keeps (map[id] = new id, 0: drop) into a
 * new BTF on BASE, their references renumbered.
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
		enc_visit_ids(t, remap, map);
	}
	btf__free(old);
	*pbtf = nb;
	return 0;
}

/* Mark in REFD what the types of [START, N) not GONE refer to. */
static void mark_refs(const struct btf *b, __u32 start, __u32 n, const uint8_t *gone,
		      uint8_t *refd)
{
	__u32 id;

	memset(refd, 0, n);
	for (id = start; id < n; id++)
		if (!gone || !gone[id])
			enc_visit_ids((struct btf_type *)btf__type_by_id(b, id), mark, refd);
}

int enc_gc(struct btf **pbtf, const struct btf *base, const uint8_t *drop, bool protos)
{
	struct btf *old = *pbtf;
	__u32 n = btf__type_cnt(old), start = base ? btf__type_cnt(base) : 1;
	__u32 id, next = start, *map = calloc(n, sizeof(*map));
	uint8_t *refd = malloc(n), *gone = calloc(n, 1);
	const struct btf_type *t;
	int err = -ENOMEM;

	if (!map || !refd || !gone)
		goto out;
	/* Prototypes nothing refers to, left by folded FUNCs. */
	if (protos) {
		mark_refs(old, start, n, NULL, refd);
		for (id = start; id < n; id++)
			gone[id] = orphan_proto(btf__type_by_id(old, id), refd, id);
	}
	/* Dropped FUNCs and the DECL_TAGs on them; then what only they used. */
	if (drop) {
		for (id = start; id < n; id++) {
			t = btf__type_by_id(old, id);
			gone[id] |= drop[id] ||
				    (btf_is_decl_tag(t) && t->type < n && drop[t->type]);
		}
		mark_refs(old, start, n, gone, refd);
		for (id = start; id < n; id++) {
			t = btf__type_by_id(old, id);
			if (drop[id] && !refd[t->type] && t->type >= start &&
			    btf_is_func_proto(btf__type_by_id(old, t->type)))
				gone[t->type] = 1;
		}
	}
	for (id = 0; id < start; id++)
		map[id] = id;
	for (id = start; id < n; id++)
		map[id] = gone[id] ? 0 : next++;
	err = next == n ? 0 : rebuild(pbtf, base, map, start);
out:
	free(gone);
	free(refd);
	free(map);
	return err;
}
