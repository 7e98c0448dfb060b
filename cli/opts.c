// SPDX-License-Identifier: GPL-2.0
/*
 * Options from one table type: getopt's arrays built from it, each row's
 * binding applied (a field of the options struct set from the row), one
 * help printer with the table's headings.
 */
#include <ctype.h>
#include <string.h>

#include "cli/cli.h"

/* Options (not headings) in one table: frugal lock's has 43. */
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

bool cli_opt__is_heading(const struct cli_opt *o)
{
	return !o->name && o->help;
}

bool cli_opt__is_end(const struct cli_opt *o)
{
	return !o->name && !o->help;
}

const char *cli_opt__label(const struct cli_opt *o, char *buf, size_t size)
{
	if (cli_opt__has_letter(o))
		snprintf(buf, size, "-%c", o->val);
	else
		snprintf(buf, size, "--%s", o->name);
	return buf;
}

int cli_opt__word(const struct cli_opt *o, const char *word)
{
	const char *w;
	int i;

	for (i = 0; o->words && (w = o->words(i)); i++)
		if (!strcmp(w, word))
			return i;
	return -1;
}

int cli_opt__stop(void *ctx, const struct cli_opt *o, const char *arg)
{
	(void)ctx, (void)o, (void)arg;
	return CLI_OPTS_STOP;
}

/*
 * getopt's long options and short-option string from the table, and for
 * each long option its row (getopt gives the long option's index; several
 * rows may share a value).
 */
static int build(const struct cli_opt *opts, unsigned int flags, struct option *lo,
		 const struct cli_opt **rows, char *shorts)
{
	const struct cli_opt *o;
	char *s = shorts;
	int n = 0;

	if (flags & CLI_OPTS_IN_ORDER)
		*s++ = '+';
	*s++ = ':';	/* a missing value returns ':', told apart from '?' */
	for (o = opts; !cli_opt__is_end(o); o++) {
		if (cli_opt__is_heading(o))
			continue;
		if (n == MAX_OPTS)
			return -1;
		rows[n] = o;
		lo[n++] = (struct option){ o->name, o->has_arg, NULL, o->val };
		if (!cli_opt__has_letter(o))
			continue;
		*s++ = (char)o->val;
		if (o->has_arg != no_argument)
			*s++ = ':';
		if (o->has_arg == optional_argument)
			*s++ = ':';
	}
	memset(&lo[n], 0, sizeof(lo[n]));
	*s = '\0';
	return 0;
}

/* The row getopt answered: the long option it matched, else the letter's. */
static const struct cli_opt *row_of(const struct cli_opt *const *rows, int longindex, int c)
{
	int i;

	if (longindex >= 0)
		return rows[longindex];
	for (i = 0; rows[i]; i++)
		if (rows[i]->val == c)
			return rows[i];
	return NULL;
}

/*
 * CLI_BIND_WORD_MASK: "a,b" into a bit per word (the first 32 words of the
 * row's table); an empty list is refused.
 */
static int word_mask(const struct cli_opt *o, const char *label, const char *arg,
		     unsigned int *mask)
{
	const char *p = arg, *w = NULL;
	size_t n;
	int i;

	*mask = 0;
	while (*p) {
		n = strcspn(p, ",");
		for (i = 0; i < 32 && (w = o->words(i)); i++)
			if (strlen(w) == n && !strncmp(p, w, n))
				break;
		if (i == 32 || !w)
			return cli_usage_err("%s: unknown %s '%.*s'", label, o->noun, (int)n, p);
		*mask |= 1U << i;
		p += n + (p[n] == ',');
	}
	return *mask ? 0 : cli_usage_err("%s: empty list", label);
}

/* Row O's binding: its value into DST's field.  0 or EXIT_USAGE. */
static int apply_binding(const struct cli_opt *o, void *dst, const char *arg)
{
	void *field = (char *)dst + o->off;
	unsigned long long v;
	unsigned int u;
	char label[64];
	int i;

	cli_opt__label(o, label, sizeof(label));
	switch (o->bind) {
	case CLI_BIND_NONE:
		break;
	case CLI_BIND_BOOL:
		*(bool *)field = o->set;
		break;
	case CLI_BIND_BITS_SET:
		*(unsigned int *)field |= o->set;
		break;
	case CLI_BIND_BITS_CLEAR:
		*(unsigned int *)field &= ~(unsigned int)o->set;
		break;
	case CLI_BIND_STR:
		*(const char **)field = arg;
		break;
	case CLI_BIND_UINT:
		if (cli_parse_u64(label, arg, o->min, o->max, &v))
			return EXIT_USAGE;
		*(unsigned int *)field = v;
		break;
	case CLI_BIND_DOUBLE:
		return cli_parse_double(label, arg, o->dmin, o->dmax, field);
	case CLI_BIND_WORD:
		i = cli_opt__word(o, arg);
		if (i < 0)
			return cli_usage_err("%s: unknown %s '%s'", label, o->noun, arg);
		/* Through memcpy: an enum field is only known to be this size. */
		u = i;
		memcpy(field, &u, sizeof(u));
		break;
	case CLI_BIND_WORD_MASK:
		return word_mask(o, label, arg, field);
	}
	return 0;
}

int cli_opts__parse_into(const struct cli_opt *opts, void *dst, int argc, char **argv,
			 unsigned int flags, cli_opt_fn fn, void *ctx, int *next)
{
	const struct cli_opt *rows[MAX_OPTS + 1] = { NULL }, *o;
	struct option lo[MAX_OPTS + 1];
	char shorts[3 * MAX_OPTS + 3];
	int c, at, err, longindex;

	*next = argc;
	if (build(opts, flags, lo, rows, shorts))
		return cli_err(NULL, "more than %d options in one table", MAX_OPTS);
	/* 0, not 1: glibc then also forgets a group ("-tl") left half-read. */
	optind = 0;
	opterr = 0;
	for (at = 1;; at = optind) {
		longindex = -1;
		c = getopt_long(argc, argv, shorts, lo, &longindex);
		if (c == -1)
			break;
		if (c == '?' || c == ':')
			return bad_option(argc, argv, at, c);
		o = row_of(rows, longindex, c);
		err = o ? apply_binding(o, dst, optarg) : 0;
		if (!err && o && o->cb)
			err = o->cb(ctx, o, optarg);
		else if (!err && o && o->bind == CLI_BIND_NONE && fn)
			err = fn(ctx, c, optarg);
		if (err == CLI_OPTS_STOP)
			break;
		if (err)
			return err;
	}
	*next = optind;
	return 0;
}

int cli_opts__parse(const struct cli_opt *opts, int argc, char **argv,
		    unsigned int flags, cli_opt_fn fn, void *ctx, int *next)
{
	return cli_opts__parse_into(opts, ctx, argc, argv, flags, fn, ctx, next);
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

/* One column width for the whole table: the groups line up. */
void cli_opts__help(FILE *f, const struct cli_opt *opts)
{
	const struct cli_opt *o;
	char left[64];
	int w = 0;

	for (o = opts; !cli_opt__is_end(o); o++) {
		if (cli_opt__is_heading(o))
			continue;
		left_column(o, left, sizeof(left));
		if ((int)strlen(left) > w)
			w = strlen(left);
	}
	for (o = opts; !cli_opt__is_end(o); o++) {
		const char *h = o->help, *nl;

		if (cli_opt__is_heading(o)) {
			fprintf(f, "%s%s:\n", o == opts ? "" : "\n", o->help);
			continue;
		}
		left_column(o, left, sizeof(left));
		fprintf(f, "  %-*s  ", w, left);
		while ((nl = strchr(h, '\n'))) {
			fprintf(f, "%.*s\n%*s", (int)(nl - h), h, w + 4, "");
			h = nl + 1;
		}
		fprintf(f, "%s\n", h);
	}
}
