// SPDX-License-Identifier: GPL-2.0
/* `frugal btf SUBCMD`: encode, diff, abi and stat, from one table. */
#include "btf/btf.h"
#include "cli/tools.h"

static const struct cli_cmd cmds[] = {
	{ "encode", "encode DWARF as BTF: [pahole -J options] FILE", btf_encode_main,
	  btf_encode_cli_opts, CLI_ARG_FILE, NULL },
	{ "diff", "compare two BTF blobs: A B [--base BASE]", btf_diff_main,
	  btf_diff_cli_opts, CLI_ARG_FILE, NULL },
	{ "abi", "ABI changes of exported symbols: OLD NEW [--base BASE]", btf_abi_main,
	  btf_abi_cli_opts, CLI_ARG_FILE, NULL },
	{ "stat", "counts per kind, sizes: FILE", btf_stat_main,
	  btf_stat_cli_opts, CLI_ARG_FILE, NULL },
	{ NULL, NULL, NULL, NULL, 0, NULL },
};

const struct cli_group btf_cli_group = {
	.name = "frugal btf",
	.about = "BTF from DWARF, and a look at BTF.  Invoked as 'pahole' (through a link),\n"
		 "frugal acts as 'frugal btf encode' with pahole's command line.",
	.noun = "subcommand",
	.cmds = cmds,
};

int btf_main(int argc, char **argv)
{
	return cli_group__run(&btf_cli_group, argc, argv);
}
