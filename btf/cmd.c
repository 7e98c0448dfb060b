// SPDX-License-Identifier: GPL-2.0
/*
 * `frugal btf SUBCMD`: encode, diff, abi and stat, from one table; and the
 * start diff, stat and abi share (btf/btf_int.h).
 */
#include <stdio.h>

#include "btf/btf.h"
#include "btf/btf_int.h"
#include "btf/view/view.h"
#include "cli/cli.h"

static const struct cli_cmd cmds[] = {
	{ "encode", "encode DWARF as BTF: [pahole -J options] FILE", btf_encode_main,
	  btf_encode_cli_opts, CLI_ARG_FILE, NULL },
	{ "diff", "compare two BTF blobs: A B [--base BASE]", btf_diff_main,
	  btf_diff_cli_opts, CLI_ARG_FILE, NULL },
	{ "abi", "ABI changes of exported symbols: OLD NEW [--base BASE]", btf_abi_main,
	  btf_abi_cli_opts, CLI_ARG_FILE, NULL },
	{ "stat", "counts per kind, sizes: FILE", btf_stat_main,
	  btf_stat_cli_opts, CLI_ARG_FILE, NULL },
	{ "show", "pahole's layout view: [-C NAMES] [FILE]", btf_show_main,
	  btf_show_cli_opts, CLI_ARG_FILE, NULL },
	{ NULL, NULL, NULL, NULL, 0, NULL },
};

const struct cli_group btf_cli_group = {
	.name = "frugal btf",
	.about = "BTF from DWARF, and a look at BTF.  Invoked as 'pahole' (through a link),\n"
		 "frugal acts as 'frugal btf encode' with pahole's command line, and\n"
		 "without -J as 'frugal btf show'.",
	.noun = "subcommand",
	.cmds = cmds,
};

int btf_main(int argc, char **argv)
{
	return cli_group__run(&btf_cli_group, argc, argv);
}

int btf_cmd__set_bases(void *ctx, const struct cli_opt *r, const char *arg)
{
	const char **base = (const char **)((char *)ctx + r->off);

	base[0] = base[1] = arg;
	return 0;
}

int btf_cmd__parse(const struct cli_opt *opts, void *o, const bool *help, int argc,
		   char **argv, const char **path, int npaths, const char *usage)
{
	int next, err, i;

	err = cli_opts__parse(opts, argc, argv, 0, NULL, o, &next);
	if (err || *help)
		return err;
	if (argc - next != npaths)
		return cli_usage_err("%s", usage);
	for (i = 0; i < npaths; i++)
		path[i] = argv[next + i];
	return 0;
}

int btf_cmd__start(int parsed, const bool *help, const bool *verbose, void (*print_help)(void))
{
	if (parsed)
		return parsed;
	if (*help) {
		print_help();
		return EXIT_OK;
	}
	if (*verbose)
		cli_verbose = 1;
	cli_libbpf_logs();
	return -1;
}

int btf_cmd__load(const char *path, const char *base_path, struct btf **base, struct btf **btf)
{
	const char *failed;
	char why[256];

	if (!btf_load_split(path, base_path, base, btf, &failed, why, sizeof(why)))
		return 0;
	cli_err(failed, "%s", why);
	return -1;
}
