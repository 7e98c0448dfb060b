// SPDX-License-Identifier: GPL-2.0
/* Options from one table type: getopt's arrays built from it, one help printer. */
#include <ctype.h>
#include <string.h>

#include "cli/cli.h"

/* The largest option table (frugal btf encode's) has 26 rows. */
#define MAX_OPTS 64

/*
 * getopt returned '?' or ':' (C) having started at ARGV[AT].  In GNU order
 * it may have skipped words that are not options, so the word it read is
 * the first from AT that looks like one (a group read halfway, "-tZ", is
 * still at AT).  A long option is named by its word, a short one by optopt.
 */
static int bad_option(int argc, char **argv, int at, int c)
{
	const char *w = "";
	int i;

	for (i = at > 0 ? at : 1; i < argc; i++)
		if (argv[i][0] == '-' && argv[i][1]) {
			w = argv[i];
			break;
		}
	if (w[0] == '-' && w[1] == '-')
		return c == ':' ? cli_usage_err("option '%s' needs a value", w) :
				  cli_usage_err("unknown option '%s'", w);
	return c == ':' ? cli_usage_err("option '-%c' needs a value", optopt) :
			  cli_usage_err("unknown option '-%c'", optopt);
}

bool cli_opt__has_letter(const struct cli_opt *o)
{
	return o->val > 0 && o->val < CLI_OPT_LONG && isalnum(o->val);
}

/* getopt's long options and short-option string from the table. */
static int build(const struct cli_opt *opts, unsigned int flags, struct option *lo,
		 char *shorts)
{
	char *s = shorts;
	int n;

	if (flags & CLI_OPTS_IN_ORDER)
		*s++ = '+';
	*s++ = ':';	/* a missing value returns ':', told apart from '?' */
	for (n = 0; opts[n].name; n++) {
		if (n == MAX_OPTS)
			return -1;
		lo[n] = (struct option){ opts[n].name, opts[n].has_arg, NULL, opts[n].val };
		if (!cli_opt__has_letter(&opts[n]))
			continue;
		*s++ = (char)opts[n].val;
		if (opts[n].has_arg != no_argument)
			*s++ = ':';
		if (opts[n].has_arg == optional_argument)
			*s++ = ':';
	}
	memset(&lo[n], 0, sizeof(lo[n]));
	*s = '\0';
	return 0;
}

int cli_opts__parse(const struct cli_opt *opts, int argc, char **argv,
		    unsigned int flags, cli_opt_fn fn, void *ctx, int *next)
{
	struct option lo[MAX_OPTS + 1];
	char shorts[3 * MAX_OPTS + 3];
	int c, at, err;

	*next = argc;
	if (build(opts, flags, lo, shorts))
		return cli_err(NULL, "more than %d options in one table", MAX_OPTS);
	/* 0, not 1: glibc then also forgets a group ("-tl") left half-read. */
	optind = 0;
	opterr = 0;
	for (at = 1; (c = getopt_long(argc, argv, shorts, lo, NULL)) != -1; at = optind) {
		if (c == '?' || c == ':')
			return bad_option(argc, argv, at, c);
		err = fn(ctx, c, optarg);
		if (err == CLI_OPTS_STOP)
			break;
		if (err)
			return err;
	}
	*next = optind;
	return 0;
}

/* "-c, --name ARG", "    --name[=ARG]" */
static void left_column(const struct cli_opt *o, char *buf, size_t size)
{
	const char *arg = o->arg ? o->arg : "ARG";
	bool letter = cli_opt__has_letter(o);

	snprintf(buf, size, "%s%c%s--%s%s%s%s", letter ? "-" : " ",
		 letter ? o->val : ' ', letter ? ", " : "  ", o->name,
		 o->has_arg == optional_argument ? "[=" : o->has_arg ? " " : "",
		 o->has_arg ? arg : "", o->has_arg == optional_argument ? "]" : "");
}

void cli_opts__help(FILE *f, const struct cli_opt *opts)
{
	const struct cli_opt *o;
	char left[64];
	int w = 0;

	for (o = opts; o->name; o++) {
		left_column(o, left, sizeof(left));
		if ((int)strlen(left) > w)
			w = strlen(left);
	}
	for (o = opts; o->name; o++) {
		const char *h = o->help, *nl;

		left_column(o, left, sizeof(left));
		fprintf(f, "  %-*s  ", w, left);
		while ((nl = strchr(h, '\n'))) {
			fprintf(f, "%.*s\n%*s", (int)(nl - h), h, w + 4, "");
			h = nl + 1;
		}
		fprintf(f, "%s\n", h);
	}
}
