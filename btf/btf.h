/* SPDX-License-Identifier: GPL-2.0 */
/* frugal btf: the entry points of its subcommands (see btf/cmd.c). */
#ifndef FRUGAL_BTF_H
#define FRUGAL_BTF_H

#include <stdbool.h>

#include "cli/cli.h"

/*
 * `frugal btf encode ARGS` (argv[0] == "encode").  The binary invoked as
 * "pahole" runs btf_pahole_main() (cli/tools.h): the same command line,
 * and --version in pahole's format.
 */
int btf_encode_main(int argc, char **argv);
/* `frugal btf diff A B [--base BASE]`: 0 same, 1 different, 2 usage. */
int btf_diff_main(int argc, char **argv);
/* `frugal btf abi OLD NEW`: 0 same, 1 error, 2 usage, |4 changed, |8 incompatible. */
int btf_abi_main(int argc, char **argv);
/* `frugal btf stat FILE`: counts per kind and sizes. */
int btf_stat_main(int argc, char **argv);

/* Their option tables, for the man pages and the completion (cli/gen/). */
extern const struct cli_opt btf_encode_cli_opts[];
extern const struct cli_opt btf_diff_cli_opts[];
extern const struct cli_opt btf_stat_cli_opts[];
extern const struct cli_opt btf_abi_cli_opts[];

#endif
