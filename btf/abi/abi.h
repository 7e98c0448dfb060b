/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The abi stage of frugal btf, what `frugal btf abi OLD NEW` runs: which
 * exported symbols changed their type, by which path, and whether the
 * change breaks callers.  The comparison is a graph: one node per symbol
 * and per pair of structs, unions or enums met on the way (memoized, so
 * cycles end and a type is compared once), each with its own changes and
 * its edges to the pairs its members reach (btf/abi/abi_int.h).  It reads
 * BTF through btf/view and encodes DWARF-only input through btf/encode.
 * Nothing here prints an error: a failure is named in struct abi_err.
 */
#ifndef FRUGAL_BTF_ABI_H
#define FRUGAL_BTF_ABI_H

#include <limits.h>
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

/* btf_abi_opts__parse() is the command's (btf/btf_int.h). */

/* What failed: WHAT (a path; empty: none) and WHY, as cli_err() prints them. */
struct abi_err {
	char what[PATH_MAX];
	char why[PATH_MAX + 512];
};

/* The report of one comparison (btf/abi/abi_int.h). */
struct abi;

/* PATH names a directory: `btf abi` then compares two trees. */
bool abi__is_dir(const char *path);

/*
 * Compare as O asks: two files, or two directories each of a vmlinux and
 * modules (btf/abi/abi_tree.c).  0 and *OUT, the report (abi__delete()),
 * or -1 with ERR filled.
 */
int abi__compare(const struct btf_abi_opts *o, struct abi **out, struct abi_err *err);
/* The exit status its symbols make: 0, ABI_EXIT_CHANGED | ABI_EXIT_INCOMPAT. */
int abi__exit_status(const struct abi *abi);
/* The report (btf/abi/abi_out.c); OLD and NEW are the paths as given. */
void abi__print_text(const struct abi *abi);
void abi__print_json(const struct abi *abi, const char *old, const char *new_path);
void abi__delete(struct abi *abi);
/* What the comparison found doubtful but not wrong (two modules of other names), or NULL. */
const char *abi__warning(const struct abi *abi);

#endif
