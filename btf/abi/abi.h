/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `frugal btf abi OLD NEW`: which exported symbols changed their type, by
 * which path, and whether the change breaks callers.  The comparison is a
 * graph: one node per symbol and per pair of structs, unions or enums met
 * on the way (memoized, so cycles end and a type is compared once), each
 * with its own changes and its edges to the pairs its members reach.
 */
#ifndef FRUGAL_BTF_ABI_H
#define FRUGAL_BTF_ABI_H

#include <stdbool.h>

/* The exit status, a bitmask as abidiff's. */
enum {
	ABI_EXIT_CHANGED	= 4,	/* a symbol added, removed or changed */
	ABI_EXIT_INCOMPAT	= 8,	/* ... in a way that breaks its users */
};

#define ABI_SUPP_FILES 16

struct btf_abi_opts {
	const char *path[2];
	const char *base[2];
	const char *symbols;		/* --symbols FILE: the names compared */
	const char *symvers[2];		/* --symvers FILE: Module.symvers, per side */
	const char *supp[ABI_SUPP_FILES];	/* --suppressions FILE, repeatable */
	unsigned int nsupp;
	bool json;
	bool verbose;
	bool help;
	bool exports_only;	/* set per module of a tree: no __ksymtab, no symbol */
};

int btf_abi_opts__parse(struct btf_abi_opts *o, int argc, char **argv);

#endif
