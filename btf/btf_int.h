/* SPDX-License-Identifier: GPL-2.0 */
/*
 * frugal btf's commands, inside: each subcommand's options and the parser
 * that fills them, apart from running anything so tests and fuzzers can
 * call them.  A parser sets its defaults, reads ARGV (ARGV[0] is the
 * subcommand: "encode", "pahole", "diff", "stat") and returns 0, or
 * EXIT_USAGE once the reason is printed.  With -h (or encode's --version)
 * it returns 0 with help (version) set; what else was read may be partial.
 * Nothing is opened, loaded or allocated; the strings of ARGV are never
 * written (GNU getopt may reorder the pointers: options first).  Each reads
 * its option table through cli_opts__parse(), which starts getopt afresh
 * and reports a wrong option once.
 */
#ifndef FRUGAL_BTF_INT_H
#define FRUGAL_BTF_INT_H

#include <stdbool.h>

#include "btf/encode/encode.h"

struct btf_encode_args {
	struct btf_enc_opts opts;	/* path, detached, base, features, jobs */
	char features[1024];		/* --btf_features lists, joined by ',' */
	bool have_features;
	bool strict;			/* an unknown feature name is an error */
	bool verbose;			/* -V */
	bool version;
	bool supported;			/* --supported_btf_features */
	bool have_compat;		/* --pahole_compat given */
	enum btf_rules compat;		/* its release */
	bool help;
};

/* pahole -J's command line. */
int btf_encode_args__parse(struct btf_encode_args *a, int argc, char **argv);

struct btf_diff_opts {
	const char *path[2];
	const char *base[2];
	unsigned int kinds;		/* BTF_CANON_* categories compared */
	bool summary, full, quiet;
	bool verbose;			/* -v */
	bool help;
};

int btf_diff_opts__parse(struct btf_diff_opts *o, int argc, char **argv);

struct btf_stat_opts {
	const char *path;
	const char *base;
	bool dump;
	bool verbose;			/* -v */
	bool help;
};

int btf_stat_opts__parse(struct btf_stat_opts *o, int argc, char **argv);

#endif
