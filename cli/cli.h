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
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
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
 * What a row does with its value itself, so that a plain flag or value needs
 * no code: it writes one field of the options struct the parse fills (DST,
 * cli_opts__parse_into()), found by its offset.  Integers are unsigned int
 * (enums too), strings const char *; CLI_OPT_* below check the field's size.
 */
enum cli_bind {
	CLI_BIND_NONE,		/* the row's callback, else the parser's function */
	CLI_BIND_BOOL,		/* bool = the row's value (true or false) */
	CLI_BIND_BITS_SET,	/* unsigned int |= the row's value */
	CLI_BIND_BITS_CLEAR,	/* unsigned int &= ~the row's value */
	CLI_BIND_STR,		/* const char * = the value as given */
	CLI_BIND_UINT,		/* unsigned int = the value, a number in [min, max] */
	CLI_BIND_DOUBLE,	/* double = the value, a number in [dmin, dmax] */
	CLI_BIND_WORD,		/* unsigned int = the index of the value among the row's words */
	CLI_BIND_WORD_MASK,	/* unsigned int = a bit per word of a comma list of them */
};

struct cli_opt;

/*
 * A row's own parser, run after its binding (a string kept, then checked;
 * a flag that also counts): 0, CLI_OPTS_STOP, or an exit code once the
 * reason is printed.  CTX is the parse's (cli_opts__parse_into()).
 */
typedef int (*cli_row_fn)(void *ctx, const struct cli_opt *o, const char *arg);

/*
 * One option: its long name, its letter (or an id of CLI_OPT_LONG and up
 * for a long-only option), whether it takes a value, and its help; then
 * what the value is (for completion); then where it goes (see enum
 * cli_bind).  A row with no name and a help is a heading: the options
 * after it, up to the next, are shown under it (--help, man pages).  A
 * table ends with a row with neither (CLI_OPT_END).
 */
struct cli_opt {
	const char *name;
	int val;
	int has_arg;		/* no_argument, required_argument, optional_argument */
	const char *arg;	/* the value's name in the help ("N", "FILE") */
	const char *help;	/* a '\n' continues it under the help column */
	enum cli_arg kind;	/* CLI_ARG_TEXT unless given */
	cli_words_fn words;	/* with CLI_ARG_WORD and CLI_ARG_LIST */
	enum cli_bind bind;
	size_t off;		/* the bound field's offset in the options struct */
	unsigned long long set;	/* a flag's value; a callback may read it too */
	unsigned long long min, max;	/* CLI_BIND_UINT's range */
	double dmin, dmax;	/* CLI_BIND_DOUBLE's */
	const char *noun;	/* CLI_BIND_WORD*: "unknown NOUN 'x'" */
	cli_row_fn cb;
};
#define CLI_OPT_LONG	0x100

/*
 * Rows, as git's parse-options writes them.  L is the letter or a
 * CLI_OPT_LONG id, T the options struct's type, F its field.  A field of
 * the wrong size does not compile.
 */
#define CLI__OFF(T, F, size) \
	(offsetof(T, F) + 0 * sizeof(char[sizeof(((T *)0)->F) == (size) ? 1 : -1]))
#define CLI_OPT_GROUP(heading)	{ .help = (heading) }
#define CLI_OPT_END		{ .name = NULL }
/* --name sets the bool F to V. */
#define CLI_OPT_BOOL(name, L, T, F, V, help, ...) \
	{ (name), (L), no_argument, NULL, (help), .bind = CLI_BIND_BOOL, \
	  .off = CLI__OFF(T, F, sizeof(bool)), .set = (V), __VA_ARGS__ }
/*
 * --name sets (or clears) the bits V of the unsigned int F.  After HELP,
 * each macro takes more of the row's fields (".cb = fn", ".kind = ...").
 */
#define CLI_OPT_BITS(name, L, T, F, V, help, ...) \
	{ (name), (L), no_argument, NULL, (help), .bind = CLI_BIND_BITS_SET, \
	  .off = CLI__OFF(T, F, sizeof(unsigned int)), .set = (V), __VA_ARGS__ }
#define CLI_OPT_BITS_CLEAR(name, L, T, F, V, help, ...) \
	{ (name), (L), no_argument, NULL, (help), .bind = CLI_BIND_BITS_CLEAR, \
	  .off = CLI__OFF(T, F, sizeof(unsigned int)), .set = (V), __VA_ARGS__ }
/* --name ARG keeps ARG in the const char * F. */
#define CLI_OPT_STR(name, L, T, F, arg, help, ...) \
	{ (name), (L), required_argument, (arg), (help), .bind = CLI_BIND_STR, \
	  .off = CLI__OFF(T, F, sizeof(const char *)), __VA_ARGS__ }
/* --name N: N in [lo, hi] into the unsigned int F. */
#define CLI_OPT_UINT(name, L, T, F, lo, hi, arg, help, ...) \
	{ (name), (L), required_argument, (arg), (help), .bind = CLI_BIND_UINT, \
	  .off = CLI__OFF(T, F, sizeof(unsigned int)), .min = (lo), .max = (hi), __VA_ARGS__ }
/* --name X: X in [lo, hi] into the double F. */
#define CLI_OPT_DOUBLE(name, L, T, F, lo, hi, arg, help, ...) \
	{ (name), (L), required_argument, (arg), (help), .bind = CLI_BIND_DOUBLE, \
	  .off = CLI__OFF(T, F, sizeof(double)), .dmin = (lo), .dmax = (hi), __VA_ARGS__ }
/* --name WORD: WORD's index among WORDS into the unsigned int (or enum) F. */
#define CLI_OPT_WORD(name, L, T, F, WORDS, noun_, arg, help) \
	{ (name), (L), required_argument, (arg), (help), CLI_ARG_WORD, (WORDS), \
	  .bind = CLI_BIND_WORD, .off = CLI__OFF(T, F, sizeof(unsigned int)), .noun = (noun_) }
/* --name W1,W2: bit I for each word I of WORDS, into the unsigned int F. */
#define CLI_OPT_WORD_MASK(name, L, T, F, WORDS, noun_, arg, help) \
	{ (name), (L), required_argument, (arg), (help), CLI_ARG_LIST, (WORDS), \
	  .bind = CLI_BIND_WORD_MASK, .off = CLI__OFF(T, F, sizeof(unsigned int)), \
	  .noun = (noun_) }
/* A row parsed by CB alone (V for it to read); HAS is no_argument or required_argument. */
#define CLI_OPT_CALLBACK(name, L, HAS, arg, help, CB, V, ...) \
	{ (name), (L), (HAS), (arg), (help), .cb = (CB), .set = (V), __VA_ARGS__ }
/* -h, --help: the bool F set, and the parse stops (later words unread). */
#define CLI_OPT_HELP(T, F) \
	{ "help", 'h', no_argument, NULL, "this help", .bind = CLI_BIND_BOOL, \
	  .off = CLI__OFF(T, F, sizeof(bool)), .set = 1, .cb = cli_opt__stop }

/* cli_opts__parse's flags. */
enum {
	CLI_OPTS_IN_ORDER = 1 << 0,	/* stop at the first word that is not an option
					 * (a command to run follows); else GNU order */
};

/*
 * What a parser does with one option VAL and its value ARG (NULL without
 * one), for rows that neither bind nor have a callback: 0 to go on,
 * CLI_OPTS_STOP to stop parsing here (--help), or an exit code once the
 * reason is printed.
 */
#define CLI_OPTS_STOP	(-1)
typedef int (*cli_opt_fn)(void *ctx, int val, const char *arg);

/*
 * Read ARGV's options (ARGV[0] is the command's name) with getopt reset
 * first: each row's binding written into DST, then its callback (CTX) or,
 * for a row with neither, FN (CTX; FN may be NULL).  A wrong option or a
 * missing value is reported once, naming the word.  Returns 0 with *NEXT
 * the index of the first word that is not an option, or an exit code once
 * the reason is printed.  ARGV's strings are never written (GNU order may
 * reorder the pointers).  A repeated option is read again: the last wins.
 */
int cli_opts__parse_into(const struct cli_opt *opts, void *dst, int argc, char **argv,
			 unsigned int flags, cli_opt_fn fn, void *ctx, int *next);
/* The same with DST and CTX one struct. */
int cli_opts__parse(const struct cli_opt *opts, int argc, char **argv,
		    unsigned int flags, cli_opt_fn fn, void *ctx, int *next);
/* O has a short option, its letter in o->val. */
bool cli_opt__has_letter(const struct cli_opt *o);
/* O is a heading row; O is the end of its table. */
bool cli_opt__is_heading(const struct cli_opt *o);
bool cli_opt__is_end(const struct cli_opt *o);
/* How messages name O: "-k", or "--max-stack" without a letter. */
const char *cli_opt__label(const struct cli_opt *o, char *buf, size_t size);
/* The index of WORD among O's words, or -1. */
int cli_opt__word(const struct cli_opt *o, const char *word);
/* A callback that only stops the parse (--help's). */
int cli_opt__stop(void *ctx, const struct cli_opt *o, const char *arg);
/*
 * The options of a table, one a line: "  -c, --name ARG   help", those
 * under a heading after a blank line and "Heading:".
 */
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
int cli_vlog(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));
/*
 * libbpf's messages are logs: shown with -v only, never its debug level.
 * This is the system's libbpf, lock/'s; btf/ has its own (btf_libbpf_logs()).
 */
void cli_libbpf_logs(void);
/* Seconds on the monotonic clock: for durations, and -v's timings. */
double cli_now(void);

#endif
