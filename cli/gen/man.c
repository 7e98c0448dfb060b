// SPDX-License-Identifier: GPL-2.0
/*
 * A man page: the template's roff as it is, with its marker lines replaced
 * by what the tables say.  A marker is a whole line:
 *   @OPTIONS PATH@    the options of `frugal PATH`, as --help lists them,
 *                     each heading of the table a sub-section (.SS)
 *   @COMMANDS PATH@   the commands of `frugal PATH` ('@COMMANDS @': frugal's)
 *   @WORDS PATH --OPT@  the words OPT of `frugal PATH` takes, bold, ", "-separated
 * and @VERSION@ anywhere is frugal's version.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli/gen/gen.h"

/* A '-' that starts an option's name ("-U", "--max-stack") prints as a minus. */
static bool option_dash(const char *s, const char *p)
{
	char before = p > s ? p[-1] : ' ';

	return (p[1] == '-' || isalnum((unsigned char)p[1])) &&
	       (before == ' ' || before == '(' || before == '[' || before == '/' ||
		before == '-' || before == ',');
}

/* S as roff text on its own line(s): escapes, and a help's '\n' as a space. */
static void text(FILE *f, const char *s)
{
	const char *p;

	if (*s == '.' || *s == '\'')
		fputs("\\&", f);
	for (p = s; *p; p++) {
		if (*p == '\\')
			fputs("\\e", f);
		else if (*p == '-' && option_dash(s, p))
			fputs("\\-", f);
		else
			fputc(*p == '\n' ? ' ' : *p, f);
	}
}

/*
 * A help string with a full stop.  Not capitalised: many start with a
 * value's own spelling ("spinlock, rwlock...").
 */
static void sentence(FILE *f, const char *help)
{
	size_t n = strlen(help);

	text(f, help);
	fputs(n && strchr(".!?", help[n - 1]) ? "\n" : ".\n", f);
}

/* ".TP", then "-k, --key KEY" as --help writes it, then the help. */
static void option(FILE *f, const struct cli_opt *o)
{
	fputs(".TP\n", f);
	if (cli_opt__has_letter(o))
		fprintf(f, "\\fB\\-%c\\fR, ", o->val);
	fputs("\\fB\\-\\-", f);
	text(f, o->name);
	fputs("\\fR", f);
	if (o->has_arg == required_argument)
		fprintf(f, " \\fI%s\\fR", o->arg ? o->arg : "ARG");
	else if (o->has_arg == optional_argument)
		fprintf(f, "[=\\fI%s\\fR]", o->arg ? o->arg : "ARG");
	fputc('\n', f);
	/* Every table's -h says "this help", which a page cannot. */
	sentence(f, strcmp(o->help, "this help") ? o->help : "print the help and exit");
}

/* A heading of the table: a sub-section of OPTIONS, as --help groups them. */
static void heading(FILE *f, const char *h)
{
	fputs(".SS ", f);
	text(f, h);
	fputc('\n', f);
}

static void commands(FILE *f, const struct cli_group *g)
{
	const struct cli_cmd *c;

	for (c = g->cmds; c->name; c++) {
		fprintf(f, ".TP\n.B %s\n", c->name);
		sentence(f, c->summary);
	}
}

static const struct gen_node *find(const struct gen_node *nodes, int n, const char *path)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(nodes[i].path, path))
			return &nodes[i];
	return NULL;
}

/* "\fBa\fR, \fBb\fR": each of O's words once. */
static void words(FILE *f, const struct cli_opt *o)
{
	const char *w;
	unsigned int i;

	for (i = 0; (w = o->words(i)); i++) {
		if (gen__word_seen(o, i))
			continue;
		fputs(i ? ",\n\\fB\\%" : "\\fB\\%", f);
		text(f, w);
		fputs("\\fR", f);
	}
	fputc('\n', f);
}

/* "@WORDS lock --key@": PATH's option NAME, with words, or NULL. */
static const struct cli_opt *words_opt(const struct gen_node *node, const char *name)
{
	const struct cli_opt *o;

	for (o = node && node->opts ? node->opts : NULL; o && !cli_opt__is_end(o); o++)
		if (o->name && !strcmp(o->name, name) && o->words)
			return o;
	return NULL;
}

/* The text between "@WORD " and the last '@', split at " --" into path and option. */
static int marker_args(const char *line, char *path, size_t size, const char **opt)
{
	const char *p = strchr(line, ' '), *end = strrchr(line, '@'), *dashes;

	if (!p || end <= p || (size_t)(end - p) > size)
		return -1;
	snprintf(path, end - p, "%s", p + 1);
	dashes = strstr(path, " --");
	*opt = dashes ? dashes + 3 : NULL;
	if (dashes)
		path[dashes - path] = '\0';
	return 0;
}

/* "@OPTIONS btf encode@": its part of the page, or an exit code. */
static int marker(FILE *f, const char *line, const char *where)
{
	struct gen_node nodes[GEN_MAX_NODES];
	const struct gen_node *node;
	const struct cli_opt *o;
	const char *opt;
	char path[64];
	int n = gen__nodes(nodes, GEN_MAX_NODES);

	if (marker_args(line, path, sizeof(path), &opt))
		return cli_err(where, "a marker is '@WHAT PATH@', not '%s'", line);
	node = find(nodes, n, path);
	if (!strncmp(line, "@OPTIONS ", 9) && node && node->opts) {
		for (o = node->opts; !cli_opt__is_end(o); o++)
			if (cli_opt__is_heading(o))
				heading(f, o->help);
			else
				option(f, o);
	} else if (!strncmp(line, "@COMMANDS ", 10) && node && node->sub) {
		commands(f, node->sub);
	} else if (!strncmp(line, "@WORDS ", 7) && opt && (o = words_opt(node, opt))) {
		words(f, o);
	} else {
		return cli_err(where, "'%s': no such marker, command or option", line);
	}
	return EXIT_OK;
}

/* LINE with each @VERSION@ replaced. */
static void version(FILE *f, const char *line)
{
	const char *p;

	while ((p = strstr(line, "@VERSION@"))) {
		fprintf(f, "%.*s%s", (int)(p - line), line, FRUGAL_VERSION);
		line = p + strlen("@VERSION@");
	}
	fputs(line, f);
}

int gen__man(FILE *f, const char *template)
{
	char *line = NULL, where[512];
	size_t size = 0;
	ssize_t len;
	int err = EXIT_OK, nr = 0;
	FILE *in = fopen(template, "r");

	if (!in)
		return cli_err(template, "%s", strerror(errno));
	while (!err && (len = getline(&line, &size, in)) > 0) {
		snprintf(where, sizeof(where), "%s:%d", template, ++nr);
		if (line[0] != '@') {
			version(f, line);
			continue;
		}
		line[len - 1] = line[len - 1] == '\n' ? '\0' : line[len - 1];
		err = marker(f, line, where);
	}
	if (!err && ferror(in))
		err = cli_err(template, "%s", strerror(errno));
	free(line);
	fclose(in);
	return err;
}
