// SPDX-License-Identifier: GPL-2.0
/* frugal's entry point: find the subcommand and hand it the command line. */
#include <string.h>

#include "cli/cli.h"

static const struct cli_cmd commands[] = {
	/* Tool commands are added here as their folders land. */
	{ "btf", "DWARF to BTF encoder (pahole -J), BTF diff and stat", cmd_btf },
	{ "lock", "kernel lock contention (perf lock contention -b), nothing lost", cmd_lock },
	{ "bench", "built-in workloads: 'bench lock' makes kernel lock contention", cmd_bench },
	{ NULL, NULL, NULL },
};

static void print_usage(FILE *f)
{
	const struct cli_cmd *c;

	fputs("usage: frugal [--version] [help [CMD]] CMD [ARGS...]\n\n"
	      "Low-overhead Linux observability.  Commands:\n", f);
	for (c = commands; c->name; c++)
		fprintf(f, "  %-8s %s\n", c->name, c->summary);
	fputs("\n'frugal help CMD' or 'frugal CMD --help' describes a command.\n", f);
}

static const struct cli_cmd *find_cmd(const char *name)
{
	const struct cli_cmd *c;

	for (c = commands; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

static int run_cmd(const struct cli_cmd *c, int argc, char **argv)
{
	cli_cmd_name = c->name;
	return c->run(argc, argv);
}

static int do_help(int argc, char **argv)
{
	const struct cli_cmd *c;
	char *help_argv[] = { NULL, "--help", NULL };

	if (argc < 2) {
		print_usage(stdout);
		return EXIT_OK;
	}
	c = find_cmd(argv[1]);
	if (!c)
		return cli_usage_err("unknown command '%s'", argv[1]);
	help_argv[0] = (char *)c->name;
	return run_cmd(c, 2, help_argv);
}

int main(int argc, char **argv)
{
	const struct cli_cmd *c;
	const char *base = strrchr(argv[0], '/');

	base = base ? base + 1 : argv[0];
	/* Invoked through a "pahole" link: behave as pahole -J does. */
	if (!strcmp(base, "pahole")) {
		for (c = commands; c->name && strcmp(c->name, "btf"); c++)
			;
		if (c->name)
			return run_cmd(c, argc, argv);
	}

	if (argc < 2) {
		print_usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("frugal %s\n", FRUGAL_VERSION);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help"))
		return do_help(argc - 1, argv + 1);
	if (argv[1][0] == '-')
		return cli_usage_err("unknown option '%s'", argv[1]);
	c = find_cmd(argv[1]);
	if (!c)
		return cli_usage_err("unknown command '%s'", argv[1]);
	return run_cmd(c, argc - 1, argv + 1);
}
