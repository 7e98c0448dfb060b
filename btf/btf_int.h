/* SPDX-License-Identifier: GPL-2.0 */
/*
 * frugal btf's commands, inside: each subcommand's entry and option table,
 * its options and the parser that fills them, apart from running anything
 * so tests and fuzzers can call them, and the start diff, stat and abi
 * share (btf/cmd.c).  A parser sets its defaults, reads ARGV (ARGV[0] is
 * the subcommand: "encode", "pahole", "diff", "stat", "abi") and returns 0, or
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
#include "cli/cli.h"

struct btf;
struct btf_abi_opts;

/* `frugal btf encode ARGS` (argv[0] == "encode"); as pahole: btf_pahole_main(). */
int btf_encode_main(int argc, char **argv);
/* `frugal btf diff A B [--base BASE]`: 0 same, 1 different, 2 usage. */
int btf_diff_main(int argc, char **argv);
/* `frugal btf abi OLD NEW`: 0 same, 1 error, 2 usage, |4 changed, |8 incompatible. */
int btf_abi_main(int argc, char **argv);
/* `frugal btf stat FILE`: counts per kind and sizes. */
int btf_stat_main(int argc, char **argv);
/* `frugal btf show [-C NAMES] [FILE]`: pahole's layout view; as pahole without -J: the next. */
int btf_show_main(int argc, char **argv);
int btf_show_pahole_main(int argc, char **argv);

/* Their option tables, in btf/cmd.c's table of subcommands. */
extern const struct cli_opt btf_encode_cli_opts[];
extern const struct cli_opt btf_diff_cli_opts[];
extern const struct cli_opt btf_stat_cli_opts[];
extern const struct cli_opt btf_abi_cli_opts[];
extern const struct cli_opt btf_show_cli_opts[];

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

/* What -C's names are for: their layouts, or a search (-i, -f). */
enum btf_show_search {
	BTF_SHOW_LAYOUT,
	BTF_SHOW_CONTAINERS,		/* -i: the types with a member of it */
	BTF_SHOW_POINTERS_TO,		/* -f: the members that point to it */
};

struct btf_show_opts {
	const char *path;		/* NULL: the running kernel's BTF */
	const char *base;		/* --btf_base */
	const char *classes;		/* -C: comma-separated names */
	const char *exclude, *prefix;	/* -x, -y: name prefixes */
	unsigned int cacheline;		/* 0: the CPU's */
	unsigned int holes, bit_holes, hole_ge, padding_ge;	/* pahole's filters */
	int pahole;			/* whose rules: 130 or 132 */
	char separator;			/* -t */
	bool hex, expand, sizes, nr_members, name_len;
	bool reorg, reorg_steps;	/* -R, --show_reorg_steps (only with -R, as pahole) */
	bool reorg_moves;		/* -V: pahole's verbose, the moves named */
	bool anon, structs, unions, packed, flex, emb_flex;
	bool recursive;			/* -d */
	bool quiet, rel_offset, no_aligned, no_packed;	/* -q, -r, --suppress_* */
	bool noop;			/* pahole's switches that change nothing on BTF */
	enum btf_show_search search;
	bool verbose;
	bool help;
};

int btf_show_opts__parse(struct btf_show_opts *o, int argc, char **argv);

/* `btf abi`'s options are the abi stage's request (struct btf_abi_opts, btf/abi/abi.h). */
int btf_abi_opts__parse(struct btf_abi_opts *o, int argc, char **argv);

/* ---- the start diff, stat and abi share (btf/cmd.c) ---- */

/*
 * Their --base rows: FILE the base of both operands (BOTH's help), then
 * of each alone (A's and B's), into the const char *F[2] of T.  A table
 * holding them numbers its own long options from BTF_OPT_NEXT.
 */
enum { BTF_OPT_BASE = CLI_OPT_LONG, BTF_OPT_BASE_A, BTF_OPT_BASE_B, BTF_OPT_NEXT };
#define BTF_OPT_BASES(T, F, BOTH, A, B) \
	CLI_OPT_CALLBACK("base", BTF_OPT_BASE, required_argument, "FILE", (BOTH), \
			 btf_cmd__set_bases, 0, .kind = CLI_ARG_FILE, \
			 .off = CLI__OFF(T, F, 2 * sizeof(const char *))), \
	CLI_OPT_STR("base-a", BTF_OPT_BASE_A, T, F[0], "FILE", (A), .kind = CLI_ARG_FILE), \
	CLI_OPT_STR("base-b", BTF_OPT_BASE_B, T, F[1], "FILE", (B), .kind = CLI_ARG_FILE)
/* --base's callback: the row's two strings set to ARG. */
int btf_cmd__set_bases(void *ctx, const struct cli_opt *r, const char *arg);

/*
 * OPTS read into O (HELP its -h field), then exactly NPATHS operands into
 * PATH (else USAGE, printed): a parser's common part, after its defaults.
 */
int btf_cmd__parse(const struct cli_opt *opts, void *o, const bool *help, int argc,
		   char **argv, const char **path, int npaths, const char *usage);
/*
 * A main's start, PARSED its parser's return: that exit code, if not 0;
 * with -h (*HELP), PRINT_HELP() and EXIT_OK; else -v's logs (*VERBOSE)
 * and libbpf's messages routed through them, and -1: go on.
 */
int btf_cmd__start(int parsed, const bool *help, const bool *verbose, void (*print_help)(void));
/*
 * PATH's BTF, on BASE_PATH's when not NULL (btf_load_split(), view.h);
 * the error printed.  0 or -1.
 */
int btf_cmd__load(const char *path, const char *base_path, struct btf **base, struct btf **btf);

#endif
