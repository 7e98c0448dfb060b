/* SPDX-License-Identifier: GPL-2.0 */
/*
 * frugal-gen: the man pages and the bash completion, written at build time
 * from the tables the commands parse with (cli/tools.c's tree of struct
 * cli_cmd, each with its struct cli_opt table), so that neither can drift
 * from --help.  Not part of the frugal binary.
 */
#ifndef FRUGAL_CLI_GEN_H
#define FRUGAL_CLI_GEN_H

#include <stdbool.h>
#include <stdio.h>

#include "cli/cli.h"

/* One command of the tree: frugal itself, "btf", "btf encode", "lock top". */
struct gen_node {
	char path[64];			/* its words after "frugal", "" for frugal */
	const struct cli_group *sub;	/* its commands, or NULL */
	const struct cli_opt *opts;	/* its options; NULL for a group */
	enum cli_arg operands;		/* what follows its options */
	bool group;			/* answers help, -h, --help (cli_group__run) */
};

/* Every command, parents first, into NODES.  The count, or -1 past MAX. */
int gen__nodes(struct gen_node *nodes, int max);
#define GEN_MAX_NODES 32

/* Whether O's word I is one of its words before I (a table may list a word
 * twice, as -Y's aliases do): each generator prints each word once. */
bool gen__word_seen(const struct cli_opt *o, unsigned int i);

/* A man page from TEMPLATE (docs/man/NAME.1.in) on F.  An exit code. */
int gen__man(FILE *f, const char *template);
/* bash's completion of frugal on F.  An exit code. */
int gen__bash(FILE *f);

#endif
