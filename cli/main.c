// SPDX-License-Identifier: GPL-2.0
/* frugal's entry point: find the tool (cli/tools.c) and hand it the command line. */
#include <string.h>

#include "cli/tools.h"

int main(int argc, char **argv)
{
	const char *base = strrchr(argv[0], '/');
	const struct cli_link *l;

	base = base ? base + 1 : argv[0];
	for (l = cli_links; l->link; l++)
		if (!strcmp(base, l->link)) {
			cli_cmd_name = l->tool;
			return l->run(argc, argv);
		}
	if (argc > 1 && (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version"))) {
		printf("frugal %s\n", FRUGAL_VERSION);
		return EXIT_OK;
	}
	return cli_group__run(&cli_tools, argc, argv);
}
