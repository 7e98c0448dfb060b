/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The command layer: what every subcommand shares.  Library code under lib/
 * never prints or exits; commands report an error once, through cli_err(),
 * as "frugal CMD: WHAT: WHY", and return one of the exit codes below.
 */
#ifndef FRUGAL_CLI_H
#define FRUGAL_CLI_H

#include <stdbool.h>
#include <stdio.h>

#define FRUGAL_VERSION "0.1.0"

enum {
	EXIT_OK		= 0,
	EXIT_RUNTIME	= 1,	/* the command ran and failed */
	EXIT_USAGE	= 2,	/* the command line was wrong */
};

/* A subcommand.  run() gets argv[0] == name and returns an exit code. */
struct cli_cmd {
	const char *name;
	const char *summary;
	int (*run)(int argc, char **argv);
};

/* Name of the running subcommand, used as the prefix of every message. */
extern const char *cli_cmd_name;

/* "frugal CMD: WHAT: WHY"; WHAT may be NULL.  Always returns EXIT_RUNTIME. */
int cli_err(const char *what, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Same line for a usage error, plus a hint at --help.  Returns EXIT_USAGE. */
int cli_usage_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Parse a whole number for option OPT, within [min, max].  The whole string
 * must be a number; on failure an error naming the option is printed and
 * -EINVAL (or -ERANGE) returned.
 */
int cli_parse_u64(const char *opt, const char *arg, unsigned long long min,
		  unsigned long long max, unsigned long long *out);
int cli_parse_double(const char *opt, const char *arg, double min, double max,
		     double *out);

/* -v given: what libbpf and the tools log goes to stderr. */
extern int cli_verbose;
void cli_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Seconds on the monotonic clock: for durations, and -v's timings. */
double cli_now(void);

/* Commands provided by the tool folders. */
int cmd_lock(int argc, char **argv);
int cmd_btf(int argc, char **argv);
int cmd_bench(int argc, char **argv);

#endif
