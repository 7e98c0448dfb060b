/* SPDX-License-Identifier: GPL-2.0 */
/* Inside the encoder: the state shared by its files (not a public API). */
#ifndef FRUGAL_BTF_ENCODE_INT_H
#define FRUGAL_BTF_ENCODE_INT_H

#include <elfutils/libdw.h>
#include <stdarg.h>
#include <stdint.h>

#include "btf/encode/encode.h"
#include "lib/dwarf_die.h"
#include "lib/elf_file.h"
#include "lib/idxmap.h"

struct btf;
struct dedup_lb;

/* A per-CPU variable's ELF symbol: offset inside .data..percpu. */
struct enc_pcpu {
	uint64_t off;
	uint32_t size;
	const char *name;
};

/* A data section global_var may place VARs in (PROGBITS or NOBITS). */
struct enc_sec {
	uint64_t addr, size;
	const char *name;
	uint32_t shndx;
};

/* global_var: a defined STT_OBJECT symbol, where its variable is. */
struct enc_obj {
	const char *name;
	uint64_t off;			/* st_value: offset in its section */
	uint32_t shndx;
};

/*
 * What consistent_func / optimized_func learn about one function symbol
 * from each definition: a hash of its prototype as pahole compares
 * prototypes, and whether a parameter sits in an unexpected register.
 */
struct enc_fsig {
	uint64_t sig;
	uint8_t flags;
};

/* A batch's verdict on function symbol IDX, for the merge. */
struct enc_fsig_at {
	uint32_t idx;
	struct enc_fsig s;
};

enum {
	FSIG_SEEN	= 1u << 0,
	FSIG_UNEXPECTED	= 1u << 1,	/* a parameter in the wrong register */
	FSIG_MISMATCH	= 1u << 2,	/* prototypes disagree across CUs */
	/* pahole 1.32's rules only (dwarf_cu_funcs.c): */
	FSIG_OPTIMIZED	= 1u << 3,	/* a clone's symbol, parameters optimized out */
	FSIG_REORDERED	= 1u << 4,	/* parameters not in the declaration's order */
	FSIG_DROP	= FSIG_UNEXPECTED | FSIG_MISMATCH | FSIG_OPTIMIZED | FSIG_REORDERED,
};

/*
 * pahole 1.32's strong-over-weak rule (dcu__emit_func, index_funcs): a
 * FUNC of the definition at its symbol's address carries this linkage
 * from its batch to the merge, which sets it back to static.  Dedup keeps
 * it apart from a weak definition's FUNC meanwhile.
 */
#define FUNC_MARK_AT_SYM BTF_FUNC_GLOBAL
enum { FUNC_AT_SYM = 1, FUNC_WEAK = 2 };

/* Read-only during encoding; shared by every worker. */
/* [lo, hi): a range of offsets. */
struct enc_range {
	uint64_t lo, hi;
};

struct enc_ctx {
	const struct btf_enc_opts *opts;
	unsigned int feats;
	struct elf_file ef;
	bool is_rel;			/* ET_REL: a kernel module */
	const char **funcs;		/* sorted, unique STT_FUNC names */
	size_t nfuncs;
	uint32_t *func_hash;		/* index into funcs, UINT32_MAX: empty */
	size_t func_mask;
	uint32_t *pre_hash;		/* index into funcs by a prefix before a '.'
					 * (enc_ctx__func_prefix), or NULL */
	size_t pre_mask;
	struct enc_pcpu *pcpu;		/* sorted by offset */
	size_t npcpu;
	bool has_pcpu;
	uint32_t pcpu_shndx;
	uint64_t pcpu_addr;		/* .data..percpu sh_addr in the ELF */
	uint64_t pcpu_size;
	struct enc_range *pcpu_shadow;	/* offsets in .data..percpu that an
					 * earlier section covers (pcpu_shadow()) */
	size_t npcpu_shadow;
	bool has_suffix;		/* some function symbol has a '.' (foo.isra.0) */
	uint8_t *func_ambig;		/* per funcs (pahole 1.32's rules, else NULL):
					 * its name has symbols at two addresses */
	uint64_t *func_addr;		/* per funcs (same): its symbol's address */
	struct enc_sec *secs;		/* global_var: data sections, by index */
	size_t nsecs;
	struct enc_obj *objs;		/* global_var: by name, then offset */
	size_t nobjs;
	struct btf *base;		/* split BTF base, or NULL */
	struct dedup_lb *lb;		/* split BTF under pahole 1.32's rules:
					 * libbpf 1.7's dedup on base (enc_dedup) */
	uint32_t base_strs;		/* with lb or the stand-in
					 * (encode_base_policy.c): the base's
					 * bytes of strings */
	int lang_excl[16];
	int nlang_excl;
};

/* One DIE that becomes types [id, id + nids) in the batch's BTF. */
struct cu_ent {
	struct dwarf_die die;		/* kept: read again without a lookup */
	uint32_t id;
	uint16_t nids;			/* 0: an alias of its DW_AT_type */
	int32_t mfirst;			/* a struct's members: b->members[mfirst,
					 * + mcount); -1: walk its children */
	uint32_t mcount;
};

/* A function definition of the CU, and the offset of its last parameter (0: none). */
struct cu_sub {
	struct dwarf_die die;
	uint64_t last_param;
};

/* A VAR emitted by a batch, in emission order: its DATASEC slot. */
struct enc_var {
	uint64_t off;
	uint32_t size;
	uint32_t shndx;			/* ELF section of its DATASEC */
};

/* One batch of CUs encoded into one BTF, then deduplicated. */
struct enc_batch {
	const struct enc_ctx *ctx;
	struct btf *btf;
	uint8_t *func_done;		/* per ctx->funcs: FUNC already emitted
					 * (FUNC_DONE_WEAK: not at the symbol) */
	/*
	 * When functions are saved: the verdicts by function symbol, in an
	 * array of its worker's (cleared after each batch, so that no batch
	 * allocates and scans one per symbol), and the symbols this batch
	 * saw, with their verdicts once it is encoded.
	 */
	struct enc_fsig *fsig;
	struct enc_fsig_at *fsigs;
	size_t nfsigs, fsigs_cap;
	struct enc_var *vars;
	size_t nvars, vars_cap;
	/* scratch for the CU being encoded */
	struct cu_ent *ents;
	size_t nents, ents_cap;
	struct idxmap ent_map;		/* ents by DIE offset (dwarf_cu.c) */
	struct cu_sub *subs;
	struct dwarf_die *gvars;
	struct dwarf_die *members;	/* of the CU's structs (scan_struct()) */
	size_t nmembers, members_cap;
	struct dwarf_unit *u;		/* the CU's cursor (its worker's) */
	Dwarf *dbg;			/* for what the cursor leaves to libdw */
	/*
	 * Name -> string offset in btf: by .debug_str pointer (str_ptr), and
	 * by content for the short names inlined in DIEs (str_inl).
	 */
	struct str_cache {
		struct idxmap map;	/* key -> index into ents */
		struct str_cache_ent {
			uint64_t key;
			uint32_t off;
		} *ents;
		size_t n, cap;
	} str_ptr, str_inl;
	struct da_map *da_maps;		/* members' attributes by abbreviation */
	uint32_t da_gen;		/* of the CU: older maps are stale */
	bool decl_tags;			/* look for clang's btf_decl_tag */
	int alias_depth;		/* id-less aliases (_Atomic) followed in one
					 * type lookup: bounds a loop in bad DWARF */
	int depth;			/* of DIE nesting in the first walk */
	size_t nsubs, subs_cap, ngvars, gvars_cap;
	uint32_t int_id;		/* "int" of this CU, the array index */
	bool has_array;
	uint32_t next_id;
	uint64_t pcpu_addr;		/* .data..percpu address in DWARF */
	char err[256];
};

/* Fill ctx->funcs and ctx->pcpu from the symbol table. */
int enc_ctx__load_syms(struct enc_ctx *ctx);
/*
 * ET_REL global_var: the object symbol NAME whose variable DWARF puts at
 * ADDR (the relocated DW_OP_addr), or NULL when none or ambiguous.
 */
const struct enc_obj *enc_ctx__obj(const struct enc_ctx *ctx, const char *name,
				   uint64_t addr);
/* global_var: is there an object symbol NAME in section SHNDX? */
bool enc_ctx__obj_in(const struct enc_ctx *ctx, const char *name, uint32_t shndx);
/*
 * Rebuild *PBTF (split on BASE, or NULL) without, with PROTOS, the
 * FUNC_PROTOs folded FUNCs left unused, and without the FUNCs DROP marks
 * (one byte per type id, or NULL), their DECL_TAGs and the prototypes only
 * they used.  One rebuild for both; none when nothing goes (encode_gc.c).
 */
int enc_gc(struct btf **pbtf, const struct btf *base, const uint8_t *drop, bool protos);

/*
 * A module's base pruned to the strings of its DWARF (DW) and EXTRA
 * (strings the encoder makes): only the types and strings the module can
 * meet, under ids and offsets of their own (encode_base.c).  In two
 * steps: the module's names read (its DWARF then read no more for this),
 * then the base (RAW, SIZE bytes of BTF) pruned to them, to be freed with
 * enc_base__free() either way.  0, -ENOTSUP when RAW or the DWARF cannot
 * be read for it, or -errno.
 */
struct enc_base;
struct dwarf_scan_secs;
int enc_base__names(const struct dwarf_scan_secs *dw, const char *const *extra, size_t nextra,
		    struct enc_base **out);
/* The same names from a string section (STRS, LEN bytes: a split BTF's). */
int enc_base__names_strs(const char *strs, uint32_t len, const char *const *extra,
			 size_t nextra, struct enc_base **out);
/* BY_MEMBERS: prune anonymous types by their members' names too (libbpf 1.7 only). */
int enc_base__prune(struct enc_base *eb, const void *raw, size_t size, bool by_members);
struct btf *enc_base__btf(const struct enc_base *eb);
/* 0, or -EAGAIN when SPLIT uses a string the pruning did not know (and the
 * base may have had). */
int enc_base__check(const struct enc_base *eb, const struct btf *split);
/*
 * SPLIT's types (split BTF on the pruned base) rewritten in place to the
 * real base's ids and string offsets, its last step before it is written:
 * 0, or -EAGAIN when one refers to what the pruning left out.
 */
int enc_base__restore(const struct enc_base *eb, struct btf *split);
void enc_base__free(struct enc_base *eb);

/*
 * Which base a module is encoded on (encode_base_policy.c), chosen once
 * per encode: btf_enc__run() asks enc_base__policy(), and encode() runs
 * the policy's steps.
 */
enum enc_base_policy {
	ENC_BASE_NONE,		/* no --btf_base: BTF of its own */
	ENC_BASE_WHOLE,		/* the whole base, loaded first (--full_base, a retry) */
	ENC_BASE_DWARF,		/* pruned to its DWARF's names once that is open */
	ENC_BASE_STANDIN,	/* made on a stand-in, then on the base pruned to its
				 * BTF's strings (pahole 1.32's rules) */
};

struct enc_basing {
	enum enc_base_policy policy;
	struct enc_base *pruned;	/* a module on its pruned base: ctx.base is its */
	struct btf *standin;		/* ENC_BASE_STANDIN until dedup: ctx.base, an
					 * empty BTF (every string and id its own) */
};

/* O's policy: WHOLE to load the whole base (when there is one). */
enum enc_base_policy enc_base__policy(const struct btf_enc_opts *o, bool whole);
/* Its steps before the input is opened, then once it is (symbols, DWARF): 0 or -errno. */
int enc_basing__before(struct enc_basing *b, struct enc_ctx *ctx);
int enc_basing__after(struct enc_basing *b, struct enc_ctx *ctx);
/*
 * ENC_BASE_STANDIN at dedup: the module's names are the strings of its
 * BTF (STRS, LEN bytes), then, once that BTF is freed, the base pruned
 * to them in place of the stand-in and libbpf 1.7 opened on it.
 */
int enc_basing__names(struct enc_basing *b, struct enc_ctx *ctx, const char *strs,
		      uint32_t len);
int enc_basing__prune(struct enc_basing *b, struct enc_ctx *ctx);
/* ctx->base and what made it freed. */
void enc_basing__free(struct enc_basing *b, struct enc_ctx *ctx);

/* Call FN on every type id T refers to (encode_gc.c). */
typedef void (*enc_id_fn)(uint32_t *id, void *arg);
struct btf_type;
void enc_visit_ids(struct btf_type *t, enc_id_fn fn, void *arg);

/* decl_tag_kfuncs: tag the FUNCs of kfuncs in BTF (encode_kfunc.c). */
int enc_tag_kfuncs(const struct enc_ctx *ctx, struct btf *btf);

/* A name BTF accepts for a VAR: a C identifier, dots allowed. */
bool enc_name_valid(const char *name);

/* Index of NAME in ctx->funcs, or -1. */
int enc_ctx__func(const struct enc_ctx *ctx, const char *name);
/* Index of the first "NAME.suffix" in ctx->funcs (foo.isra.0), or -1. */
int enc_ctx__func_prefix(const struct enc_ctx *ctx, const char *name);
/* The function symbol a FUNC named NAME stands for, under ctx->feats. */
int enc_ctx__func_of(const struct enc_ctx *ctx, const char *name);

/*
 * Encode the compile unit open in U into b->btf; DBG (may be NULL) is
 * asked for the rare values U leaves to libdw.  0 or -errno + b->err.
 */
int dcu__encode(struct enc_batch *b, struct dwarf_unit *u, Dwarf *dbg);

int enc_batch__err(struct enc_batch *b, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The encoder's failure: "PATH: " and the rest as printf into o->errbuf, the first only; ERR. */
int enc_set_err(const struct btf_enc_opts *o, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
