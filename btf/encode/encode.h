/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The DWARF -> BTF encoder behind `frugal btf encode` and the pahole
 * drop-in.  One call encodes one ELF file; errors come back as a negative
 * errno plus a one-line reason in opts->errbuf, never printed here.
 */
#ifndef FRUGAL_BTF_ENCODE_H
#define FRUGAL_BTF_ENCODE_H

#include <stdbool.h>
#include <stddef.h>

/* pahole's --btf_features names, same meaning. */
enum btf_feat {
	BTF_FEAT_ENCODE_FORCE		= 1u << 0,
	BTF_FEAT_VAR			= 1u << 1,	/* per-CPU VARs + DATASEC */
	BTF_FEAT_FLOAT			= 1u << 2,
	BTF_FEAT_DECL_TAG		= 1u << 3,
	BTF_FEAT_TYPE_TAG		= 1u << 4,
	BTF_FEAT_ENUM64			= 1u << 5,
	BTF_FEAT_OPTIMIZED_FUNC		= 1u << 6,
	BTF_FEAT_CONSISTENT_FUNC	= 1u << 7,
	BTF_FEAT_DECL_TAG_KFUNCS	= 1u << 8,
	BTF_FEAT_REPRODUCIBLE_BUILD	= 1u << 9,	/* always true for us */
	BTF_FEAT_GLOBAL_VAR		= 1u << 10,
	BTF_FEAT_ATTRIBUTES		= 1u << 11,	/* arena kfuncs' address_space(1) */
};

/* What pahole -J encodes when no --btf_features is given. */
#define BTF_FEAT_LEGACY (BTF_FEAT_VAR | BTF_FEAT_DECL_TAG | \
			 BTF_FEAT_TYPE_TAG | BTF_FEAT_ENUM64)

/*
 * Whose rules the encoder follows where pahole changed them between
 * releases without a switch to choose: which per-CPU variables get a VAR
 * (1.28 rewrote that rule); which functions get a FUNC, whose prototype,
 * and how multi-dimensional arrays are written (1.31 and 1.32).  A command
 * line made only of pahole 1.24's switches gets 1.24's rules, one with a
 * later switch 1.30's, unless --pahole_compat names the release
 * (btf_encode_args__parse decides; see docs/btf.md).  In release order:
 * a rule new in a release applies from it on (rules >= ...).
 */
enum btf_rules {
	BTF_RULES_PAHOLE_1_24,
	BTF_RULES_PAHOLE_1_30,
	BTF_RULES_PAHOLE_1_32,
};

/*
 * Where the CPU time went, in seconds of thread CPU time (workers' summed):
 * `-v` prints it, and bench-btf sets it beside the DWARF walk's floor.
 */
struct btf_enc_times {
	double setup;		/* base BTF, ELF, symbols, units listed */
	double encode;		/* DWARF -> BTF, the batches' btf__add_* */
	double dedup;		/* each batch's btf__dedup */
	double merge;		/* batches appended, re-deduplicated when doubled */
	double finish;		/* last dedup, FUNC rules, DATASEC, kfunc tags */
	double write;		/* serialized and written */
	const char *base;	/* split BTF: "pruned", "whole", "whole, after a retry" */
};

struct btf_enc_opts {
	const char *path;		/* ELF with DWARF to encode */
	const char *detached;		/* write raw BTF here, ELF untouched */
	const char *base;		/* base BTF (ELF or raw): split BTF */
	const char *lang_exclude;	/* comma list of DW_LANG names */
	unsigned int features;		/* enum btf_feat bits */
	enum btf_rules rules;		/* 0 (1.24's) unless set */
	unsigned int jobs;		/* worker threads, >= 1 */
	char *errbuf;			/* reason on failure */
	size_t errlen;
	struct btf_enc_times *times;	/* filled when not NULL */
	bool full_base;			/* modules: index the whole base, as pahole
					 * does, not the pruned one (cross-checks) */
};

/* Feature bit for a --btf_features name, 0 if unknown. */
unsigned int btf_feat__from_name(const char *name);
/* The Ith feature's name, NULL past the last (completion). */
const char *btf_feat__name(unsigned int i);
/* Every feature pahole's --btf_features=all / =default turns on. */
unsigned int btf_feat__all(void);
unsigned int btf_feat__default(void);
/* Why a feature pahole knows is not honoured here, or NULL (an honoured
 * or an unknown name). */
const char *btf_feat__unsupported(const char *name);
/* The honoured features' names, comma-separated in pahole's order, into
 * BUF (as --supported_btf_features prints them).  0 or -ENOSPC. */
int btf_feat__supported(char *buf, size_t len);

/* 0 if every name in the comma LIST is a language --lang_exclude knows;
 * else -EINVAL with the first unknown one in BAD. */
int btf_enc__check_langs(const char *list, char *bad, size_t len);

/* Encode opts->path.  0 or -errno with opts->errbuf filled. */
int btf_enc__run(const struct btf_enc_opts *opts);

#endif
