/* SPDX-License-Identifier: GPL-2.0 */
/*
 * frugal lock's entry points: what cli/tools.c lists (the command, its
 * option table and `top`, and `frugal bench lock`'s workload), the only
 * names of lock/ the command layer knows.  lock_main is lock/cmd/'s, the
 * option table and the modes lock/request/'s, the workload's lock/workload/'s.
 */
#ifndef FRUGAL_LOCK_CMD_H
#define FRUGAL_LOCK_CMD_H

#include "cli/cli.h"

int lock_main(int argc, char **argv);
int lock_bench_main(int argc, char **argv);	/* frugal bench lock */
extern const struct cli_opt lock_cli_opts[];
extern const struct cli_group lock_cli_modes;	/* frugal lock top */
extern const struct cli_opt lock_bench_cli_opts[];

#endif
