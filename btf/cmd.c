// SPDX-License-Identifier: GPL-2.0
/* `frugal btf SUBCMD`: encode, diff and stat, from one table. */
#include "btf/btf.h"
#include "cli/tools.h"

static const struct cli_cmd cmds[] = {
	{ "encode", "encode DWARF as BTF: [pahole -J options] FILE", btf_encode_main },
	{ "diff", "compare two BTF blobs: A B [--base BASE]", btf_diff_main },
	{ "stat", "counts per kind, sizes: FILE", btf_stat_main },
	{ NULL, NULL, NULL },
};

static const struct cli_group group = {
	.name = "frugal btf",
	.about = "BTF from DWARF, and a look at BTF.  Invoked as 'pahole' (through a link),\n"
		 "frugal acts as 'frugal btf encode' with pahole's command line.",
	.noun = "subcommand",
	.cmds = cmds,
};

int btf_main(int argc, char **argv)
{
	return cli_group__run(&group, argc, argv);
}
