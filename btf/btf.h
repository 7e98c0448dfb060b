/* SPDX-License-Identifier: GPL-2.0 */
/*
 * frugal btf, as the command layer sees it (cli/tools.c lists it): its
 * entry points.  Inside, btf/btf_int.h has the subcommands.
 */
#ifndef FRUGAL_BTF_H
#define FRUGAL_BTF_H

struct cli_group;

/* `frugal btf SUBCMD ...` (btf/cmd.c). */
int btf_main(int argc, char **argv);
/*
 * The binary invoked as "pahole" (through a link): `frugal btf encode`'s
 * command line, and --version in pahole's format (btf/encode_cmd.c).
 */
int btf_pahole_main(int argc, char **argv);
/* Its subcommands and their option tables, for the man pages and the completion (cli/gen/). */
extern const struct cli_group btf_cli_group;

#endif
