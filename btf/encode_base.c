// SPDX-License-Identifier: GPL-2.0
/*
 * A module's base BTF, pruned to what the module can meet.
 *
 * Split BTF costs libbpf the same work on the base for every module:
 * the first string added to a split BTF makes the base modifiable, which
 * copies its types and indexes every one of its strings (a hash entry,
 * malloc'd, per string), and dedup hashes every base type into its table
 * (another malloc each).  On Debian 13's 6.12 vmlinux (108,000 types,
 * 2.3 MB of strings) that is 190 of the 208 million instructions a small
 * module takes, for pahole 1.30 as for us: the base, not the module, is
 * what a kernel build's 1,100 module encodes spend their time on.
 *
 * Yet dedup can only match a module type to a base type of the same name,
 * and libbpf compares names by string offset once the module's strings
 * are mapped onto the base's.  A base string no module string equals is
 * never found, a named base type with such a name is never matched, and
 * neither is an anonymous type that refers to one (see drops() below).
 * The pruned base keeps every type id and every string offset of the real
 * one:
 *  - a type that can never be matched becomes an empty DATASEC (12 bytes;
 *    dedup never hashes a DATASEC);
 *  - each run of strings the module does not have becomes one string of
 *    0x01 bytes of the same length, so the strings libbpf indexes are the
 *    module's plus one per run.
 * libbpf then does the same dedup on far less, and the module's BTF, which
 * refers to the base only by type id and string offset, is the same bytes.
 *
 * The module's names are every string its DWARF holds (lib/dwarf_scan:
 * names, but also producers and file names, a superset that costs only a
 * little pruning), plus the strings the encoder makes itself (section
 * names, the kfunc tags), kept as 64-bit hashes.  A string the module's
 * BTF ends up with that is none of these might be one the base has and
 * the pruning filled: enc_base__check() finds any such string, and the
 * encoder then starts again on the whole base.  tests/btf/kernel612.sh
 * compares the two ways byte for byte.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>

#include "btf/encode_int.h"
#include "btf/type_bytes.h"
#include "lib/array.h"
#include "lib/dwarf_scan.h"
#include "lib/idxmap.h"

#define FILLER 0x01

/*
 * A 64-bit hash of a string of length N: 8 bytes at a time (a byte-at-a-
 * time FNV-1a was a quarter of the pruning's cost over a vmlinux's 2.3 MB
 * of strings).  Never 0, which marks an empty slot.
 */
static uint64_t str_hash(const char *s, size_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15ull ^ n, w;
	size_t i;

	for (i = 0; i + 8 <= n; i += 8) {
		memcpy(&w, s + i, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	if (i < n) {
		w = 0;
		memcpy(&w, s + i, n - i);
		h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
	}
	h ^= h >> 29;
	return h ? h : 1;
}

/*
 * A cheap first test: one bit per (length, first two bytes) of the
 * module's strings.  Most base strings fail it and are never hashed.
 */
#define PRE_BITS	(1u << 16)

static uint32_t pre_key(const char *s, size_t n)
{
	return (uint32_t)(n * 0x9e5u ^ (unsigned char)s[0] * 0x3bu ^
			  (n > 1 ? (unsigned char)s[1] : 0)) & (PRE_BITS - 1);
}

/* A set of 64-bit hashes: the hashes in an array, indexed by lib/idxmap. */
struct hset {
	struct idxmap map;
	uint64_t *hash;
	size_t n, cap;
	uint8_t pre[PRE_BITS / 8];
};

static bool hset_eq(void *ctx, uint32_t idx, const void *key)
{
	return ((const uint64_t *)ctx)[idx] == *(const uint64_t *)key;
}

static bool hset_has(const struct hset *s, uint64_t h)
{
	uint32_t idx;

	return !idxmap__find(&s->map, h, hset_eq, s->hash, &h, &idx);
}

static int hset_add(struct hset *s, const char *str)
{
	size_t n = strlen(str);
	uint64_t h = str_hash(str, n);
	uint32_t k = pre_key(str, n), idx = (uint32_t)s->n;
	int r;

	if (!n)
		return 0;
	s->pre[k >> 3] |= (uint8_t)(1u << (k & 7));
	if (s->n > IDXMAP_MAX_INDEX ||
	    array__grow(&s->hash, &s->cap, s->n + 1, sizeof(*s->hash), 4096))
		return -ENOMEM;
	r = idxmap__find_or_add(&s->map, h, hset_eq, s->hash, &h, &idx);
	if (r == 0)
		s->hash[s->n++] = h;
	return r < 0 ? r : 0;
}

static bool hset_has_str(const struct hset *s, const char *str, size_t n)
{
	uint32_t k = pre_key(str, n);

	return (s->pre[k >> 3] & (1u << (k & 7))) && hset_has(s, str_hash(str, n));
}

typedef int (*str_fn)(const char *s, void *arg);

/* Call FN on the string of every name offset of type T in BTF. */
static int visit_strs(const struct btf *btf, const struct btf_type *t, str_fn fn, void *arg)
{
	int i, n = btf_vlen(t), err = fn(btf__name_by_offset(btf, t->name_off), arg);

	switch (btf_kind(t)) {
	case BTF_KIND_STRUCT: case BTF_KIND_UNION:
		for (i = 0; !err && i < n; i++)
			err = fn(btf__name_by_offset(btf, btf_members(t)[i].name_off), arg);
		break;
	case BTF_KIND_ENUM:
		for (i = 0; !err && i < n; i++)
			err = fn(btf__name_by_offset(btf, btf_enum(t)[i].name_off), arg);
		break;
	case BTF_KIND_ENUM64:
		for (i = 0; !err && i < n; i++)
			err = fn(btf__name_by_offset(btf, btf_enum64(t)[i].name_off), arg);
		break;
	case BTF_KIND_FUNC_PROTO:
		for (i = 0; !err && i < n; i++)
			err = fn(btf__name_by_offset(btf, btf_params(t)[i].name_off), arg);
		break;
	default:
		break;
	}
	return err;
}

/* The pruned base, and the module's names it was pruned to. */
struct enc_base {
	struct btf *pruned;
	struct hset names;
};

#define NEED_SET(bits, off)	((bits)[(off) >> 3] |= (uint8_t)(1u << ((off) & 7)))
#define NEED_HAS(bits, off)	((bits)[(off) >> 3] & (1u << ((off) & 7)))

/*
 * Strings into OUT: the module's kept where they are, each run of the
 * others filled; NEED has a bit set for every kept string's offset.
 */
static int prune_strs(const struct hset *mod, const char *strs, uint32_t len, char *out,
		      uint8_t *need)
{
	uint32_t off = 0, run = 0;
	bool in_run = false;
	size_t n;

	if (!len || strs[len - 1])
		return -EINVAL;		/* the last string is not terminated */
	memcpy(out, strs, len);
	while (off < len) {
		const char *s = strs + off;

		n = strlen(s);
		if (off == 0 || hset_has_str(mod, s, n)) {
			NEED_SET(need, off);
			if (in_run)
				memset(out + run, FILLER, off - 1 - run);
			in_run = false;
		} else if (!in_run) {
			run = off;
			in_run = true;
		}
		off += (uint32_t)n + 1;
	}
	if (in_run)
		memset(out + run, FILLER, len - 1 - run);
	return 0;
}

/*
 * Which base types the module can never be matched to.  A named type whose
 * name it lacks (dedup compares names, FWDs included, by offset).  An
 * anonymous type that refers to such a type: dedup matches a pointer,
 * qualifier, array or prototype by the ids it refers to, which no module
 * type is mapped to, and an anonymous struct or union member by member,
 * each a failed comparison.  (A named type that refers to one is kept: a
 * module FWD may still be resolved to it by name.  But a FUNC, matched
 * only with its prototype, drops with it: libbpf 1.7 refuses a FUNC whose
 * type is not a prototype.)  Kinds VAR and DATASEC dedup never looks at.
 */
enum { T_UNSEEN, T_VISITING, T_KEEP, T_DROP };

struct tprune {
	const char *types;
	const uint32_t *offs;		/* per type id: its offset in TYPES */
	uint32_t ntypes;		/* ids 1 .. ntypes */
	const uint8_t *need;
	uint8_t *state;
};

static bool drops(struct tprune *p, uint32_t id, int depth);

/* Does any type T refers to drop? */
static bool refers_to_dropped(struct tprune *p, const struct btf_type *t, int depth)
{
	int i, n = btf_vlen(t);

	switch (btf_kind(t)) {
	case BTF_KIND_PTR: case BTF_KIND_CONST: case BTF_KIND_VOLATILE:
	case BTF_KIND_RESTRICT:
		return drops(p, t->type, depth);
	case BTF_KIND_ARRAY:
		return drops(p, btf_array(t)->type, depth) ||
		       drops(p, btf_array(t)->index_type, depth);
	case BTF_KIND_STRUCT: case BTF_KIND_UNION:
		for (i = 0; i < n; i++)
			if (drops(p, btf_members(t)[i].type, depth))
				return true;
		return false;
	case BTF_KIND_FUNC_PROTO:
		if (drops(p, t->type, depth))
			return true;
		for (i = 0; i < n; i++)
			if (drops(p, btf_params(t)[i].type, depth))
				return true;
		return false;
	default:
		return false;
	}
}

/*
 * Whether type ID drops, memoised.  A cycle or a chain deeper than 32
 * keeps the type: keeping is always right, only slower.
 */
static bool drops(struct tprune *p, uint32_t id, int depth)
{
	const struct btf_type *t;
	bool d;

	if (!id || id > p->ntypes)
		return false;
	if (p->state[id] == T_KEEP || p->state[id] == T_VISITING)
		return false;
	if (p->state[id] == T_DROP)
		return true;
	t = (const void *)(p->types + p->offs[id]);
	if (btf_kind(t) == BTF_KIND_DATASEC || btf_kind(t) == BTF_KIND_VAR)
		d = false;
	else if (t->name_off)
		d = !NEED_HAS(p->need, t->name_off) ||
		    (btf_kind(t) == BTF_KIND_FUNC && drops(p, t->type, depth + 1));
	else if (depth >= 32)
		d = false;
	else {
		p->state[id] = T_VISITING;
		d = refers_to_dropped(p, t, depth + 1);
	}
	p->state[id] = d ? T_DROP : T_KEEP;
	return d;
}

/* Types into OUT (at most TYPE_LEN bytes), the ones that drop emptied. */
static int prune_types(const char *types, uint32_t type_len, const uint8_t *need,
		       uint32_t str_len, uint32_t ntypes, char *out, uint32_t *out_len)
{
	struct tprune p = { .types = types, .ntypes = ntypes, .need = need };
	uint32_t off = 0, o = 0, id, *offs;
	int err = 0;

	offs = malloc((ntypes + 1) * sizeof(*offs));
	p.state = calloc(ntypes + 1, 1);
	if (!offs || !p.state) {
		err = -ENOMEM;
		goto out;
	}
	for (id = 1; id <= ntypes; id++) {
		const struct btf_type *t = (const void *)(types + off);
		size_t sz;

		if (off + sizeof(*t) > type_len ||
		    off + (sz = btf_type_bytes(t)) > type_len || t->name_off >= str_len) {
			err = -EINVAL;
			goto out;
		}
		offs[id] = off;
		off += (uint32_t)sz;
	}
	if (off != type_len) {
		err = -EINVAL;
		goto out;
	}
	p.offs = offs;
	for (id = 1; id <= ntypes; id++) {
		const struct btf_type *t = (const void *)(types + offs[id]);

		if (drops(&p, id, 0)) {
			struct btf_type empty = { .info = (__u32)BTF_KIND_DATASEC << 24 };

			memcpy(out + o, &empty, sizeof(empty));
			o += sizeof(empty);
		} else {
			size_t sz = btf_type_bytes(t);

			memcpy(out + o, t, sz);
			o += (uint32_t)sz;
		}
	}
	*out_len = o;
out:
	free(offs);
	free(p.state);
	return err;
}


void enc_base__free(struct enc_base *eb)
{
	if (!eb)
		return;
	btf__free(eb->pruned);
	idxmap__free(&eb->names.map);
	free(eb->names.hash);
	free(eb);
}

static int add_str(const char *s, void *arg)
{
	return hset_add(arg, s);
}

/* The raw base's parts, checked.  -ENOTSUP for what pruning does not read. */
static int raw_parts(const void *raw, size_t size, const struct btf_header **hdr,
		     const char **types, const char **strs)
{
	const struct btf_header *h = raw;

	if (size < sizeof(*h) || h->magic != BTF_MAGIC || h->version != BTF_VERSION ||
	    h->hdr_len < sizeof(*h) || h->hdr_len > size)
		return -ENOTSUP;	/* not BTF, or the other byte order */
	if ((uint64_t)h->hdr_len + h->type_off + h->type_len > size ||
	    (uint64_t)h->hdr_len + h->str_off + h->str_len > size || !h->str_len)
		return -EINVAL;
	*hdr = h;
	*types = (const char *)raw + h->hdr_len + h->type_off;
	*strs = (const char *)raw + h->hdr_len + h->str_off;
	return 0;
}

/* Types in the type section (each checked to fit). */
static int count_types(const char *types, uint32_t len, uint32_t *n)
{
	uint32_t off = 0;

	*n = 0;
	while (off < len) {
		const struct btf_type *t = (const void *)(types + off);

		if (off + sizeof(*t) > len || off + btf_type_bytes(t) > len)
			return -EINVAL;
		off += (uint32_t)btf_type_bytes(t);
		(*n)++;
	}
	return 0;
}

int enc_base__names(const struct dwarf_scan_secs *dw, const char *const *extra, size_t nextra,
		    struct enc_base **out)
{
	struct enc_base *eb = calloc(1, sizeof(*eb));
	size_t i;
	int err;

	*out = NULL;
	if (!eb)
		return -ENOMEM;
	err = dwarf_scan__walk(dw, add_str, &eb->names, NULL);
	for (i = 0; !err && i < nextra; i++)
		err = hset_add(&eb->names, extra[i]);
	if (err)
		enc_base__free(eb);
	else
		*out = eb;
	return err;
}

int enc_base__prune(struct enc_base *eb, const void *raw, size_t size)
{
	const struct btf_header *hdr;
	const char *types, *strs;
	struct btf_header *nh;
	uint32_t type_len, ntypes;
	uint8_t *need = NULL;
	char *blob = NULL;
	int err;

	err = raw_parts(raw, size, &hdr, &types, &strs);
	if (!err)
		err = count_types(types, hdr->type_len, &ntypes);
	if (err)
		return err;
	need = calloc(hdr->str_len / 8 + 1, 1);
	blob = malloc(sizeof(*hdr) + hdr->type_len + hdr->str_len);
	if (!need || !blob) {
		err = -ENOMEM;
		goto out;
	}
	/*
	 * Header, types, strings (libbpf wants the types first).  The strings
	 * are pruned first, after room for all the types, and moved down to
	 * follow the pruned types, which take at most as much room.
	 */
	nh = (struct btf_header *)blob;
	err = prune_strs(&eb->names, strs, hdr->str_len, blob + sizeof(*nh) + hdr->type_len, need);
	if (!err)
		err = prune_types(types, hdr->type_len, need, hdr->str_len, ntypes,
				  blob + sizeof(*nh), &type_len);
	if (err)
		goto out;
	memmove(blob + sizeof(*nh) + type_len, blob + sizeof(*nh) + hdr->type_len, hdr->str_len);
	*nh = (struct btf_header){ .magic = BTF_MAGIC, .version = BTF_VERSION,
				   .hdr_len = sizeof(*nh), .type_off = 0, .type_len = type_len,
				   .str_off = type_len, .str_len = hdr->str_len };
	eb->pruned = btf__new(blob, sizeof(*nh) + type_len + hdr->str_len);
	if (!eb->pruned)
		err = -errno;
out:
	free(blob);
	free(need);
	return err;
}

struct btf *enc_base__btf(const struct enc_base *eb)
{
	return eb->pruned;
}

static int check_str(const char *s, void *arg)
{
	return !s || !*s || hset_has_str(arg, s, strlen(s)) ? 0 : -EAGAIN;
}

int enc_base__check(const struct enc_base *eb, const struct btf *split)
{
	uint32_t id, n = btf__type_cnt(split), start = btf__type_cnt(eb->pruned);
	int err = 0;

	/*
	 * Every string the module's own types use must be one the pruning
	 * knew: those the base had were kept, and found there.  A 64-bit hash
	 * in common is taken as the same string.
	 */
	for (id = start; !err && id < n; id++)
		err = visit_strs(split, btf__type_by_id(split, id), check_str, (void *)&eb->names);
	return err;
}
