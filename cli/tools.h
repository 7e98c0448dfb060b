/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tools frugal is made of: each tool folder's entry points, listed in
 * cli/tools.c.  A new tool is a folder, its header included here (it
 * declares its entry points), and one row there.
 */
#ifndef FRUGAL_CLI_TOOLS_H
#define FRUGAL_CLI_TOOLS_H

#include "btf/btf.h"
#include "cli/cli.h"
#include "lock/lock_cmd.h"

/* frugal's first level of commands, and the names it answers to through a link. */
extern const struct cli_group cli_tools;

struct cli_link {
	const char *link;	/* argv[0]'s base name: "pahole" */
	const char *tool;	/* the tool that answers, for messages */
	int (*run)(int argc, char **argv);
};
extern const struct cli_link cli_links[];

/* Each tool declares its own entry points: lock/lock_cmd.h, btf/btf.h. */

#endif
