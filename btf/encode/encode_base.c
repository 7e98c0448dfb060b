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
 * The pruned base holds only what the module can meet, under ids and
 * string offsets of its own, both in the base's order:
 *  - a type that can never be matched is left out, and so are VARs and
 *    DATASECs (dedup never hashes nor matches them); a kept type that
 *    refers to one refers to a placeholder instead, an empty DATASEC,
 *    which no comparison can match either;
 *  - a string the module does not have is left out; a kept type that
 *    names one names the filler instead ("\x01", no module's name).
 * libbpf then does the same dedup on far less: dedup decides by comparing
 * names and ids for equality, and the renumbering keeps equal apart from
 * unequal and the order of the candidates.  Before the module's BTF is
 * written, enc_base__restore() puts the real ids and offsets back into its
 * types (the only places it refers to the base), and it is the same bytes
 * as on the whole base.  Earlier the pruned base kept every id and offset
 * (a dropped type an empty DATASEC, a run of dropped strings one string of
 * 0x01 bytes): libbpf still walked 108,000 types and hashed 1.9 MB of
 * filler, twice (libbpf 1.1 and 1.7), for every module.  Left out, a small
 * module's CPU halved (crc7.ko: 0.033 s to 0.017 s) and mlx5_core.ko's
 * peak RSS fell from 59.6 to 47.6 MB.
 *
 * The module's names are the strings of its BTF, when it is made before
 * the base is pruned (pahole 1.32's rules: make_standin(), in
 * encode_base_policy.c), or
 * else every string its DWARF holds (lib/dwarf_scan: names, but also
 * producers and file names, a superset that costs only a little
 * pruning); plus the strings the encoder makes itself (section names, the
 * kfunc tags), kept as 64-bit hashes.  A string the module's
 * BTF ends up with that is none of these might be one the base has and
 * the pruning left out: enc_base__check() finds any such string, and the
 * encoder then starts again on the whole base (so it does when a type
 * refers to the placeholder or the filler, which cannot happen).
 * tests/btf/kernel612.sh compares the two ways byte for byte.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>

#include "btf/encode/encode_int.h"
#include "btf/encode/type_bytes_int.h"
#include "lib/array.h"
#include "lib/dwarf_scan.h"
#include "lib/hash.h"
#include "lib/idxmap.h"


/* Strings are hashed with hash_words() (lib/hash.h): 8 bytes at a time, a
 * byte-at-a-time FNV-1a was a quarter of the pruning's cost over a
 * vmlinux's 2.3 MB of strings. */

/*
 * A cheap first test: one bit per (length, first 8 bytes) of the module's
 * strings, in 32 KB.  Most base strings fail it and are never hashed.
 * (One bit per length and first two bytes, in 8 KB, let a quarter of
 * the base's 108,000 strings through for crc7.ko's 2,310 names, which
 * share their first bytes with many; now 3,703 pass.  The pass over the
 * base's strings went from 2.0 to 1.45 ms for crc7.ko, 3.1 to 1.5 ms for
 * a module of 6,000 names, 3.7 to 2.2 ms for mlx5_core.ko.)
 */
#define PRE_BITS	(1u << 18)

static uint32_t pre_key(const char *s, size_t n)
{
	uint64_t w = 0;
	size_t i;

	if (n >= 8)
		memcpy(&w, s, 8);
	else
		for (i = 0; i < n; i++)
			w |= (uint64_t)(unsigned char)s[i] << (8 * i);
	return (uint32_t)(((w ^ n) * 0x9e3779b97f4a7c15ull) >> (64 - 18));
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
	uint64_t h = hash_words(str, n);
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

	return (s->pre[k >> 3] & (1u << (k & 7))) && hset_has(s, hash_words(str, n));
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

/*
 * The pruned base, the module's names it was pruned to, and what
 * enc_base__restore() needs to put the real ids and offsets back: for
 * each compact id the real one (0 for the placeholder), and each kept
 * string's offsets in both.
 */
struct kstr {
	uint32_t cmp, real;
};

struct enc_base {
	struct btf *pruned;
	struct hset names;
	uint32_t *real_id;		/* compact id -> base id */
	uint32_t cmp_cnt, real_cnt;	/* type counts, the void type included */
	struct kstr *strs;		/* kept strings, ascending either way */
	size_t nstrs, str_cap;
	uint32_t cmp_strs, real_strs;	/* bytes of strings */
};

#define PLACEHOLDER	1u	/* the compact id every dropped type becomes */
#define FILLER_OFF	1u	/* the compact offset of every dropped string */

/*
 * The kept strings into OUT (at most LEN + 2 bytes): "", the filler,
 * then every string the module has, in the base's order, each one's
 * offsets in both into EB.  NEED gets a bit for every kept string's
 * offset but 0.
 */
static int prune_strs(struct enc_base *eb, const char *strs, uint32_t len, char *out,
		      uint32_t *out_len, uint64_t *need)
{
	uint32_t off = 1, o = 3;
	size_t n;

	if (!len || strs[len - 1] || strs[0])
		return -EINVAL;		/* not terminated, or no "" first */
	memcpy(out, "\0" "\x01", 3);
	while (off < len) {
		const char *s = strs + off;

		n = strlen(s);
		if (n && hset_has_str(&eb->names, s, n)) {
			if (array__grow(&eb->strs, &eb->str_cap, eb->nstrs + 1,
					sizeof(*eb->strs), 1024))
				return -ENOMEM;
			eb->strs[eb->nstrs++] = (struct kstr){ .cmp = o, .real = off };
			need[off >> 6] |= 1ull << (off & 63);
			memcpy(out + o, s, n + 1);
			o += (uint32_t)n + 1;
		}
		off += (uint32_t)n + 1;
	}
	*out_len = o;
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
 *
 * With BY_MEMBERS, also an anonymous struct, union or prototype with a
 * member or parameter name the module lacks: dedup compares those names
 * by offset too, in every comparison of the two kinds.  That leaves
 * crc7.ko 8,150 of the base's types, not 14,300, for libbpf to hash
 * (mlx5_core.ko 18,700, not 25,700); but only for libbpf 1.7.  libbpf 1.1's dedup of a module depends
 * on how many base types it hashes, not only on which can match: for
 * 6.12's amd_sfh.ko it re-emits a cluster of base types (struct device,
 * task_struct, ...) on the whole base and on the base pruned without this
 * rule, and folds it into the base when the rule drops the types it
 * would among base ids 213 to 106,581, or 214 to 106,599, but not among
 * 214 to 106,581 (bisected): how many, not which.  libbpf 1.7 gave the
 * same bytes with the rule as without on all 1,138 6.12 modules and 62
 * of 7.3's.
 */
enum { T_UNSEEN, T_VISITING, T_KEEP, T_DROP };

#define NEED_HAS(need, off)	((need)[(off) >> 6] & (1ull << ((off) & 63)))

/* Does anonymous T have a member or parameter name not in NEED (LEN bits)? */
static bool lacks_names(const uint64_t *need, uint32_t len, const struct btf_type *t)
{
	__u32 *off;
	size_t i;

	switch (btf_kind(t)) {
	case BTF_KIND_STRUCT: case BTF_KIND_UNION: case BTF_KIND_FUNC_PROTO:
		for (i = 1; (off = btf_type_str((struct btf_type *)t, i)); i++)
			if (*off && (*off >= len || !NEED_HAS(need, *off)))
				return true;
		return false;
	default:
		return false;
	}
}

struct tprune {
	const char *types;
	bool by_members;		/* lacks_names() drops, too */
	const uint32_t *offs;		/* per type id: its offset in TYPES */
	uint32_t ntypes;		/* ids 1 .. ntypes */
	const uint64_t *need;
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

/*
 * Each type's offset in TYPES (LEN bytes), each checked to fit, into
 * P->offs[1 .. P->ntypes]; and in the same pass, in P->state, what drops()
 * decides for a type without looking further: a named one by its name
 * (but a FUNC, which drops with its prototype), a VAR or DATASEC kept.
 */
static int type_offsets(struct tprune *p, uint32_t len, uint32_t str_len, uint32_t **offs)
{
	uint32_t off = 0, id = 0, *o, name, kind;
	/* A type takes 12 bytes at least. */
	size_t max = (size_t)len / sizeof(struct btf_type) + 2;

	o = malloc(max * sizeof(*o));
	p->state = calloc(max, 1);
	if (!o || !p->state) {
		free(o);
		return -ENOMEM;
	}
	while (off < len) {
		const struct btf_type *t = (const void *)(p->types + off);
		size_t sz;

		if (off + sizeof(*t) > len || off + (sz = btf_type_bytes(t)) > len ||
		    t->name_off >= str_len) {
			free(o);
			return -EINVAL;
		}
		o[++id] = off;
		off += (uint32_t)sz;
		kind = btf_kind(t);
		name = t->name_off;
		if (kind == BTF_KIND_VAR || kind == BTF_KIND_DATASEC)
			p->state[id] = T_KEEP;
		else if (name && kind != BTF_KIND_FUNC)
			p->state[id] = NEED_HAS(p->need, name) ? T_KEEP : T_DROP;
		else if (!name && p->by_members && lacks_names(p->need, str_len, t))
			p->state[id] = T_DROP;
	}
	*offs = o;
	p->offs = o;
	p->ntypes = id;
	return 0;
}

/* Copying a kept type: its ids and string offsets made compact. */
struct compact {
	const struct enc_base *eb;
	const uint32_t *cmp_id;		/* base id -> compact id */
	uint32_t ntypes;
	const char *strs;
	uint32_t str_len;
	const uint64_t *need;
	const uint32_t *rank;		/* kept strings before each word of NEED */
	bool by_members;		/* enc_base__prune()'s */
};

static int compact_id(const struct compact *c, uint32_t *id)
{
	if (*id > c->ntypes)
		return -EINVAL;
	*id = c->cmp_id[*id];	/* cmp_id[0] is 0 */
	return 0;
}

/*
 * A kept string's compact offset; any other's is the filler's.  An offset
 * inside a kept string (valid BTF, though no encoder writes it) is not
 * pruned: -ENOTSUP, and the encoder takes the whole base.  Told by the
 * kept strings alone: the base's are not read again (a cache miss each).
 */
static int compact_str(const struct compact *c, uint32_t *off)
{
	const struct enc_base *eb = c->eb;
	uint32_t o = *off, w = o >> 6, k, end;
	uint64_t bit = 1ull << (o & 63);

	if (!o)
		return 0;
	if (o >= c->str_len)
		return -EINVAL;
	k = c->rank[w] + (uint32_t)__builtin_popcountll(c->need[w] & (bit - 1));
	if (c->need[w] & bit) {
		*off = eb->strs[k].cmp;
		return 0;
	}
	if (k) {	/* inside the kept string before it? */
		end = k < eb->nstrs ? eb->strs[k].cmp : eb->cmp_strs;
		if (o < eb->strs[k - 1].real + (end - eb->strs[k - 1].cmp))
			return -ENOTSUP;
	}
	*off = FILLER_OFF;
	return 0;
}

/*
 * The kept types into OUT (at most TYPE_LEN + 12 bytes): the placeholder
 * first (an empty DATASEC, which dedup never hashes nor matches), then
 * every type that does not drop but VARs and DATASECs, in the base's
 * order, referring to the placeholder for every type that was left out.
 */
/*
 * Duplicates in the base.  A shipped vmlinux BTF can hold identical types
 * (7.2's has three void(void) FUNC_PROTOs: the kernel build adds two after
 * pahole), and a module's copy then becomes whichever of them libbpf's
 * dedup meets first in its hash table: a chain of the base's types with
 * one hash, each added at its head, and the chain reversed each time the
 * table grows (doubling, once it is 3/4 full).  Which one comes first so
 * depends on how many types the table holds, and a pruned base holds
 * fewer than the whole: the module's void(void) became 7.2's last one
 * instead of its first, and a PTR to it a type of the module's own.  So a
 * pruned base keeps, of identical types, only the one the whole base's
 * table has first (dup_first()), and the others as the placeholder when
 * no kept type refers to them (one referred to stays, and is as before).
 */
struct dup {
	uint64_t h;
	uint32_t id;
	uint32_t pos;		/* its entry in libbpf's table on the whole base */
};

static bool dup_less(const struct dup *x, const struct dup *y)
{
	return x->h != y->h ? x->h < y->h : x->id < y->id;
}

/*
 * D[0..N) sorted by hash, then id: in place, a byte of the hash at a time
 * from the top (SHIFT), small runs by insertion.  glibc's qsort took a
 * tenth of a small module's CPU, and a buffer as large as D (1.6 MB on
 * a vmlinux's base).
 */
static void dup_sort(struct dup *d, size_t n, int shift)
{
	size_t cnt[256] = { 0 }, next[256], end[256], i, j, b, k;
	struct dup t;

	if (n < 32 || shift < 0) {
		for (i = 1; i < n; i++)
			for (j = i; j > 0 && dup_less(&d[j], &d[j - 1]); j--)
				t = d[j], d[j] = d[j - 1], d[j - 1] = t;
		return;
	}
	for (i = 0; i < n; i++)
		cnt[(d[i].h >> shift) & 0xff]++;
	for (b = 0, i = 0; b < 256; b++) {
		next[b] = i;
		i += cnt[b];
		end[b] = i;
	}
	for (b = 0; b < 256; b++) {
		while (next[b] < end[b]) {
			k = (d[next[b]].h >> shift) & 0xff;
			if (k == b) {
				next[b]++;
				continue;
			}
			t = d[next[b]], d[next[b]] = d[next[k]], d[next[k]] = t;
			next[k]++;
		}
	}
	for (b = 0, i = 0; b < 256; i += cnt[b++])
		if (cnt[b] > 1)
			dup_sort(d + i, cnt[b], shift - 8);
}

/* Before which of libbpf's table entries (1-based) the table grows. */
static size_t grow_points(uint64_t *g, size_t max)
{
	uint64_t cap = 4, e;
	size_t n = 0;

	g[n++] = 1;		/* the first entry makes it: 4 buckets */
	for (e = 2; n < max; e++) {
		if (e * 4 / 3 > cap) {
			g[n++] = e;
			cap *= 2;
			e = cap * 3 / 4 - 1;	/* nothing before that */
		}
	}
	return n;
}

#define MAX_DUP 16	/* a larger set of identical types is left as it is */

/*
 * Of identical types added to libbpf's table as its entries POS[0..N)
 * (1-based, in the base's order; VARs and DATASECs are not added), the
 * index of the one first in their chain once TOTAL entries are in.
 */
static size_t dup_first(const uint32_t *pos, size_t n, uint32_t total,
			const uint64_t *g, size_t ng)
{
	size_t chain[MAX_DUP], len = 0, i, k = 0, j, t;

	for (i = 0; i < n; i++) {
		for (; k < ng && g[k] <= pos[i]; k++)
			for (j = 0; j < len / 2; j++)
				t = chain[j], chain[j] = chain[len - 1 - j], chain[len - 1 - j] = t;
		memmove(chain + 1, chain, len * sizeof(*chain));
		chain[0] = i;
		len++;
	}
	for (; k < ng && g[k] <= total; k++)
		for (j = 0; j < len / 2; j++)
			t = chain[j], chain[j] = chain[len - 1 - j], chain[len - 1 - j] = t;
	return chain[0];
}

/*
 * Mark in DROP (per id) the duplicates of kept types that the whole
 * base's table has after another, and that no kept type refers to.
 */
static int drop_dups(struct tprune *p, const uint32_t *offs, uint8_t *dropped)
{
	uint64_t g[40];		/* up to 2^41 buckets */
	size_t ng = grow_points(g, 40), nd = 0, i, j, k, first;
	uint32_t npos = 0, nkept = 0, id, run[MAX_DUP], rp[MAX_DUP];
	uint8_t *ref = calloc(p->ntypes + 1, 1);
	struct dup *d;
	int err = 0;

	for (id = 1; id <= p->ntypes; id++)
		nkept += !dropped[id];
	d = malloc((nkept + 1) * sizeof(*d));
	if (!ref || !d) {
		err = -ENOMEM;
		goto out;
	}
	for (id = 1; id <= p->ntypes; id++) {
		struct btf_type *t = (struct btf_type *)(p->types + offs[id]);
		size_t sz = btf_type_bytes(t);
		__u32 *r;

		if (btf_kind(t) == BTF_KIND_VAR || btf_kind(t) == BTF_KIND_DATASEC)
			continue;
		npos++;
		if (dropped[id])
			continue;
		for (i = 0; (r = btf_type_id(t, i)); i++)
			if (*r <= p->ntypes)
				ref[*r] = 1;
		d[nd++] = (struct dup){ hash_words((const char *)t, sz), id, npos };
	}
	dup_sort(d, nd, 56);
	for (i = 0; i < nd; i = j) {
		const struct btf_type *t = (const void *)(p->types + offs[d[i].id]);
		size_t sz = btf_type_bytes(t), n = 0;

		for (j = i; j < nd && d[j].h == d[i].h; j++)
			if (n < MAX_DUP && btf_type_bytes((const void *)(p->types + offs[d[j].id])) == sz &&
			    !memcmp(p->types + offs[d[j].id], t, sz)) {
				run[n] = d[j].id;
				rp[n++] = d[j].pos;
			}
		if (n < 2 || j - i > MAX_DUP)
			continue;
		first = dup_first(rp, n, npos, g, ng);
		for (k = 0; k < n; k++)
			if (k != first && !ref[run[k]])
				dropped[run[k]] = 1;
	}
out:
	free(ref);
	free(d);
	return err;
}

static int prune_types(struct enc_base *eb, const char *types, uint32_t type_len,
		       struct compact *c, char *out, uint32_t *out_len)
{
	struct btf_type empty = { .info = (__u32)BTF_KIND_DATASEC << 24 };
	struct tprune p = { .types = types, .need = c->need, .by_members = c->by_members };
	uint32_t o = sizeof(empty), id, k, kind, next = PLACEHOLDER + 1, *offs, *cmp_id = NULL;
	uint8_t *dropped = NULL;
	int err;

	err = type_offsets(&p, type_len, c->str_len, &offs);
	if (err) {
		free(p.state);
		return err;
	}
	cmp_id = malloc((p.ntypes + 1) * sizeof(*cmp_id));
	eb->real_id = malloc((p.ntypes + 2) * sizeof(*eb->real_id));
	if (!cmp_id || !eb->real_id) {
		err = -ENOMEM;
		goto out;
	}
	eb->real_id[0] = cmp_id[0] = 0;
	eb->real_id[PLACEHOLDER] = 0;
	dropped = calloc(p.ntypes + 1, 1);
	if (!dropped) {
		err = -ENOMEM;
		goto out;
	}
	for (id = 1; id <= p.ntypes; id++)
		dropped[id] = drops(&p, id, 0);
	err = drop_dups(&p, offs, dropped);
	if (err)
		goto out;
	for (id = 1; id <= p.ntypes; id++) {
		kind = btf_kind((const struct btf_type *)(types + offs[id]));
		if (dropped[id] || kind == BTF_KIND_VAR || kind == BTF_KIND_DATASEC) {
			cmp_id[id] = PLACEHOLDER;
		} else {
			eb->real_id[next] = id;
			cmp_id[id] = next++;
		}
	}
	memcpy(out, &empty, sizeof(empty));
	c->cmp_id = cmp_id;
	c->ntypes = p.ntypes;
	for (k = PLACEHOLDER + 1; !err && k < next; k++) {
		const struct btf_type *t = (const void *)(types + offs[eb->real_id[k]]);
		struct btf_type *nt = (struct btf_type *)(out + o);
		size_t sz = btf_type_bytes(t), i;
		__u32 *off;

		memcpy(nt, t, sz);
		o += (uint32_t)sz;
		for (i = 0; !err && (off = btf_type_id(nt, i)); i++)
			err = compact_id(c, off);
		for (i = 0; !err && (off = btf_type_str(nt, i)); i++)
			err = compact_str(c, off);
	}
	*out_len = o;
	eb->cmp_cnt = next;
	eb->real_cnt = p.ntypes + 1;
out:
	free(dropped);
	free(cmp_id);
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
	free(eb->real_id);
	free(eb->strs);
	free(eb);
}

static int add_str(const char *s, void *arg)
{
	return hset_add(arg, s);
}

static int add_extra(struct enc_base *eb, const char *const *extra, size_t nextra)
{
	size_t i;
	int err = 0;

	for (i = 0; !err && i < nextra; i++)
		err = hset_add(&eb->names, extra[i]);
	return err;
}

/* The names' set of EB, gathered with ERR, with EXTRA's names added: *OUT
 * on success, EB freed on failure. */
static int names_done(struct enc_base *eb, int err, const char *const *extra, size_t nextra,
		      struct enc_base **out)
{
	if (!err)
		err = add_extra(eb, extra, nextra);
	if (err)
		enc_base__free(eb);
	else
		*out = eb;
	return err;
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

int enc_base__names(const struct dwarf_scan_secs *dw, const char *const *extra, size_t nextra,
		    struct enc_base **out)
{
	struct enc_base *eb = calloc(1, sizeof(*eb));
	int err;

	*out = NULL;
	if (!eb)
		return -ENOMEM;
	err = dwarf_scan__walk(dw, add_str, &eb->names, NULL);
	return names_done(eb, err, extra, nextra, out);
}

int enc_base__names_strs(const char *strs, uint32_t len, const char *const *extra,
			 size_t nextra, struct enc_base **out)
{
	struct enc_base *eb = calloc(1, sizeof(*eb));
	uint32_t off = 0;
	int err = 0;

	*out = NULL;
	if (!eb)
		return -ENOMEM;
	if (len && strs[len - 1])
		err = -EINVAL;		/* the last string is not terminated */
	for (; !err && off < len; off += (uint32_t)strlen(strs + off) + 1)
		err = hset_add(&eb->names, strs + off);
	return names_done(eb, err, extra, nextra, out);
}

/* For each word of NEED (LEN bits), the bits set in the words before it. */
static uint32_t *rank_words(const uint64_t *need, uint32_t len)
{
	uint32_t w, nw = len / 64 + 1, *rank = malloc(nw * sizeof(*rank)), k = 0;

	for (w = 0; rank && w < nw; w++) {
		rank[w] = k;
		k += (uint32_t)__builtin_popcountll(need[w]);
	}
	return rank;
}

int enc_base__prune(struct enc_base *eb, const void *raw, size_t size, bool by_members)
{
	const struct btf_header *hdr;
	const char *types;
	struct compact c = { .eb = eb, .by_members = by_members };
	struct btf_header *nh;
	uint32_t type_len, str_len;
	uint64_t *need = NULL;
	char *strs = NULL, *blob = NULL;
	int err;

	err = raw_parts(raw, size, &hdr, &types, &c.strs);
	if (err)
		return err;
	c.str_len = hdr->str_len;
	need = calloc(c.str_len / 64 + 1, sizeof(*need));
	strs = malloc((size_t)c.str_len + 3);
	if (!need || !strs) {
		err = -ENOMEM;
		goto out;
	}
	err = prune_strs(eb, c.strs, c.str_len, strs, &str_len, need);
	if (err)
		goto out;
	eb->cmp_strs = str_len;
	c.need = need;
	c.rank = rank_words(need, c.str_len);
	/* Header, types, strings (libbpf wants the types first). */
	blob = malloc(sizeof(*nh) + sizeof(struct btf_type) + hdr->type_len + str_len);
	if (!c.rank || !blob) {
		err = -ENOMEM;
		goto out;
	}
	nh = (struct btf_header *)blob;
	err = prune_types(eb, types, hdr->type_len, &c, blob + sizeof(*nh), &type_len);
	if (err)
		goto out;
	memcpy(blob + sizeof(*nh) + type_len, strs, str_len);
	*nh = (struct btf_header){ .magic = BTF_MAGIC, .version = BTF_VERSION,
				   .hdr_len = sizeof(*nh), .type_off = 0, .type_len = type_len,
				   .str_off = type_len, .str_len = str_len };
	eb->real_strs = c.str_len;
	eb->pruned = btf__new(blob, sizeof(*nh) + type_len + str_len);
	if (!eb->pruned)
		err = -errno;
out:
	free(blob);
	free((void *)c.rank);
	free(strs);
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

/* Putting the base's real ids and offsets back. */
struct restore {
	const struct enc_base *eb;
	int err;
};

static void restore_id(uint32_t *id, void *arg)
{
	struct restore *r = arg;
	const struct enc_base *eb = r->eb;

	if (*id >= eb->cmp_cnt)
		*id += eb->real_cnt - eb->cmp_cnt;
	else if (*id && !(*id = eb->real_id[*id]))
		r->err = -EAGAIN;	/* the placeholder */
}

static int restore_str(const struct enc_base *eb, uint32_t *off)
{
	size_t lo = 0, hi = eb->nstrs, mid;

	if (*off >= eb->cmp_strs) {
		*off += eb->real_strs - eb->cmp_strs;
		return 0;
	}
	if (!*off)
		return 0;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (eb->strs[mid].cmp < *off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == eb->nstrs || eb->strs[lo].cmp != *off)
		return -EAGAIN;		/* the filler, or inside a string */
	*off = eb->strs[lo].real;
	return 0;
}

int enc_base__restore(const struct enc_base *eb, struct btf *split)
{
	uint32_t id, n = btf__type_cnt(split);
	struct restore r = { .eb = eb };
	__u32 *off;
	size_t i;

	for (id = eb->cmp_cnt; !r.err && id < n; id++) {
		struct btf_type *t = (struct btf_type *)btf__type_by_id(split, id);

		enc_visit_ids(t, restore_id, &r);
		for (i = 0; !r.err && (off = btf_type_str(t, i)); i++)
			r.err = restore_str(eb, off);
	}
	return r.err;
}
