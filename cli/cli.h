/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The command layer: what every command shares.  Library code under lib/
 * never prints or exits; commands report an error once, through cli_err()
 * or cli_usage_err(), as "frugal CMD: WHAT: WHY", and return one of the
 * exit codes below.  Options come from one table type (struct cli_opt),
 * parsed by cli_opts__parse() and described by cli_opts__help(); levels of
 * subcommands dispatch through one table type (struct cli_group).
 */
#ifndef FRUGAL_CLI_H
#define FRUGAL_CLI_H

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

#define FRUGAL_VERSION "0.1.0"

enum {
	EXIT_OK		= 0,
	EXIT_RUNTIME	= 1,	/* the command ran and failed */
	EXIT_USAGE	= 2,	/* the command line was wrong */
	/* A command frugal runs, as a shell says it: */
	EXIT_CMD_CANNOT_RUN	= 126,
	EXIT_CMD_NOT_FOUND	= 127,
};

/* Name of the running tool, the prefix of every message ("lock", "btf"). */
extern const char *cli_cmd_name;

/* "frugal CMD: WHAT: WHY"; WHAT may be NULL.  Always returns EXIT_RUNTIME. */
int cli_err(const char *what, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Same line for a usage error, plus a hint at --help.  Returns EXIT_USAGE. */
int cli_usage_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Parse a whole number for option OPT, within [min, max].  The whole string
 * must be a number.  0, or EXIT_USAGE once an error naming the option is
 * printed.
 */
int cli_parse_u64(const char *opt, const char *arg, unsigned long long min,
		  unsigned long long max, unsigned long long *out);
int cli_parse_double(const char *opt, const char *arg, double min, double max,
		     double *out);

/* ---- options ---- */

/*
 * What an option's value is, or what follows a command's options: the bash
 * completion offers files, directories or the words of the option's table
 * for it (cli/gen/).  The default, text, is completed by nothing.
 */
enum cli_arg {
	CLI_ARG_TEXT,
	CLI_ARG_FILE,
	CLI_ARG_DIR,
	CLI_ARG_WORD,		/* one of the option's words */
	CLI_ARG_LIST,		/* a comma list of them */
	CLI_ARG_CMD,		/* a command to run, then its own arguments */
};

/*
 * An option's Ith word (-k's keys, -Y's types), NULL past the last; read
 * from the table its parser uses, never a copy.  A word may repeat.
 */
typedef const char *(*cli_words_fn)(unsigned int i);

/*
 * One option: its long name, its letter (or an id of CLI_OPT_LONG and up
 * for a long-only option), whether it takes a value, and its help; then
 * what the value is (for completion).  A table ends with a row whose name
 * is NULL.
 */
struct cli_opt {
	const char *name;
	int val;
	int has_arg;		/* no_argument, required_argument, optional_argument */
	const char *arg;	/* the value's name in the help ("N", "FILE") */
	const char *help;	/* a '\n' continues it under the help column */
	enum cli_arg kind;	/* CLI_ARG_TEXT unless given */
	cli_words_fn words;	/* with CLI_ARG_WORD and CLI_ARG_LIST */
};
#define CLI_OPT_LONG	0x100

/* cli_opts__parse's flags. */
enum {
	CLI_OPTS_IN_ORDER = 1 << 0,	/* stop at the first word that is not an option
					 * (a command to run follows); else GNU order */
};

/*
 * What a parser does with one option VAL and its value ARG (NULL without
 * one): 0 to go on, CLI_OPTS_STOP to stop parsing here (--help), or an exit
 * code once the reason is printed.
 */
#define CLI_OPTS_STOP	(-1)
typedef int (*cli_opt_fn)(void *ctx, int val, const char *arg);

/*
 * Read ARGV's options (ARGV[0] is the command's name) with getopt reset
 * first, calling FN for each.  A wrong option or a missing value is
 * reported once, naming the word.  Returns 0 with *NEXT the index of the
 * first word that is not an option, or FN's exit code, or EXIT_USAGE.
 * ARGV's strings are never written (GNU order may reorder the pointers).
 */
int cli_opts__parse(const struct cli_opt *opts, int argc, char **argv,
		    unsigned int flags, cli_opt_fn fn, void *ctx, int *next);
/* O has a short option, its letter in o->val. */
bool cli_opt__has_letter(const struct cli_opt *o);
/* The options of a table, one a line: "  -c, --name ARG   help". */
void cli_opts__help(FILE *f, const struct cli_opt *opts);

/* ---- subcommands ---- */

/*
 * A command: run() gets ARGV[0] == name and returns an exit code.  The rest
 * describes its command line to the man pages and the completion (cli/gen/):
 * its option table, what follows its options, and its own commands.  A
 * command with a group and no options answers 'help' (cli_group__run()); a
 * command of a group with no run() is a word its parent's parser reads
 * itself ('frugal lock top').
 */
struct cli_cmd {
	const char *name;
	const char *summary;
	int (*run)(int argc, char **argv);
	const struct cli_opt *opts;
	enum cli_arg operands;
	const struct cli_group *sub;
};

/* One level of commands: "frugal", "frugal btf", "frugal bench". */
struct cli_group {
	const char *name;	/* "frugal btf" */
	const char *args;	/* after the name in the usage; NULL: "CMD [ARGS...]" */
	const char *about;	/* a paragraph, or NULL */
	const char *noun;	/* what a command is called in errors: "command" */
	const struct cli_cmd *cmds;	/* ends with a row whose name is NULL */
};

/*
 * ARGV[1] names a command of G: run it with ARGV + 1.  Also "help [CMD]",
 * "--help" and "-h"; without a command, the usage on stderr and EXIT_USAGE.
 * The first level names the tool (cli_cmd_name) for every message below it.
 */
int cli_group__run(const struct cli_group *g, int argc, char **argv);

/* ---- logs ---- */

/* -v given: what libbpf and the tools log goes to stderr. */
extern int cli_verbose;
void cli_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* libbpf's messages are logs: shown with -v only, never its debug level. */
void cli_libbpf_logs(void);
/* Seconds on the monotonic clock: for durations, and -v's timings. */
double cli_now(void);

#endif
