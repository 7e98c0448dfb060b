/* SPDX-License-Identifier: GPL-2.0 */
/* frugal btf: the entry points of its subcommands (see btf/cmd.c). */
#ifndef FRUGAL_BTF_H
#define FRUGAL_BTF_H

#include <stdbool.h>

/*
 * `frugal btf encode ARGS` (as_pahole false, argv[0] == "encode"), or the
 * binary invoked as "pahole" (as_pahole true, argv[0] == "pahole"): then it
 * takes pahole's command line and answers --version in pahole's format.
 */
int btf_encode_main(int argc, char **argv, bool as_pahole);
/* `frugal btf diff A B [--base BASE]`: 0 same, 1 different, 2 usage. */
int btf_diff_main(int argc, char **argv);
/* `frugal btf stat FILE`: counts per kind and sizes. */
int btf_stat_main(int argc, char **argv);

#endif
