/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The view stage of frugal btf: BTF read back from a file (raw, or an ELF's
 * .BTF; alone or split on a base) and rendered id-free, for `frugal btf
 * diff`, `btf stat` and `btf abi` (btf/view/load.c, btf/view/canon.c).
 * Nothing here prints: errors are a negative errno, with a reason in the
 * caller's buffer where one helps.
 *
 * The id-free rendering: type ids depend on the encoder and on the order
 * it met the types, so two equivalent blobs can differ in every id.  A
 * canon renders each named type, function, variable, datasec and decl tag
 * as text that holds no id: anonymous types are written inline where they
 * are used, named ones are referred to by kind, name and (for sized
 * aggregates) size.  Anonymous types that nothing refers to are entries of
 * their own ("anon").  Entries are
 * sorted by (key, text), so two canons compare as sorted multisets: the same
 * name may stand for several different types (same-named structs of
 * different CUs survive dedup), and those are matched by their whole text.
 */
#ifndef FRUGAL_BTF_VIEW_H
#define FRUGAL_BTF_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct btf;

/* ---- loading (load.c) ---- */

/*
 * Load PATH: raw BTF, or the .BTF section of an ELF file; split BTF on BASE
 * when BASE is not NULL.  0 and *OUT, or a negative errno with a short
 * reason in WHY (WHYLEN bytes, as the encoder's errbuf), fit for
 * "frugal btf: PATH: WHY".  Nothing is printed: libbpf's own explanation
 * goes through its print callback (cli_libbpf_logs(): with -v only).
 */
int btf_load(const char *path, struct btf *base, struct btf **out, char *why, size_t whylen);

/*
 * The command line's pair: BASE_PATH (when not NULL) into *BASE, then PATH
 * on it into *OUT, as btf_load() loads each.  On failure a negative errno,
 * WHY as btf_load()'s, and *FAILED the path it is about.  Either way the
 * caller owns and frees *BASE and *OUT (NULL where nothing was loaded).
 */
int btf_load_split(const char *path, const char *base_path, struct btf **base, struct btf **out,
		   const char **failed, char *why, size_t whylen);

/* ---- the id-free rendering (canon.c) ---- */

enum btf_canon_cat {
	BTF_CANON_INT,
	BTF_CANON_FLOAT,
	BTF_CANON_STRUCT,
	BTF_CANON_UNION,
	BTF_CANON_ENUM,		/* ENUM and ENUM64 */
	BTF_CANON_FWD,
	BTF_CANON_TYPEDEF,
	BTF_CANON_ANON,		/* anonymous types nothing refers to */
	BTF_CANON_FUNC,
	BTF_CANON_VAR,
	BTF_CANON_DATASEC,
	BTF_CANON_DECL_TAG,
	BTF_CANON_CAT_CNT,
};

#define BTF_CANON_ALL	((1u << BTF_CANON_CAT_CNT) - 1)
/* Everything a BPF program's types are made of; the rest are declarations. */
#define BTF_CANON_TYPES	((1u << BTF_CANON_FUNC) - 1)
#define BTF_CANON_DECLS	(BTF_CANON_ALL & ~BTF_CANON_TYPES)

struct btf_canon_ent {
	const char *key;	/* "struct foo", "func bar": what is matched */
	const char *text;	/* the whole rendering, lines joined by '\n' */
	enum btf_canon_cat cat;
};

struct btf_canon;

/* Name of a category ("struct") and its inverse (-ENOENT if unknown). */
const char *btf_canon__cat_name(enum btf_canon_cat cat);
int btf_canon__cat_by_name(const char *name);
/* The Ith word btf_canon__parse_cats() knows, NULL past the last (completion). */
const char *btf_canon__cats_word(unsigned int i);
/*
 * Parse a comma-separated list of category names, or the groups "types",
 * "decls" and "all", into a mask.  -EINVAL on an unknown name.
 */
int btf_canon__parse_cats(const char *list, unsigned int *mask);

/*
 * Render the types of BTF that belong to it (for split BTF: not those of
 * its base) whose category is in MASK.  NULL with errno set on failure.
 */
struct btf_canon *btf_canon__new(const struct btf *btf, unsigned int mask);
void btf_canon__free(struct btf_canon *canon);
size_t btf_canon__cnt(const struct btf_canon *canon);
const struct btf_canon_ent *btf_canon__ent(const struct btf_canon *canon, size_t i);

enum btf_diff_kind {
	BTF_DIFF_ONLY_A,	/* b is NULL */
	BTF_DIFF_ONLY_B,	/* a is NULL */
	BTF_DIFF_CHANGED,	/* same key, different text */
};

/* Called for each difference, in key order; a non-zero return stops the walk. */
typedef int (*btf_diff_fn)(enum btf_diff_kind kind, const struct btf_canon_ent *a,
			   const struct btf_canon_ent *b, void *ctx);

/*
 * Match two canons: entries of equal text cancel; what is left of a key on
 * both sides is paired as CHANGED (the most similar texts face each other),
 * the rest is ONLY_A or ONLY_B.  Returns the number of differences, or a
 * negative errno: -ENOMEM, the callback's own negative return, or
 * -ECANCELED when it stopped the walk with a positive one.
 */
long btf_canon__diff(const struct btf_canon *a, const struct btf_canon *b,
		     btf_diff_fn fn, void *ctx);

/* ---- pahole's layout view (layout.c) ---- */

/* BTF's string at OFF: NULL for 0 (no name), "" past its strings (bad BTF). */
const char *btf_view__str(const struct btf *btf, uint32_t off);

struct btf_layout_conf {
	unsigned int cacheline_size;	/* 0: 64 */
	int pahole;			/* whose rules: 130 (1.30) or 132 (1.31 on) */
	bool hex;			/* --hex: offsets and sizes in hex */
	bool expand_types;		/* -E: members' types written out */
	bool quiet;			/* -q: no comments, no stats */
	bool rel_offset;		/* -r: offsets within the member's own type */
	bool suppress_aligned;		/* --suppress_aligned_attribute */
	bool suppress_packed;		/* --suppress_packed */
};

struct btf_layout;

/*
 * A view of BTF (which must outlive it) as pahole prints it.  Its state
 * grows as types are printed, as pahole's does: print in pahole's order
 * to get pahole's text.  NULL with errno set on failure: ELOOP for BTF
 * whose types hold themselves (no compiler writes it; printing would not
 * end), one of which btf_layout__loop() names.
 */
struct btf_layout *btf_layout__new(const struct btf *btf, const struct btf_layout_conf *conf);
uint32_t btf_layout__loop(const struct btf *btf);
void btf_layout__free(struct btf_layout *l);
/* The type pahole -C NAME finds: struct, union, typedef or enum, not a declaration; 0: none. */
uint32_t btf_layout__find(const struct btf_layout *l, const char *name);
/* Type ID as pahole prints it (a struct, union, typedef or enum, then ";\n") into FP. */
int btf_layout__print(struct btf_layout *l, uint32_t id, FILE *fp);
/* The same, after PREFIX (or nothing) and before SUFFIX: "typedef struct {...} NAME". */
int btf_layout__print_as(struct btf_layout *l, uint32_t id, const char *prefix, const char *suffix,
			 FILE *fp);
/*
 * The structs and unions pahole walks with no -C, in its order, into *IDS,
 * and for each a number in *GROUP shared by those pahole takes for one
 * struct (UINT32_MAX: unnamed); the caller frees both.
 */
int btf_layout__walk(const struct btf_layout *l, uint32_t **ids, uint32_t **group, uint32_t *cnt);
/* The first typedef of type ID, 0: none. */
uint32_t btf_layout__typedef_of(struct btf_layout *l, uint32_t id);
/* Holes of struct ID (0 for a union), as --sizes counts them. */
unsigned int btf_layout__nr_holes(struct btf_layout *l, uint32_t id);

/* What pahole's filters read of a struct (for a union: only flex). */
struct btf_layout_facts {
	bool is_struct;
	unsigned int nr_holes, nr_bit_holes, padding, max_hole;
	bool flex, emb_flex;		/* a flexible array at its end; in a member */
};

int btf_layout__facts(struct btf_layout *l, uint32_t id, struct btf_layout_facts *f);
/* Whether pahole infers struct ID packed (inferring it marks other types, as pahole's does). */
bool btf_layout__packed(struct btf_layout *l, uint32_t id);

/* ---- pahole's -R (reorg.c) ---- */

/* What pahole -R tells of its moves. */
enum btf_reorg_verbosity {
	BTF_REORG_QUIET,
	BTF_REORG_MOVES,	/* pahole -V: each move named */
	BTF_REORG_STEPS,	/* --show_reorg_steps: and the struct after it */
};

/*
 * Struct ID reorganized as pahole -R prints it: a copy with members moved
 * into holes, then ";" and what it saved, into FP; the moves first as
 * VERBOSE asks.  The
 * struct itself is left as it was, but printing the copy infers packing
 * as pahole's printing does (see layout.c).  FP NULL: only whether it
 * would succeed, nothing printed.  -EINVAL when ID is not a struct
 * (pahole -R prints nothing for it), -ELOOP when the moves would never end
 * (pahole's never do: nothing is printed), -ENOMEM.
 */
int btf_layout__reorg(struct btf_layout *l, uint32_t id, enum btf_reorg_verbosity verbose,
		      FILE *fp);

#endif
