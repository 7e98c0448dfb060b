// SPDX-License-Identifier: GPL-2.0
/* One level of subcommands from a table: "frugal", "frugal btf", "frugal bench". */
#include <string.h>

#include "cli/cli.h"

static void usage(FILE *f, const struct cli_group *g)
{
	const struct cli_cmd *c;

	fprintf(f, "usage: %s %s\n\n", g->name, g->args ? g->args : "CMD [ARGS...]");
	if (g->about)
		fprintf(f, "%s\n\n", g->about);
	fputs("Commands:\n", f);
	for (c = g->cmds; c->name; c++)
		fprintf(f, "  %-8s %s\n", c->name, c->summary);
	fprintf(f, "\n'%s help CMD' or '%s CMD --help' describes a command.\n", g->name, g->name);
}

static const struct cli_cmd *find(const struct cli_group *g, const char *name)
{
	const struct cli_cmd *c;

	for (c = g->cmds; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

static int run(const struct cli_cmd *c, int argc, char **argv)
{
	if (!cli_cmd_name)
		cli_cmd_name = c->name;
	return c->run(argc, argv);
}

/* "help" alone: the usage; "help CMD": CMD --help. */
static int help(const struct cli_group *g, int argc, char **argv)
{
	char *help_argv[] = { NULL, "--help", NULL };
	const struct cli_cmd *c;

	if (argc < 2 || strcmp(argv[0], "help")) {
		usage(stdout, g);
		return EXIT_OK;
	}
	c = find(g, argv[1]);
	if (!c)
		return cli_usage_err("unknown %s '%s'", g->noun, argv[1]);
	help_argv[0] = (char *)c->name;
	return run(c, 2, help_argv);
}

int cli_group__run(const struct cli_group *g, int argc, char **argv)
{
	const struct cli_cmd *c;

	if (argc < 2) {
		usage(stderr, g);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help"))
		return help(g, argc - 1, argv + 1);
	if (argv[1][0] == '-')
		return cli_usage_err("unknown option '%s'", argv[1]);
	c = find(g, argv[1]);
	if (!c)
		return cli_usage_err("unknown %s '%s'", g->noun, argv[1]);
	return run(c, argc - 1, argv + 1);
}
