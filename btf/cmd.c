// SPDX-License-Identifier: GPL-2.0
/* `frugal btf SUBCMD`: dispatch to encode, diff and stat. */
#include <getopt.h>
#include <string.h>

#include "btf/btf.h"
#include "btf/btf_int.h"
#include "cli/cli.h"

static const char usage[] =
"usage: frugal btf encode [pahole -J options] FILE   encode DWARF as BTF\n"
"       frugal btf diff A B [--base BASE]          compare two BTF blobs\n"
"       frugal btf stat FILE                       counts per kind, sizes\n"
"\n"
"Invoked as 'pahole' (through a link), frugal acts as 'frugal btf encode'.\n";

int cmd_btf(int argc, char **argv)
{
	const char *sub, *base = strrchr(argv[0], '/');

	/* A kernel build runs it by path: make PAHOLE=/usr/libexec/frugal/pahole */
	base = base ? base + 1 : argv[0];
	if (!strcmp(base, "pahole"))
		return btf_encode_main(argc, argv, true);
	if (argc < 2) {
		fputs(usage, stderr);
		return EXIT_USAGE;
	}
	sub = argv[1];
	if (!strcmp(sub, "--help") || !strcmp(sub, "-h") || !strcmp(sub, "help")) {
		fputs(usage, stdout);
		return EXIT_OK;
	}
	if (!strcmp(sub, "encode"))
		return btf_encode_main(argc - 1, argv + 1, false);
	if (!strcmp(sub, "diff"))
		return btf_diff_main(argc - 1, argv + 1);
	if (!strcmp(sub, "stat"))
		return btf_stat_main(argc - 1, argv + 1);
	return cli_usage_err("unknown subcommand '%s'", sub);
}

/*
 * GNU getopt permutes: from AT it skipped the words that are not options,
 * so the one it read is the first that looks like an option (a group read
 * halfway, "-qZ", is still at AT).  A long option is named by its word, a
 * short one by optopt.
 */
int btf_cmd__bad_option(int argc, char **argv, int at, int c)
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
