/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tools frugal is made of: each tool folder's entry points, listed in
 * cli/tools.c.  A new tool is a folder, its entry here, and one row there.
 */
#ifndef FRUGAL_CLI_TOOLS_H
#define FRUGAL_CLI_TOOLS_H

#include "btf/btf.h"
#include "cli/cli.h"

/* frugal's first level of commands, and the names it answers to through a link. */
extern const struct cli_group cli_tools;

struct cli_link {
	const char *link;	/* argv[0]'s base name: "pahole" */
	const char *tool;	/* the tool that answers, for messages */
	int (*run)(int argc, char **argv);
};
extern const struct cli_link cli_links[];

/* lock/, and its command lines for the man pages and completion */
int lock_main(int argc, char **argv);
int lock_bench_main(int argc, char **argv);	/* frugal bench lock */
extern const struct cli_opt lock_cli_opts[];
extern const struct cli_group lock_cli_modes;	/* frugal lock top */
extern const struct cli_opt lock_bench_cli_opts[];

#endif
